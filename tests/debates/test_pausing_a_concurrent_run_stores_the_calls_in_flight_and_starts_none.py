"""Pausing a job run in this process with 4 debates in flight: the 4 calls in flight finish
and their turns are stored, no new request starts, no debate is left running; resuming
finishes the job without asking any stored turn again.

The pause lands while the server holds the 4 requests (all 4 slots taken), so no call can be
between its job check and its request at that moment, however slow the machine: a thread
gets a slot only once a held request is answered, a latency (1 s) after the release, when
its check before the call (never skipped that long after its last stored turn) sees the
pause.
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
    agent = remote_agent(server, timeout=300)  # outlasts the hold: no request is sent twice
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
    try:
        wait_for(lambda: server.counters()["requests"] >= N, timeout=60, what="first replies")
        server.hold(True)
        wait_for(lambda: server.counters()["in_flight"] == N, timeout=60, what="4 held")
        debate_job_pause(job=job)
        at_pause = server.counters()
    finally:
        server.hold(False)
        runner.join(timeout=120)
    assert not runner.is_alive()
    assert at_pause["in_flight"] == N  # held: none was answered, none more started
    started_before_pause = at_pause["requests"] + at_pause["in_flight"]

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
