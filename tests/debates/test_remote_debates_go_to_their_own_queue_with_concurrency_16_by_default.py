"""Debates whose agents are both remote (openai) are enqueued on the ``llm_remote`` queue (a
thread-pool worker) and a job of them runs 16 at once by default; with an embedded agent
they go to the default ``celery`` queue (prefork) and run one at a time. The concurrency is
stored with the job and checked."""

import pytest
from django.db import transaction

from debates.services import DebateJobError, debate_job_start
from debates.services.launch import JobSpec, debate_job_launch

REMOTE = {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}
EMBEDDED = {"backend": "embedded"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("agent_a", "agent_b", "queue", "concurrency"),
    [
        (REMOTE, REMOTE, "llm_remote", 16),
        (EMBEDDED, EMBEDDED, "celery", 1),
        (REMOTE, EMBEDDED, "celery", 1),
    ],
)
def test_queue_and_default_concurrency_follow_the_agents(
    small_pool,
    monkeypatch,
    django_capture_on_commit_callbacks,
    agent_a,
    agent_b,
    queue,
    concurrency,
):
    from debates.tasks import run_debate

    sent = []
    monkeypatch.setattr(
        run_debate,
        "apply_async",
        lambda args, countdown=None, queue=None: sent.append((args[0], queue)),
    )
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=agent_a, agent_b=agent_b), start=False
    )
    assert job.concurrency == concurrency
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            debate_job_start(job=job)
    assert sorted(sent) == sorted((pk, queue) for pk in job.debates.values_list("pk", flat=True))


@pytest.mark.django_db
def test_a_given_concurrency_is_stored_and_bounded(small_pool):
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=REMOTE, concurrency=64), start=False
    )
    job.refresh_from_db()
    assert job.concurrency == 64
    for bad in (0, 257):
        with pytest.raises(DebateJobError, match="concurrency must be between 1 and 256"):
            debate_job_launch(
                spec=JobSpec(pool=small_pool, agent_a=REMOTE, concurrency=bad), start=False
            )
