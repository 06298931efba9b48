"""A pool pair humans have not judged yet (its escalation still waiting) is unjudged in the
refined qrels, and in the re-benchmark's intervals missing at random among the escalated
pairs, with a note saying so (the ``holes`` world of tests/fixtures/refine.py)."""

import pytest

from assess.evaluation.refined_intervals import rebench_intervals
from assess.refined.refine import qrels_refine
from debates.models import DebateJob
from tests.fixtures.refine import add_turns, review, settle

pytestmark = pytest.mark.django_db


def test_the_waiting_escalation_is_counted_and_named_and_the_intervals_still_stand(holes):
    DebateJob.objects.filter(pk=holes.job.pk).update(audit_share=0.5)
    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=2)
    d23 = settle(holes.debate("q2", "d3"), "escalated", reason="disagreement")
    add_turns(d23, [((1, "it helps"), (0, "it does not"))])
    d26 = settle(holes.debate("q2", "d6"), "agreed", label=1, round=1)
    review(d26, "audit", [("bob", 0)])
    refined = qrels_refine(pool=holes.pool, name="partial", allow_partial=True).qrel_set
    found = rebench_intervals(original=holes.test, refined=refined, runs=holes.runs)
    assert found.error == ""
    assert found.counts["unresolved"] == 1
    assert found.ppi is not None
    # No escalated pair is judged: (q2, d3) counts as not relevant, as in the refined qrels,
    # so alpha's P@10 is as in the fully judged world without d3: q1 d1 (0.1), q2 d4 (0.1).
    assert found.ppi.by_system["alpha"]["P@10"].estimate == pytest.approx(0.1)
    assert any("missing at random among the escalated pairs" in n for n in found.notes)
    assert "no escalated pair is judged yet: the 1 escalated pairs count as not relevant" in (
        found.notes
    )
