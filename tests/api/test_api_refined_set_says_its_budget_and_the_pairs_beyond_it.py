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


def test_a_budgeted_set_gives_its_budget_and_the_pairs_beyond_it(holes, api_as):
    settle_all(holes)
    holes.debate("q1", "d5").delete()
    holes.debate("q2", "d6").delete()
    holes.pool.strategy, holes.pool.budget = "depth", 3
    holes.pool.save(update_fields=["strategy", "budget"])
    qrels_refine(pool=holes.pool, name="test-due", allow_partial=True)
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
