"""A pool pair humans have not judged yet (its escalation still waiting) is unjudged in the
refined qrels, and in the re-benchmark's intervals missing at random among the escalated
pairs, with a note saying so (the ``holes`` world of tests/fixtures/refine.py)."""

import pytest

from assess.evaluation.refined_intervals import rebench_intervals
from assess.refined.refine import qrels_refine
from debates.models import DebateJob
from tests.fixtures.refine import add_turns, review, settle

pytestmark = pytest.mark.django_db


def test_a_waiting_escalation_with_no_judged_one_beside_it_gets_words_not_a_number(holes):
    DebateJob.objects.filter(pk=holes.job.pk).update(audit_share=0.5)
    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=2)
    d23 = settle(holes.debate("q2", "d3"), "escalated", reason="disagreement")
    add_turns(d23, [((1, "it helps"), (0, "it does not"))])
    d26 = settle(holes.debate("q2", "d6"), "agreed", label=1, round=1)
    review(d26, "audit", [("bob", 0)])
    refined = qrels_refine(pool=holes.pool, name="partial", allow_partial=True).qrel_set
    found = rebench_intervals(original=holes.test, refined=refined, runs=holes.runs)
    # No escalated pair is judged: nothing to predict (q2, d3) from, so no interval, and
    # words saying what is missing instead.
    assert found.counts["unresolved"] == 1
    assert found.ppi is None
    assert found.error == (
        "intervals need some escalated pairs judged: none of the 1 escalated pairs has a "
        "human label yet"
    )


@pytest.mark.parametrize("status", ["pending", "failed"])
def test_a_pair_whose_debate_never_ended_is_no_escalation_and_counts_as_not_relevant(holes, status):
    # Every agreed pair audited (share 1) and the one escalation judged relevant; (q1, d5)
    # has no label because its debate is still pending or failed, which humans never decide:
    # it is unjudged in the refined qrels and stays so in the intervals, not predicted at the
    # escalated pairs' share of relevant (here 1 of 1).
    DebateJob.objects.filter(pk=holes.job.pk).update(audit_share=1.0)
    d13 = settle(holes.debate("q1", "d3"), "agreed", label=1, round=1)
    review(d13, "audit", [("bob", 1)])
    d26 = settle(holes.debate("q2", "d6"), "agreed", label=1, round=1)
    review(d26, "audit", [("bob", 0)])
    d23 = settle(holes.debate("q2", "d3"), "escalated", reason="disagreement")
    review(d23, "escalated", [("alice", 1)])
    if status == "failed":
        settle(holes.debate("q1", "d5"), "failed")
    refined = qrels_refine(pool=holes.pool, name="partial", allow_partial=True).qrel_set

    found = rebench_intervals(original=holes.test, refined=refined, runs=holes.runs)

    assert found.error == "" and found.ppi is not None
    assert found.counts["unresolved"] == 1
    # beta: q1 d1 (1), d2, d5 (unjudged): 0.1; q2 d5 (-1), d4 (1), d3 (1): 0.2. Every label
    # is known (pi = 1), so the interval is the point.
    beta = found.ppi.by_system["beta"]["P@10"]
    assert (beta.estimate, beta.low, beta.high) == pytest.approx((0.15, 0.15, 0.15))
    assert not any("missing at random" in n for n in found.notes)
    assert (
        "1 pool pair has no final label: left out of the refined qrels, so the point values "
        "count it as not relevant; the intervals count it as not relevant too (a debate "
        "pending or failed, or a pair never debated: no escalation), so no interval covers "
        "its label"
    ) in found.notes
