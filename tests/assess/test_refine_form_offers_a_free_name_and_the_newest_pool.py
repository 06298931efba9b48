"""The refine form lists the dataset's pools newest first (each with its pair count) and
offers the newest one a debate job labelled (an agreed debate, or a person's judgment of an
escalated one), else the newest pool, and a free name: ``<original qrels>-dream-<pool>``, or
the pool's newest refinement's name, with "-2", "-3"... when it is taken."""

import pytest

from assess.refined.forms import RefineForm, refined_name_suggest
from assess.refined.refine import qrels_refine
from corpora.models import Pool, QrelSet
from tests.fixtures.refine import review, settle, settle_all


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


def _newer_pool(world) -> Pool:
    return Pool.objects.create(
        dataset=world.dataset, qrel_set=world.test, name="empty-newer", depth=1
    )


@pytest.mark.django_db
def test_the_newest_pool_comes_first_but_the_debated_one_is_offered(settled):
    _newer_pool(settled)
    form = RefineForm(dataset=settled.dataset)
    assert [label for _, label in form.fields["pool"].choices] == [
        "empty-newer (0 pairs)",
        "p (4 pairs)",
    ]
    assert form.initial == {"pool": settled.pool.pk, "name": "test-dream-p"}
    assert form.fields["allow_partial"].initial is False


@pytest.mark.django_db
def test_a_pool_labelled_only_by_a_persons_judgment_is_offered(holes):
    # p's one settled debate escalated; alice's judgment is its only label.
    escalated = settle(holes.debate("q2", "d3"), "escalated", reason="disagreement")
    review(escalated, "escalated", [("alice", 1)])
    _newer_pool(holes)
    assert RefineForm(dataset=holes.dataset).initial["pool"] == holes.pool.pk


@pytest.mark.django_db
def test_without_a_labelled_pool_the_newest_pool_is_offered(holes):
    # p's job has only pending debates: no pool has a label, so the newest is offered.
    newer = _newer_pool(holes)
    form = RefineForm(dataset=holes.dataset)
    assert form.initial == {"pool": newer.pk, "name": "test-dream-empty-newer"}


@pytest.mark.django_db
def test_the_offered_name_is_free_and_valid(settled):
    qrels_refine(pool=settled.pool, name="test-dream-p")
    form = RefineForm(dataset=settled.dataset)
    assert not QrelSet.objects.filter(name=form.initial["name"]).exists()
    bound = RefineForm(
        {"pool": settled.pool.pk, "name": form.initial["name"]}, dataset=settled.dataset
    )
    assert bound.is_valid(), bound.errors
