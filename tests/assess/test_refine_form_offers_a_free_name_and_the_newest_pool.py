"""The refine form offers the dataset's newest pool (labelled with its pair count) and a free
name: ``<original qrels>-dream-<pool>``, or the pool's newest refinement's name, with "-2",
"-3"... when it is taken."""

import pytest

from assess.refined.forms import RefineForm, refined_name_suggest
from assess.refined.refine import qrels_refine
from corpora.models import Pool, QrelSet
from tests.fixtures.refine import settle_all


@pytest.fixture(name="settled")
def settled_fixture(holes):
    settle_all(holes)
    return holes


@pytest.mark.django_db
def test_a_pool_never_refined_gets_qrels_dream_pool(settled):
    assert refined_name_suggest(pool=settled.pool) == "test-dream-p"


@pytest.mark.django_db
def test_a_taken_name_gets_the_next_free_number(settled):
    QrelSet.objects.create(dataset=settled.dataset, name="test-dream-p")
    QrelSet.objects.create(dataset=settled.dataset, name="test-dream-p-2")
    assert refined_name_suggest(pool=settled.pool) == "test-dream-p-3"


@pytest.mark.django_db
def test_the_newest_refinement_names_the_series(settled):
    qrels_refine(pool=settled.pool, name="audit.v1")
    assert refined_name_suggest(pool=settled.pool) == "audit.v1-2"
    qrels_refine(pool=settled.pool, name="audit.v1-2")
    assert refined_name_suggest(pool=settled.pool) == "audit.v1-3"


@pytest.mark.django_db
def test_a_number_that_is_not_a_series_is_kept(settled):
    qrels_refine(pool=settled.pool, name="scifact-2024")
    assert refined_name_suggest(pool=settled.pool) == "scifact-2024-2"


@pytest.mark.django_db
def test_a_long_name_stays_within_100_characters(settled):
    long = "x" * 100
    qrels_refine(pool=settled.pool, name=long)
    suggested = refined_name_suggest(pool=settled.pool)
    assert suggested == "x" * 98 + "-2"
    assert RefineForm(
        {"pool": settled.pool.pk, "name": suggested}, dataset=settled.dataset
    ).is_valid()


@pytest.mark.django_db
def test_the_newest_pool_comes_first_and_is_offered(settled):
    newer = Pool.objects.create(
        dataset=settled.dataset, qrel_set=settled.test, name="empty-newer", depth=1
    )
    form = RefineForm(dataset=settled.dataset)
    assert [label for _, label in form.fields["pool"].choices] == [
        "empty-newer (0 pairs)",
        "p (4 pairs)",
    ]
    assert form.initial == {"pool": newer.pk, "name": "test-dream-empty-newer"}
    assert form.fields["allow_partial"].initial is False


@pytest.mark.django_db
def test_the_offered_name_is_free_and_valid(settled):
    qrels_refine(pool=settled.pool, name="test-dream-p")
    form = RefineForm(dataset=settled.dataset)
    assert not QrelSet.objects.filter(name=form.initial["name"]).exists()
    bound = RefineForm(
        {"pool": settled.pool.pk, "name": form.initial["name"]}, dataset=settled.dataset
    )
    assert bound.is_valid(), bound.errors
