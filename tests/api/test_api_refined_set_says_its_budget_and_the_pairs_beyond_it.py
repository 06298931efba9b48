"""``GET /api/v1/datasets/{slug}/refined`` says the budget a set was refined under and the
pairs beyond it apart from the unresolved ones: ``pool_pairs`` = ``pairs`` (labelled +
``unresolved``) + ``beyond_budget``.

The ``holes`` world of tests/fixtures/refine.py (4 pairs), settled, with a depth pool
budgeted to 3 pairs and the debates of q1 d5 and q2 d6 deleted: 2 labelled, 1 unresolved
(q1 d5, still due), 1 beyond the budget (q2 d6)."""

import pytest

from assess.refined.refine import qrels_refine
from tests.fixtures.refine import settle_all

pytestmark = pytest.mark.django_db


def _refined(api) -> dict:
    response = api.get("/api/v1/datasets/holes/refined")
    assert response.status_code == 200
    (item,) = response.json()["items"]
    return item


def _due(holes):
    settle_all(holes)
    holes.debate("q1", "d5").delete()
    holes.debate("q2", "d6").delete()
    holes.pool.strategy, holes.pool.budget = "depth", 3
    holes.pool.save(update_fields=["strategy", "budget"])
    return qrels_refine(pool=holes.pool, name="test-due", allow_partial=True)


def test_a_budgeted_set_gives_its_budget_and_the_pairs_beyond_it(holes, api_as):
    _due(holes)
    # The pool's budget changed since: the set still says the one it was refined under.
    holes.pool.budget = 4
    holes.pool.save(update_fields=["budget"])
    item = _refined(api_as("researcher"))
    got = {k: item[k] for k in ("pool_pairs", "pairs", "unresolved", "budget", "beyond_budget")}
    assert got == {"pool_pairs": 4, "pairs": 3, "unresolved": 1, "budget": 3, "beyond_budget": 1}
    assert item["budget_recorded"] is True
    assert item["counts"]["by_reason"] == {"not debated": 1}


def test_a_set_without_budget_has_none_beyond(refined, api_as):
    item = _refined(api_as("researcher"))
    got = {k: item[k] for k in ("pool_pairs", "pairs", "budget", "beyond_budget")}
    assert got == {"pool_pairs": 4, "pairs": 4, "budget": None, "beyond_budget": 0}


def test_the_intervals_and_the_jobs_budget_count_the_pair_beyond_apart(holes, api_as):
    _due(holes)
    api = api_as("researcher")
    response = api.get("/api/v1/datasets/holes/refined/test-due/rebenchmark")
    assert response.status_code == 200
    counts = response.json()["intervals"]["counts"]
    assert (counts["unresolved"], counts["beyond_budget"]) == (1, 1)
    budget = api.get(f"/api/v1/jobs/{holes.job.pk}").json()["budget"]
    assert (budget["refined"], budget["unresolved"], budget["beyond_budget"]) == ("test-due", 1, 1)
    assert (
        "1 pool pair is beyond the pool's budget, left unjudged by design (never debated, not "
        "due): left out of the refined qrels, so the point values count it as not relevant"
    ) in budget["notes"]


def test_a_set_refined_before_the_budget_was_stored_reads_it_from_its_provenance(holes, api_as):
    from assess.models import Refinement

    report = _due(holes)
    Refinement.objects.filter(pk=report.refinement.pk).update(budget=None, beyond_budget=None)
    report.refinement.provenance.filter(reason="beyond budget").update(reason="not debated")
    item = _refined(api_as("researcher"))
    got = {k: item[k] for k in ("pool_pairs", "pairs", "unresolved", "budget", "beyond_budget")}
    assert got == {"pool_pairs": 4, "pairs": 3, "unresolved": 1, "budget": 3, "beyond_budget": 1}
    assert item["budget_recorded"] is False
