"""The human sample's "by job" list of a refined set names every job with labels in it,
also one whose drawn audits and escalations all still wait for a human (before, such a job
was left out, and read as if the set held none of its pairs), with what waits."""

import pytest

from assess.evaluation.interval_reports import SampleSource
from assess.evaluation.refined_intervals import RefinedIntervals, interval_tables


def test_a_job_whose_labels_all_wait_says_what_waits():
    waiting = SampleSource(
        job=2, audit_share=0.02, audited=0, escalated=0, audits_waiting=7, escalations_waiting=57
    )
    assert waiting.text() == (
        "job 2 (audit share 2%): 0 audited, 0 escalated; no human label yet: 7 drawn audits, "
        "57 escalations"
    )
    one = SampleSource(job=3, audit_share=0.5, audited=1, escalated=0, escalations_waiting=1)
    assert (
        one.text()
        == "job 3 (audit share 50%): 1 audited, 0 escalated; no human label yet: 1 escalation"
    )


def test_the_no_interval_table_lists_the_waiting_job_beside_the_one_that_gave_labels():
    result = RefinedIntervals(
        counts={"agreed": 143, "audit_waiting": 7, "escalated": 5, "escalated_waiting": 57},
        error="no audited pair has a human label yet",
    )
    result.sources = [
        SampleSource(job=1, audit_share=0.0, audited=0, escalated=5, on_pool=False),
        SampleSource(
            job=2, audit_share=0.02, audited=0, escalated=0, audits_waiting=7,
            escalations_waiting=57,
        ),
    ]  # fmt: skip
    [table] = interval_tables(result)
    assert table.note.endswith(
        "by job: job 1 (audit share 0%): 0 audited, 5 escalated; job 2 (audit share 2%): "
        "0 audited, 0 escalated; no human label yet: 7 drawn audits, 57 escalations."
    )


@pytest.mark.django_db
def test_sample_sources_count_a_jobs_waiting_audit_and_escalation(holes):
    """The ``holes`` job with (q2, d3) escalated and (q2, d6) agreed and drawn for the audit,
    neither judged yet; refined, the job has given no human label but is listed with both."""
    from assess.evaluation.refined_intervals import sample_sources
    from assess.refined.refine import qrels_refine
    from tests.fixtures.refine import review, settle

    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1, minutes=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=1, minutes=2)
    review(settle(holes.debate("q2", "d3"), "escalated", reason="disagreement", minutes=3),
           "escalated")  # fmt: skip
    review(settle(holes.debate("q2", "d6"), "agreed", label=1, round=1, minutes=4), "audit")
    refined = qrels_refine(pool=holes.pool, name="waiting", allow_partial=True).qrel_set
    [source] = sample_sources(refined=refined)
    assert (source.job, source.audited, source.escalated) == (holes.job.pk, 0, 0)
    assert (source.audits_waiting, source.escalations_waiting) == (1, 1)
    assert source.text().endswith("no human label yet: 1 drawn audit, 1 escalation")
