"""Simulated debaters answer at once, with no network call: a job of two of them has no
request to keep in flight, so its debates go to the default ``celery`` queue, which every
worker the manual starts takes, never to ``llm_remote`` (the thread-pool worker of servers'
agents). A job pairing a simulated debater with an openai one still waits on a server, and
goes to ``llm_remote`` like a job of two openai agents."""

import pytest
from django.db import transaction

from debates.services import debate_job_start
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import pool_of
from tests.fixtures.simulated import simulated_agent

REMOTE = {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}
PAIRS = [("q1", "d1"), ("q1", "d3"), ("q2", "d3")]


def _queues_sent(pool, monkeypatch, capture, *, agent_a, agent_b) -> set[str | None]:
    from debates.tasks import run_debate

    sent: list[str | None] = []
    monkeypatch.setattr(
        run_debate,
        "apply_async",
        lambda args, countdown=None, queue=None: sent.append(queue),
    )
    job = debate_job_launch(
        spec=JobSpec(pool=pool, agent_a=agent_a, agent_b=agent_b, rounds=1), start=False
    )
    with capture(execute=True):
        with transaction.atomic():
            debate_job_start(job=job)
    assert len(sent) == len(PAIRS)
    return set(sent)


@pytest.mark.django_db
def test_a_job_of_two_simulated_debaters_goes_to_the_default_celery_queue(
    energy, truth_dir, monkeypatch, django_capture_on_commit_callbacks
):
    agent = simulated_agent(truth_dir / "energy.qrels", seed=1)
    queues = _queues_sent(
        pool_of(energy, PAIRS),
        monkeypatch,
        django_capture_on_commit_callbacks,
        agent_a=agent,
        agent_b=agent,
    )
    assert queues == {"celery"}


@pytest.mark.django_db
def test_a_simulated_debater_against_an_openai_one_goes_to_the_remote_queue(
    energy, truth_dir, monkeypatch, django_capture_on_commit_callbacks
):
    queues = _queues_sent(
        pool_of(energy, PAIRS),
        monkeypatch,
        django_capture_on_commit_callbacks,
        agent_a=simulated_agent(truth_dir / "energy.qrels", seed=1),
        agent_b=REMOTE,
    )
    assert queues == {"llm_remote"}
