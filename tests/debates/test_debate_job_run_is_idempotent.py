"""A debate message delivered twice, or for a debate another worker holds, does nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from debates.llm.scripted import ScriptedClient
from debates.models import Debate
from debates.services import debate_run
from debates.services.launch import JobSpec, debate_job_launch
from debates.tasks import run_debate
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply


@pytest.fixture
def debate(small_pool, fake_llms):
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2), start=False
    )
    return job.debates.order_by("pk").first()


@pytest.mark.django_db
def test_the_same_message_delivered_twice_runs_the_debate_once(debate, fake_llms):
    a, b = ScriptedClient([reply(1)]), ScriptedClient([reply(1)])
    fake_llms(a=a, b=b)
    assert run_debate.apply((debate.pk,)).get() == "agreed"
    first = Debate.objects.get(pk=debate.pk)
    assert run_debate.apply((debate.pk,)).get() == "agreed"
    again = Debate.objects.get(pk=debate.pk)
    assert (len(a.calls), len(b.calls)) == (1, 1)
    assert again.turns.count() == 2
    assert (again.finished, again.calls, again.seconds) == (first.finished, 2, first.seconds)


@pytest.mark.django_db
def test_a_debate_running_under_another_workers_lease_is_left_alone(debate, fake_llms):
    a, b = ScriptedClient([]), ScriptedClient([])
    fake_llms(a=a, b=b)
    expires = timezone.now() + timedelta(minutes=5)
    Debate.objects.filter(pk=debate.pk).update(
        status="running", lease_token="other", lease_expires_at=expires
    )
    after = debate_run(debate_id=debate.pk)
    assert (after.status, after.lease_token, after.lease_expires_at) == (
        "running",
        "other",
        expires,
    )
    assert (len(a.calls), len(b.calls), after.turns.count()) == (0, 0, 0)


@pytest.mark.django_db
def test_a_task_for_a_deleted_debate_reports_it_missing(debate):
    pk = debate.pk
    debate.delete()
    assert run_debate.apply((pk,)).get() == "missing"
