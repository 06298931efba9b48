"""A refined set refined while an annotator holds one escalation on lease and one drawn
audit pair is not judged yet: the re-benchmark's intervals (notes, counts, sample line), the
job page's planner and the benchmark zip's datasheet all say the same true thing, from the
same counts (the ``holes`` world of tests/fixtures/refine.py, audit share 1).

The trial saw the planner call the waiting escalation "outside every interval", the notes
call it missing at random, the datasheet "left out"; nothing on the drawn audits waiting;
and a human budget named for a job without one."""

from datetime import timedelta

import pytest
from django.utils import timezone

from assess.evaluation.budget import job_budget
from assess.evaluation.interval_missing import (
    MissingLabels,
    audits_note,
    escalations_note,
    missing_notes,
    unresolved_note,
)
from assess.evaluation.refined_intervals import interval_tables, rebench_intervals
from assess.models import ReviewItem
from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet_interval_lines import IntervalsSheet, interval_lines
from assess.refined.refine import qrels_refine
from debates.models import DebateJob
from tests.assess.test_job_page_plans_the_human_labels_for_a_tighter_ndcg import panel
from tests.fixtures.refine import review, settle, user

pytestmark = pytest.mark.django_db


def _refine_with_labels_waiting(holes, *, human_budget=None):
    """(q1, d3) agreed and drawn, its audit not judged; (q2, d6) agreed and audited;
    (q2, d3) escalated and judged; (q1, d5) escalated, its review held on lease by carol
    (ranked second: beyond a human budget of 1)."""
    DebateJob.objects.filter(pk=holes.job.pk).update(audit_share=1.0, human_budget=human_budget)
    review(settle(holes.debate("q1", "d3"), "agreed", label=1, round=1), "audit")
    review(settle(holes.debate("q2", "d6"), "agreed", label=1, round=1), "audit", [("bob", 0)])
    d23 = settle(holes.debate("q2", "d3"), "escalated", reason="disagreement")
    review(d23, "escalated", [("alice", 1)])
    held = review(settle(holes.debate("q1", "d5"), "escalated", reason="disagreement"), "escalated")
    ReviewItem.objects.filter(pk=held.pk).update(
        leased_to=user("carol"),
        lease_expires_at=timezone.now() + timedelta(minutes=30),
        budget_rank=2,
    )
    return qrels_refine(
        pool=holes.pool, name="waiting", allow_partial=True, max_unresolved_share=1.0
    ).qrel_set


def test_the_rebenchmark_counts_and_notes_say_what_waits_and_how_each_is_taken(holes):
    refined = _refine_with_labels_waiting(holes)
    found = rebench_intervals(original=holes.test, refined=refined, runs=holes.runs)
    assert found.error == ""
    counts = found.as_json()["counts"]
    assert {k: counts[k] for k in ("agreed", "audited", "audit_waiting", "escalated")} == {
        "agreed": 2, "audited": 1, "audit_waiting": 1, "escalated": 1,
    }  # fmt: skip
    assert (counts["unresolved"], counts["escalated_waiting"], counts["over_budget"]) == (1, 1, 0)
    missing = MissingLabels(unresolved=1, escalations=1, audits=1)
    for note in (unresolved_note(missing), escalations_note(missing), audits_note(missing)):
        assert found.notes.count(note) == 1
    # No job has a human budget: none is named, and no other note says the pair is outside
    # the intervals or counts "1 pooled pairs".
    assert not any("budget" in n or "pooled pairs" in n or "outside" in n for n in found.notes)
    table_note = interval_tables(found)[0].note
    assert (
        "human sample: 1 audited of 2 agreed labels (1 more drawn, not judged yet), "
        "1 escalated pair judged"
    ) in table_note
    assert f"Note: {audits_note(missing)}." in table_note


