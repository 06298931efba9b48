"""A count of one names one thing: the refine operation's message said "1 pairs pending",
the intervals' note "1 pool pairs have no final label" and ``simulate_study`` "1
replications" (their tests say so too); such counts go through ``core.text.plural``."""

import pytest

from assess.refined.operations import refine_step, refinement_start
from core.text import plural
from tests.fixtures.refine import settle


def test_plural_names_one_thing_in_the_singular_and_others_in_the_plural():
    assert plural(1, "pair") == "1 pair"
    assert plural(0, "pair") == "0 pairs"
    assert plural(1200, "pair") == "1,200 pairs"
    assert plural(1, "query", "queries") == "1 query"
    assert plural(2, "query", "queries") == "2 queries"


@pytest.mark.django_db
def test_a_refinement_leaving_one_pair_unresolved_says_one_pair_pending(holes):
    # Three of the pool's four debates agree; (q2, d3) escalates and nobody judges it.
    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=1)
    settle(holes.debate("q2", "d6"), "agreed", label=1, round=1)
    settle(holes.debate("q2", "d3"), "escalated", reason="disagreement")
    operation = refinement_start(
        pool=holes.pool, name="one-pending", allow_partial=True, max_unresolved_share=1.0
    )

    result = refine_step(operation, None)

    assert result["unresolved"] == 1
    assert ", 1 pair pending. " in result["message"]
