"""Pause, resume and cancel a job: a paused or cancelled job's debates do nothing."""

import pytest

from debates.llm.scripted import RuleClient, ScriptedClient
from debates.models import DebateJob
from debates.services import (
    DebateJobError,
    debate_job_cancel,
    debate_job_extend,
    debate_job_pause,
    debate_job_resume,
    debate_job_retry_failed,
    debate_job_start,
    debate_run,
)
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply


@pytest.fixture
def job(small_pool, fake_llms):
    return debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1), start=False
    )


@pytest.fixture
def sent(monkeypatch):
    from debates.tasks import run_debate

    messages = []
    monkeypatch.setattr(
        run_debate, "apply_async", lambda args, countdown=None, queue=None: messages.append(args[0])
    )
    return messages


@pytest.mark.django_db
def test_a_paused_jobs_debates_do_nothing_until_it_is_resumed(
    job, fake_llms, sent, django_capture_on_commit_callbacks
):
    a, b = ScriptedClient([reply(1)]), ScriptedClient([reply(1)])
    fake_llms(a=a, b=b)
    debate_job_pause(job=job)
    assert job.status == "paused"
    first = job.debates.order_by("pk").first()
    assert debate_run(debate_id=first.pk).status == "pending"
    assert (len(a.calls), len(b.calls)) == (0, 0)
    with django_capture_on_commit_callbacks(execute=True):
        assert debate_job_resume(job=job) == 4
    assert job.status == "running"
    assert sent == sorted(job.debates.values_list("pk", flat=True))
    assert debate_run(debate_id=first.pk).status == "agreed"


@pytest.mark.django_db
def test_pausing_during_a_debate_stops_it_before_the_next_call_and_keeps_its_turn(job, fake_llms):
    def pause_then_reply(messages):
        DebateJob.objects.filter(pk=job.pk).update(status="paused")
        return reply(1)

    a, b = RuleClient(pause_then_reply), ScriptedClient([])
    fake_llms(a=a, b=b)
    debate = debate_run(debate_id=job.debates.order_by("pk").first().pk)
    assert (debate.status, debate.attempts, debate.last_error) == ("pending", 0, "")
    assert list(debate.turns.values_list("agent", "label")) == [("A", 1)]
    assert len(b.calls) == 0
    debate_job_resume(job=job, enqueue=False)
    b2 = ScriptedClient([reply(1)])
    fake_llms(a=ScriptedClient([]), b=b2)
    debate = debate_run(debate_id=debate.pk)
    assert (debate.status, debate.final_label, len(b2.calls)) == ("agreed", 1, 1)


@pytest.mark.django_db
def test_a_cancelled_job_runs_nothing_more_and_cannot_be_restarted(job, fake_llms):
    a = ScriptedClient([])
    fake_llms(a=a, b=ScriptedClient([]))
    debate_job_cancel(job=job)
    assert (job.status, job.finished is not None) == ("cancelled", True)
    assert debate_run(debate_id=job.debates.order_by("pk").first().pk).status == "pending"
    assert len(a.calls) == 0
    for action in (debate_job_resume, debate_job_start, debate_job_pause, debate_job_cancel):
        with pytest.raises(DebateJobError, match=f"job {job.pk} is cancelled"):
            action(job=job)
    for action in (debate_job_retry_failed, debate_job_extend):
        with pytest.raises(DebateJobError, match=f"job {job.pk} is cancelled"):
            action(job=job)


@pytest.mark.django_db
def test_only_a_running_job_can_be_paused_and_only_a_paused_one_resumed(job):
    with pytest.raises(DebateJobError, match="only a paused job resumes"):
        debate_job_resume(job=job)
    debate_job_pause(job=job)
    with pytest.raises(DebateJobError, match="only a running job can be paused"):
        debate_job_pause(job=job)
