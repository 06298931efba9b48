"""With a broker, a job whose debates no Celery worker has taken for a minute says so on its
page, in the API's job body and in the commands that follow it, naming the queue and the
worker command; a job running in-process, one a worker has just touched, or one still under
the minute says nothing."""

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from debates.models import Debate, DebateJob, Stage0State
from debates.services.common import LOCAL_QUEUE, REMOTE_QUEUE
from debates.services.progress import debate_job_progress
from debates.services.worker_wait import (
    debate_job_worker_warning,
    worker_wait_describe,
    worker_warning_watch,
)


def test_under_a_minute_says_nothing_and_a_minute_names_the_queue_and_command():
    early = worker_wait_describe(waited=dt.timedelta(seconds=59.9), queue=LOCAL_QUEUE, pending=2)
    assert early == ""
    text = worker_wait_describe(waited=dt.timedelta(seconds=60), queue=LOCAL_QUEUE, pending=1)
    assert text == (
        "No worker has taken its debates for 1 minute: 1 debate waits on the Celery queue "
        '"celery". Is a worker listening on that queue, with the same CELERY_BROKER_URL? '
        "Start one with: celery -A config worker -Q celery -P prefork -c 2 (in a checkout set "
        "up by ./dream: .venv/bin/celery)."
    )


def test_the_remote_queue_gets_the_thread_pool_worker_and_minutes_are_counted_down():
    text = worker_wait_describe(waited=dt.timedelta(seconds=179), queue=REMOTE_QUEUE, pending=1200)
    assert 'for 2 minutes: 1,200 debates wait on the Celery queue "llm_remote".' in text
    assert "Start one with: celery -A config worker -Q llm_remote -P threads -c 32 (" in text


@pytest.fixture(name="queued_job")
def queued_job_fixture(api_as, tiny_dataset, settings):
    # With a broker the launch only stores the job: its messages go after a commit that
    # never comes inside the test's transaction, as if no worker were listening.
    settings.CELERY_TASK_ALWAYS_EAGER = False
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1}
    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 202, answer.content
    job = DebateJob.objects.get()
    two_minutes_ago = timezone.now() - dt.timedelta(minutes=2)
    DebateJob.objects.filter(pk=job.pk).update(
        started=two_minutes_ago, created=two_minutes_ago, sent=two_minutes_ago
    )
    job.refresh_from_db()
    return job


def _warning(job: DebateJob) -> str:
    job.refresh_from_db()
    return debate_job_worker_warning(job=job, progress=debate_job_progress(job=job))


def test_a_job_no_worker_took_for_two_minutes_says_so_on_its_page_and_in_the_api(
    queued_job, api_as, client_as
):
    assert queued_job.debates.count() == 2
    expected = (
        "No worker has taken its debates for 2 minutes: 2 debates wait on the Celery queue "
        '"celery".'
    )
    assert _warning(queued_job).startswith(expected)
    body = api_as("researcher").get(f"/api/v1/jobs/{queued_job.pk}").json()
    assert [w for w in body["warnings"] if w.startswith("No worker")] == [_warning(queued_job)]
    page = client_as("researcher").get(f"/jobs/{queued_job.pk}/").content.decode()
    assert 'id="job-worker-warning"' in page and "2 debates wait on the Celery queue" in page
    fragment = (
        client_as("researcher")
        .get(f"/jobs/{queued_job.pk}/", HTTP_HX_REQUEST="true")
        .content.decode()
    )
    assert 'id="job-worker-warning"' in fragment


def test_a_debate_a_worker_started_thirty_seconds_ago_keeps_the_page_quiet(queued_job):
    debate = queued_job.debates.order_by("pk").first()
    Debate.objects.filter(pk=debate.pk).update(
        started=timezone.now() - dt.timedelta(seconds=30), status=Debate.Status.AGREED
    )
    assert _warning(queued_job) == ""


def test_a_running_debate_or_an_ended_job_says_nothing(queued_job):
    Debate.objects.filter(job=queued_job).update(status=Debate.Status.RUNNING)
    assert _warning(queued_job) == ""
    Debate.objects.filter(job=queued_job).update(status=Debate.Status.PENDING)
    DebateJob.objects.filter(pk=queued_job.pk).update(status=DebateJob.Status.PAUSED)
    assert _warning(queued_job) == ""


