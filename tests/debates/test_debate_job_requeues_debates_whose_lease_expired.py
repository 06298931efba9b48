"""Debates whose worker died (lease expired) are requeued; the third time they fail; a worker
that lost its lease writes nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from debates.llm.scripted import RuleClient, ScriptedClient
from debates.models import Debate, DebateJob
from debates.services import debate_requeue_expired, debate_run
from debates.services.launch import JobSpec, debate_job_launch
from debates.tasks import requeue_expired_debates
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


def hold(debate, *, expires_in: float, attempts: int = 0):
    Debate.objects.filter(pk=debate.pk).update(
        status="running",
        lease_token="dead-worker",
        lease_expires_at=timezone.now() + timedelta(seconds=expires_in),
        attempts=attempts,
    )


@pytest.mark.django_db
def test_an_expired_lease_sends_the_debate_back_to_the_queue_as_a_failed_attempt(
    job, sent, django_capture_on_commit_callbacks
):
    expired, alive = job.debates.order_by("pk")[:2]
    hold(expired, expires_in=-1)
    hold(alive, expires_in=60)
    with django_capture_on_commit_callbacks(execute=True):
        assert debate_requeue_expired() == 1
    expired.refresh_from_db()
    alive.refresh_from_db()
    assert (expired.status, expired.attempts, expired.lease_token) == ("pending", 1, "")
    assert expired.last_error.startswith("worker lost: the lease expired at ")
    assert (alive.status, alive.lease_token) == ("running", "dead-worker")
    assert sent == [expired.pk]


@pytest.mark.django_db
def test_the_third_lost_worker_leaves_the_debate_failed(job, sent):
    debate = job.debates.order_by("pk").first()
    hold(debate, expires_in=-1, attempts=2)
    assert requeue_expired_debates.apply().get() == 1
    debate.refresh_from_db()
    assert (debate.status, debate.attempts, debate.finished is not None) == ("failed", 3, True)
    assert sent == []


@pytest.mark.django_db
def test_a_paused_jobs_expired_debates_wait_for_the_resume(
    job, sent, django_capture_on_commit_callbacks
):
    debate = job.debates.order_by("pk").first()
    hold(debate, expires_in=-1)
    DebateJob.objects.filter(pk=job.pk).update(status="paused")
    with django_capture_on_commit_callbacks(execute=True):
        assert debate_requeue_expired() == 1
    debate.refresh_from_db()
    assert debate.status == "pending"
    assert sent == []


@pytest.mark.django_db
def test_a_worker_that_lost_its_lease_stores_no_turn(job, fake_llms):
    debate = job.debates.order_by("pk").first()

    def taken_over_meanwhile(messages):
        # While this (slow) worker waits for the model, its lease expires and another worker
        # claims the debate.
        Debate.objects.filter(pk=debate.pk).update(lease_token="second-worker")
        return reply(1)

    fake_llms(a=RuleClient(taken_over_meanwhile), b=ScriptedClient([]))
    after = debate_run(debate_id=debate.pk)
    assert (after.status, after.lease_token, after.attempts) == ("running", "second-worker", 0)
    assert after.turns.count() == 0


@pytest.mark.django_db
def test_a_running_job_with_nothing_left_open_is_finished_by_the_sweep(job):
    job.debates.update(status="escalated", escalation_reason="disagreement")
    assert debate_requeue_expired() == 0
    job.refresh_from_db()
    assert job.status == "finished"