def test_the_job_pages_planner_says_the_same_as_the_rebenchmark(holes, client_as):
    refined = _refine_with_labels_waiting(holes)
    budget = job_budget(job=holes.job)
    assert budget.error == ""
    body = budget.as_json()
    assert (body["unresolved"], body["escalated_waiting"], body["audit_waiting"]) == (1, 1, 1)
    found = rebench_intervals(original=holes.test, refined=refined, runs=holes.runs)
    missing = MissingLabels(unresolved=1, escalations=1, audits=1)
    assert [n for n in body["notes"] if n in found.notes] == body["notes"]
    assert unresolved_note(missing) in body["notes"]
    text = panel(client_as("researcher"), holes.job)
    assert (
        "1 pool pair has no final label: left out of the refined qrels, so the point values "
        "count it as not relevant; the intervals take it as missing at random among the "
        "escalated pairs (an escalation humans must decide)."
    ) in text
    # Said once, as the warning; the escalation's and the audit's notes below it.
    assert text.count("1 pool pair has no final label") == 1
    assert f"Note: {escalations_note(missing)}." in text
    assert f"Note: {audits_note(missing)}." in text
    assert "outside every interval" not in text and "budget serves" not in text


def test_the_datasheet_says_the_same_and_counts_the_drawn_audit_waiting(holes):
    refined = _refine_with_labels_waiting(holes)
    sheet = benchmark_datasheet(refinement=refined.refinement).intervals
    assert sheet.audit_waiting == 1 and sheet.unresolved == 1
    text = "\n".join(interval_lines(sheet, code=str, text=str, flat=str))
    assert (
        "- Sample sizes: 2 human labels (1 audited agreed pair (1 more drawn, not judged yet), "
        "1 escalated pair); 2 machine labels (the debates' consensus); 1 pair without a final "
        "label, left out of the qrels (so not relevant in the point values; the notes say how "
        "the intervals take it)"
    ) in text
    missing = MissingLabels(unresolved=1, escalations=1, audits=1)
    for note in (unresolved_note(missing), escalations_note(missing), audits_note(missing)):
        assert f"- Note: {note}" in text


def test_an_escalation_beyond_the_jobs_human_budget_names_that_budget(holes):
    refined = _refine_with_labels_waiting(holes, human_budget=1)
    found = rebench_intervals(original=holes.test, refined=refined, runs=holes.runs)
    assert (found.counts["escalated_waiting"], found.counts["over_budget"]) == (1, 1)
    missing = MissingLabels(unresolved=1, escalations=1, over_budget=1, audits=1)
    assert escalations_note(missing) in found.notes
    assert "it waits beyond a job's human budget" in escalations_note(missing)


def test_a_drawn_audit_beyond_the_jobs_human_budget_asks_to_raise_it(holes):
    refined = _refine_with_labels_waiting(holes, human_budget=1)
    ReviewItem.objects.filter(debate__pair__query__query_id="q1", kind="audit").update(
        budget_rank=3
    )
    found = rebench_intervals(original=holes.test, refined=refined, runs=holes.runs)
    assert (found.counts["audit_waiting"], found.counts["audit_over_budget"]) == (1, 1)
    missing = MissingLabels(
        unresolved=1, escalations=1, over_budget=1, audits=1, audits_over_budget=1
    )
    assert audits_note(missing) in found.notes
    assert audits_note(missing).endswith(
        "it waits beyond a job's human budget, so no annotator is given it: raise the budget, "
        "judge it and refine again to drop it"
    )
    # Within the budget it is served: judging it is enough.
    ReviewItem.objects.filter(debate__pair__query__query_id="q1", kind="audit").update(
        budget_rank=1
    )
    found = rebench_intervals(original=holes.test, refined=refined, runs=holes.runs)
    assert found.counts["audit_over_budget"] == 0
    served = MissingLabels(unresolved=1, escalations=1, over_budget=1, audits=1)
    assert audits_note(served) in found.notes and audits_note(missing) not in found.notes


def test_without_intervals_the_datasheet_does_not_send_the_reader_to_the_notes_for_them():
    sheet = IntervalsSheet(
        error="no audited pair",
        unresolved=3,
        notes=tuple(missing_notes(MissingLabels(3, 3), intervals=False)),
    )
    text = "\n".join(interval_lines(sheet, code=str, text=str, flat=str))
    assert (
        "3 pairs without a final label, left out of the qrels (so not relevant in the point "
        "values)\n"
    ) in text
    assert "intervals take" not in text
    computed = "\n".join(interval_lines(IntervalsSheet(unresolved=3), code=str, text=str, flat=str))
    assert "(so not relevant in the point values; the notes say how the intervals take them)" in (
        computed
    )
