"""Transient LLM errors are retried with backoff; an attempt that still fails is counted, the
debate requeued with its error kept, failed after 3 attempts, and re-runnable."""

import pytest

from debates.llm.base import PermanentLLMError, TransientLLMError
from debates.llm.scripted import ScriptedClient
from debates.models import Debate
from debates.services import debate_job_retry_failed, debate_run
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply


@pytest.fixture
def job(small_pool, fake_llms):
    return debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1), start=False
    )


@pytest.fixture
def sent(monkeypatch):
    """The (debate id, countdown) of every run_debate message sent."""
    from debates.tasks import run_debate

    messages = []
    monkeypatch.setattr(
        run_debate,
        "apply_async",
        lambda args, countdown=None, queue=None: messages.append((*args, countdown)),
    )
    return messages


@pytest.mark.django_db
def test_a_429_is_waited_out_for_its_retry_after_and_the_debate_goes_on(job, fake_llms):
    a = ScriptedClient([TransientLLMError("429 slow down", retry_after=7.0), reply(1)])
    b = ScriptedClient([reply(1)])
    fake_llms(a=a, b=b)
    waits = []
    debate = debate_run(debate_id=job.debates.order_by("pk").first().pk, sleep=waits.append)
    assert (debate.status, debate.attempts, debate.calls) == ("agreed", 0, 2)
    assert len(waits) == 1 and waits[0] >= 7.0
    assert len(a.calls) == 2


@pytest.mark.django_db
def test_transient_errors_beyond_the_retry_budget_fail_the_attempt_and_requeue_it(
    job, fake_llms, settings, sent, django_capture_on_commit_callbacks
):
    settings.DREAM_LLM_RETRY_ATTEMPTS = 3
    settings.DREAM_DEBATE_RETRY_SECONDS = 30
    a = ScriptedClient([TransientLLMError("timeout")] * 3)
    fake_llms(a=a, b=ScriptedClient([]))
    waits = []
    with django_capture_on_commit_callbacks(execute=True):
        debate = debate_run(debate_id=job.debates.order_by("pk").first().pk, sleep=waits.append)
    assert (debate.status, debate.attempts) == ("pending", 1)
    assert debate.last_error == "TransientLLMError: timeout"
    assert (len(a.calls), len(waits)) == (3, 2)
    assert (debate.lease_token, debate.lease_expires_at, debate.finished) == ("", None, None)
    assert sent == [(debate.pk, 30.0)]


@pytest.mark.django_db
def test_the_third_failed_attempt_leaves_the_debate_failed_with_its_error(job, fake_llms):
    errors = [PermanentLLMError(f"bad request {i}") for i in range(1, 4)]
    fake_llms(a=ScriptedClient(errors), b=ScriptedClient([]))
    debate = job.debates.order_by("pk").first()
    statuses = [debate_run(debate_id=debate.pk, requeue=False).status for _ in range(4)]
    assert statuses == ["pending", "pending", "failed", "failed"]
    debate.refresh_from_db()
    assert (debate.attempts, debate.last_error) == (3, "PermanentLLMError: bad request 3")
    assert debate.finished is not None


@pytest.mark.django_db
def test_retry_failed_gives_failed_debates_fresh_attempts_and_reruns_them(
    job, fake_llms, sent, django_capture_on_commit_callbacks
):
    Debate.objects.filter(job=job).update(status="agreed", final_label=1, consensus_round=1)
    failed = job.debates.order_by("pk").first()
    Debate.objects.filter(pk=failed.pk).update(
        status="failed", attempts=3, last_error="PermanentLLMError: x", final_label=None
    )
    job.status = "finished"
    job.save()
    with django_capture_on_commit_callbacks(execute=True):
        assert debate_job_retry_failed(job=job) == 1
    failed.refresh_from_db()
    # Given back with its failure as it was (a cancel before it runs puts it back failed)...
    assert (failed.status, failed.attempts, failed.last_error) == (
        "pending",
        3,
        "PermanentLLMError: x",
    )
    assert failed.finished is not None
    assert job.status == "running"
    assert sent == [(failed.pk, None)]
    # ... and asked again with a fresh count: one failed attempt is 1 of 3, not the 4th.
    fake_llms(a=ScriptedClient([PermanentLLMError("y"), reply(0)]), b=ScriptedClient([reply(0)]))
    with django_capture_on_commit_callbacks(execute=False):
        failed = debate_run(debate_id=failed.pk)
    assert (failed.status, failed.attempts, failed.finished) == ("pending", 1, None)
    failed = debate_run(debate_id=failed.pk)
    assert (failed.status, failed.final_label, failed.last_error) == ("agreed", 0, "")
    job.refresh_from_db()
    assert job.status == "finished"
