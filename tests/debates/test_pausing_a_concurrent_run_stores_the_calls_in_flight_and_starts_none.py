"""Pausing a job run in this process with 4 debates in flight: the 4 calls in flight finish
and their turns are stored, no new request starts, no debate is left running; resuming
finishes the job without asking any stored turn again.
"""

import threading

import pytest
from django.db import connection

from debates.services import (
    debate_job_pause,
    debate_job_resume,
    debate_job_run_inline,
    debate_job_start,
)
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import wait_for
from tests.fixtures.latency import counted_calls, remote_agent, stored_calls

N = 4


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_pause_stores_the_calls_in_flight_and_resume_repeats_none(scifact_pool, latency_server):
    server = latency_server(1.0)
    agent = remote_agent(server)
    job = debate_job_launch(
        spec=JobSpec(pool=scifact_pool(16), agent_a=agent, agent_b=agent, rounds=2, concurrency=N),
        start=False,
    )
    debate_job_start(job=job, enqueue=False)

    def run() -> None:
        try:
            debate_job_run_inline(job=type(job).objects.get(pk=job.pk))
        finally:
            connection.close()

    runner = threading.Thread(target=run)
    runner.start()
    wait_for(lambda: server.counters()["requests"] >= N, timeout=30, what="first replies")
    wait_for(lambda: server.counters()["in_flight"] == N, timeout=30, what="4 in flight")
    debate_job_pause(job=job)
    at_pause = server.counters()
    started_before_pause = at_pause["requests"] + at_pause["in_flight"]
    runner.join(timeout=60)
    assert not runner.is_alive()

    after = server.counters()
    assert after["requests"] == started_before_pause  # the calls in flight finished; no new one
    assert stored_calls(job) == after["requests"]  # ... and their turns were stored
    assert counted_calls(job)[0] == after["requests"]
    job.refresh_from_db()
    assert job.status == "paused"
    assert not job.debates.filter(status="running").exists()
    assert job.debates.filter(status="pending").exists()

    debate_job_resume(job=job, enqueue=False)
    debate_job_run_inline(job=job)
    job.refresh_from_db()
    assert job.status == "finished"
    final = server.counters()
    assert final["repeated"] == 0
    assert stored_calls(job) == final["requests"] == counted_calls(job)[0]
