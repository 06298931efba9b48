"""Progress counts debates by status, agreed by round, escalated by reason, and sums cost."""

import pytest

from debates.models import Debate
from debates.services import debate_job_progress
from debates.services.launch import JobSpec, debate_job_launch


@pytest.mark.django_db
def test_progress_counts_what_the_database_holds(small_pool):
    job = debate_job_launch(spec=JobSpec(pool=small_pool), start=False)
    d1, d2, d3, d4 = job.debates.order_by("pk")
    rows = [
        (d1, dict(status="agreed", final_label=1, consensus_round=1, calls=2, seconds=3.0)),
        (d2, dict(status="agreed", final_label=0, consensus_round=2, calls=4, seconds=5.0)),
        (d3, dict(status="escalated", escalation_reason="unparsed", calls=3, seconds=1.5)),
        (d4, dict(status="running", calls=1, seconds=0.0)),
    ]
    for debate, values in rows:
        Debate.objects.filter(pk=debate.pk).update(
            prompt_tokens=100 * values["calls"], completion_tokens=10 * values["calls"], **values
        )
    progress = debate_job_progress(job=job)
    assert (progress.total, progress.pending, progress.running) == (4, 0, 1)
    assert (progress.agreed, progress.escalated, progress.failed, progress.done) == (2, 1, 0, 3)
    assert progress.agreed_by_round == {1: 1, 2: 1}
    assert progress.escalated_by_reason == {"unparsed": 1}
    assert (progress.calls, progress.prompt_tokens, progress.completion_tokens) == (10, 1000, 100)
    assert progress.seconds == 9.5
    assert progress.per_pair(progress.calls) == 10 / 3
    assert progress.status == "running"


@pytest.mark.django_db
def test_a_new_job_is_all_pending(small_pool):
    progress = debate_job_progress(
        job=debate_job_launch(spec=JobSpec(pool=small_pool), start=False)
    )
    assert (progress.total, progress.pending, progress.done, progress.per_pair(5)) == (4, 4, 0, 0)
    assert (progress.agreed_by_round, progress.escalated_by_reason) == ({}, {})
