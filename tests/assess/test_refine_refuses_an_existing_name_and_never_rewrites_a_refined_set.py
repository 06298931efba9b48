"""A refined set is immutable: refining again under a taken name (refined or imported) is
refused and changes nothing, and a second refinement gets a set of its own."""

import pytest

from assess.refined.refine import RefineError, qrels_refine
from corpora.models import Qrel
from corpora.services import qrels_rows
from tests.fixtures.refine import settle, settle_all


@pytest.mark.django_db
def test_refining_into_an_existing_name_is_refused_and_the_set_is_unchanged(holes):
    settle_all(holes)
    first = qrels_refine(pool=holes.pool, name="v1").qrel_set
    rows = list(qrels_rows(qrel_set=first))
    count = Qrel.objects.count()
    # A later consensus would change a label: it must go into a new set, not rewrite v1.
    settle(holes.debate("q1", "d5"), "agreed", label=1, round=1, minutes=99)
    for name in ("v1", "test"):
        with pytest.raises(RefineError, match=f"qrel set '{name}' already exists"):
            qrels_refine(pool=holes.pool, name=name)
    assert Qrel.objects.count() == count
    assert list(qrels_rows(qrel_set=first)) == rows
    second = qrels_refine(pool=holes.pool, name="v2").qrel_set
    assert ("q1", "d5", 0) in rows
    assert ("q1", "d5", 1) in list(qrels_rows(qrel_set=second))


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["", "a b", "x/y", "a" * 101])
def test_a_name_that_cannot_travel_in_a_url_is_refused(holes, name):
    settle_all(holes)
    with pytest.raises(RefineError, match="must be 1-100 letters"):
        qrels_refine(pool=holes.pool, name=name)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["new", ".", ".."])
def test_a_name_the_refined_pages_cannot_address_is_refused_and_nothing_is_written(holes, name):
    settle_all(holes)
    count = Qrel.objects.count()
    with pytest.raises(RefineError, match="cannot be the name of a refined set"):
        qrels_refine(pool=holes.pool, name=name)
    assert Qrel.objects.count() == count
