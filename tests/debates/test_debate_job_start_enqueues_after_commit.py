"""Starting a job sends one run_debate message per pending debate, only after commit."""

import pytest
from django.db import transaction

from debates.services import debate_job_start
from debates.services.launch import JobSpec, debate_job_launch


@pytest.mark.django_db
def test_messages_leave_only_when_the_transaction_commits(
    small_pool, monkeypatch, django_capture_on_commit_callbacks
):
    from debates.tasks import run_debate

    sent = []
    monkeypatch.setattr(
        run_debate, "apply_async", lambda args, countdown=None, queue=None: sent.append(args)
    )
    job = debate_job_launch(spec=JobSpec(pool=small_pool), start=False)
    job.debates.filter(pk=job.debates.order_by("pk").first().pk).update(status="agreed")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            assert debate_job_start(job=job) == 3
            assert sent == []
    assert len(callbacks) == 1
    assert sorted(a[0] for a in sent) == sorted(
        job.debates.filter(status="pending").values_list("pk", flat=True)
    )
    assert job.started is not None


@pytest.mark.django_db
def test_starting_without_enqueueing_sends_nothing(small_pool, monkeypatch):
    from debates.tasks import run_debate

    sent = []
    monkeypatch.setattr(
        run_debate, "apply_async", lambda args, countdown=None, queue=None: sent.append(args)
    )
    job = debate_job_launch(spec=JobSpec(pool=small_pool), start=False)
    assert debate_job_start(job=job, enqueue=False) == 4
    assert sent == []
