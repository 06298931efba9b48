"""A job run in-process without debate_job_start (the pipeline without a broker, the job
page's background run) still records when it started, so its page shows a start and a finish
time; a job that was started keeps its first start time."""

from datetime import timedelta

import pytest
from django.utils import timezone

from debates.llm.scripted import RuleClient
from debates.services import debate_job_create, debate_job_run_inline, debate_job_start

from .jobs_fixtures import (  # noqa: F401
    AGENT_A,
    AGENT_B,
    fake_llms_fixture,
    reply,
    small_pool_fixture,
)


def always_relevant(messages):
    return reply(1, "relevant")


@pytest.mark.django_db
def test_an_in_process_run_sets_the_start_time_before_the_finish_time(small_pool, fake_llms):
    fake_llms(a=RuleClient(always_relevant), b=RuleClient(always_relevant))
    job = debate_job_create(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2)
    assert job.started is None
    before = timezone.now()

    debate_job_run_inline(job=job)

    job.refresh_from_db()
    assert job.status == "finished"
    assert before <= job.started <= job.finished


@pytest.mark.django_db
def test_an_in_process_run_keeps_the_start_time_debate_job_start_set(small_pool, fake_llms):
    fake_llms(a=RuleClient(always_relevant), b=RuleClient(always_relevant))
    job = debate_job_create(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2)
    debate_job_start(job=job, enqueue=False)
    first = timezone.now() - timedelta(hours=1)
    type(job).objects.filter(pk=job.pk).update(started=first)

    debate_job_run_inline(job=job)

    job.refresh_from_db()
    assert (job.status, job.started) == ("finished", first)


@pytest.mark.django_db
def test_a_paused_job_is_not_given_a_start_time_by_an_in_process_run(small_pool, fake_llms):
    a = RuleClient(always_relevant)
    fake_llms(a=a, b=RuleClient(always_relevant))
    job = debate_job_create(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2)
    type(job).objects.filter(pk=job.pk).update(status="paused")

    debate_job_run_inline(job=job)

    job.refresh_from_db()
    assert (job.status, job.started, len(a.calls)) == ("paused", None, 0)