def test_without_a_broker_the_debates_run_here_and_nothing_is_said(queued_job, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    assert _warning(queued_job) == ""


def test_a_stage0_step_no_worker_claimed_names_the_default_queue(queued_job):
    DebateJob.objects.filter(pk=queued_job.pk).update(stage0=True, stage0_state=Stage0State.WAITING)
    assert _warning(queued_job).startswith(
        "No worker has taken its stage-0 step for 2 minutes: it waits on the Celery queue "
        '"celery", 2 debates behind it.'
    )
    DebateJob.objects.filter(pk=queued_job.pk).update(stage0_state=Stage0State.TRAINING)
    assert _warning(queued_job) == ""


def test_a_following_command_says_the_warning_once(queued_job):
    said: list[str] = []
    watch = worker_warning_watch(job=queued_job, say=said.append)
    for _ in range(3):
        watch(debate_job_progress(job=queued_job))
    assert len(said) == 1 and said[0].startswith("No worker has taken its debates")


def test_a_following_command_says_once_when_a_worker_takes_the_job_after_the_warning(queued_job):
    said: list[str] = []
    watch = worker_warning_watch(job=queued_job, say=said.append)
    watch(debate_job_progress(job=queued_job))
    assert len(said) == 1
    # A worker started on reading the warning: its first running debate is said, once.
    first = queued_job.debates.order_by("pk").first()
    Debate.objects.filter(pk=first.pk).update(status=Debate.Status.RUNNING)
    for _ in range(3):
        watch(debate_job_progress(job=queued_job))
    assert said[1:] == [f"A worker took job {queued_job.pk}'s work: following it."]


def test_a_job_a_worker_took_from_the_start_never_says_it_was_taken(queued_job):
    said: list[str] = []
    watch = worker_warning_watch(job=queued_job, say=said.append)
    Debate.objects.filter(job=queued_job).update(status=Debate.Status.RUNNING)
    watch(debate_job_progress(job=queued_job))
    assert said == []


def test_debate_job_progress_says_it_under_the_summary(queued_job):
    # The command the demo points to for a job's state, run once (no --wait): a user who
    # checks on a job at 0% learns why there, not only while a command follows it.
    out = StringIO()
    call_command("debate_job", str(queued_job.pk), "progress", stdout=out)
    lines = out.getvalue().splitlines()
    assert "not finished: 2 pending, 0 running" in lines
    assert (
        "No worker has taken its debates for 2 minutes: 2 debates wait on the Celery queue "
        '"celery". Is a worker listening on that queue, with the same CELERY_BROKER_URL? '
        "Start one with: "
        "celery -A config worker -Q celery -P prefork -c 2 (in a checkout set up by ./dream: "
        ".venv/bin/celery)."
    ) in lines
    Debate.objects.filter(job=queued_job).update(status=Debate.Status.RUNNING)
    out = StringIO()
    call_command("debate_job", str(queued_job.pk), "progress", stdout=out)
    assert "No worker" not in out.getvalue()


def test_a_following_command_reads_the_job_as_it_is_now_not_as_it_was_when_it_began(queued_job):
    # Built while stage 0 waited; a worker claimed the step and trains a minute later: the
    # command following the job must not say no worker took it.
    DebateJob.objects.filter(pk=queued_job.pk).update(stage0=True, stage0_state=Stage0State.WAITING)
    queued_job.refresh_from_db()
    said: list[str] = []
    watch = worker_warning_watch(job=queued_job, say=said.append)
    DebateJob.objects.filter(pk=queued_job.pk).update(
        stage0_state=Stage0State.TRAINING, stage0_claimed=timezone.now() - dt.timedelta(minutes=2)
    )
    watch(debate_job_progress(job=queued_job))
    assert said == []


def test_a_debate_waiting_out_its_retry_back_off_is_no_missing_worker(queued_job, settings):
    from debates.services.leases import lease_claim, lease_fail

    settings.DREAM_DEBATE_RETRY_SECONDS = 90
    debate = queued_job.debates.order_by("pk").first()
    lease = lease_claim(debate_id=debate.pk)
    assert lease is not None
    # The claim was two minutes ago; the LLM server failed and the retry waits 90 s.
    Debate.objects.filter(pk=debate.pk).update(started=timezone.now() - dt.timedelta(minutes=2))
    assert lease_fail(lease=lease, elapsed=1.0, error="ConnectionError: refused") == "pending"
    assert _warning(queued_job) == ""
    # Two minutes after the back-off ended, nobody has taken it: now it is said.
    later = timezone.now() + dt.timedelta(seconds=90 + 120)
    queued_job.refresh_from_db()
    text = debate_job_worker_warning(
        job=queued_job, progress=debate_job_progress(job=queued_job), now=later
    )
    assert text.startswith("No worker has taken its debates for 2 minutes: 2 debates wait")


def test_a_job_resumed_after_an_hour_long_pause_has_waited_for_no_worker_yet(queued_job):
    from debates.services.jobs import debate_job_pause, debate_job_resume

    hour_ago = timezone.now() - dt.timedelta(hours=1)
    first = queued_job.debates.order_by("pk").first()
    Debate.objects.filter(pk=first.pk).update(
        status=Debate.Status.AGREED, started=hour_ago, finished=hour_ago
    )
    DebateJob.objects.filter(pk=queued_job.pk).update(started=hour_ago, sent=hour_ago)
    queued_job.refresh_from_db()
    assert _warning(queued_job).startswith("No worker has taken its debates for 60 minutes")
    debate_job_pause(job=queued_job)
    debate_job_resume(job=queued_job)
    assert _warning(queued_job) == ""


def test_a_stage0_step_waiting_again_after_an_extension_names_the_default_queue(queued_job):
    # An extension (or an adaptive pool's next batch) sends the step again: it was claimed
    # once before, and still waits on the default queue, not on the debates' queue.
    DebateJob.objects.filter(pk=queued_job.pk).update(
        stage0=True,
        stage0_state=Stage0State.WAITING,
        stage0_claimed=timezone.now() - dt.timedelta(minutes=5),
    )
    assert _warning(queued_job).startswith(
        "No worker has taken its stage-0 step for 2 minutes: it waits on the Celery queue "
        '"celery", 2 debates behind it.'
    )


def test_debates_held_by_a_worker_that_stopped_are_said_to_wait_for_beat(queued_job):
    # Sent two minutes ago, claimed by a worker whose lease ran out long since.
    hour_ago = timezone.now() - dt.timedelta(hours=1)
    Debate.objects.filter(job=queued_job).update(
        status=Debate.Status.RUNNING, started=hour_ago, lease_expires_at=hour_ago
    )
    text = _warning(queued_job)
    assert text.startswith(
        "No worker has taken its debates for 2 minutes: 2 debates wait on the Celery queue "
        '"celery" (2 of them held by a worker that stopped answering: their lease expired, '
        "and a running `celery -A config beat` gives such debates back to the queue)."
    )
    # One of them under a live lease: a worker holds the job, nothing is said.
    first = queued_job.debates.order_by("pk").first()
    Debate.objects.filter(pk=first.pk).update(
        lease_expires_at=timezone.now() + dt.timedelta(minutes=5)
    )
    assert _warning(queued_job) == ""


def test_a_long_wait_is_said_in_hours_then_days():
    from core.broker import wait_span

    assert [wait_span(s) for s in (59, 60, 119 * 60 + 59, 120 * 60, 47 * 3600 + 3599)] == [
        "0 minutes",
        "1 minute",
        "119 minutes",
        "2 hours",
        "47 hours",
    ]
    assert wait_span(4320 * 60) == "3 days" and wait_span(48 * 3600) == "2 days"


def test_debates_under_an_expired_lease_are_no_sign_that_a_worker_took_the_job(queued_job):
    hour_ago = timezone.now() - dt.timedelta(hours=1)
    Debate.objects.filter(job=queued_job).update(
        status=Debate.Status.RUNNING, started=hour_ago, lease_expires_at=hour_ago
    )
    said: list[str] = []
    watch = worker_warning_watch(job=queued_job, say=said.append)
    for _ in range(2):
        watch(debate_job_progress(job=queued_job))
    assert len(said) == 1 and said[0].startswith("No worker has taken its debates")
    # A worker claims one of them again: a live lease.
    first = queued_job.debates.order_by("pk").first()
    Debate.objects.filter(pk=first.pk).update(
        lease_expires_at=timezone.now() + dt.timedelta(minutes=5)
    )
    watch(debate_job_progress(job=queued_job))
    assert said[1:] == [f"A worker took job {queued_job.pk}'s work: following it."]
