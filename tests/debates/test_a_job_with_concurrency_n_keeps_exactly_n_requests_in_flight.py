"""A job with concurrency N keeps exactly N LLM requests in flight, never more: run in this
process without a broker, and on a thread-pool worker ``-P threads -c N`` of the remote
queue (both run N + 1 threads sharing N slots for LLM calls). Every request the server
answered is one stored turn, none repeated.

That N requests are in flight at once is not left to how fast the machine prepares them
against the server's latency: the server holds every request until N are waiting (which the
N slots allow whatever the load), then lets them through; the peak it counted over the
whole run must still be N, never more.
"""

import threading

import pytest
from django.db import connection

from debates.llm.config import AgentConfig
from debates.services import debate_job_run_inline, debate_job_start
from debates.services.common import REMOTE_QUEUE, debate_queue
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import wait_for, wait_job_finished
from tests.fixtures.latency import counted_calls, remote_agent, stored_calls

N = 6
# The client's timeout outlasts any hold: a held request must never time out and be sent again.
CLIENT_TIMEOUT_S = 300


def wait_for_n_held_then_release(server) -> None:
    """Wait until the server holds N requests (60 s only limits a hang), then release them."""
    wait_for(
        lambda: server.counters()["in_flight"] >= N, timeout=60, what=f"{N} requests in flight"
    )
    server.hold(False)


def assert_n_in_flight_and_nothing_lost(job, server) -> None:
    job.refresh_from_db()
    assert job.status == "finished"
    assert not job.debates.exclude(status__in=["agreed", "escalated"]).exists()
    counters = server.counters()
    assert counters["peak_in_flight"] == N
    assert counters["repeated"] == 0
    assert counters["requests"] == stored_calls(job) == counted_calls(job)[0]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_in_process_run_keeps_n_requests_in_flight(scifact_pool, latency_server):
    server = latency_server(0.5)
    agent = remote_agent(server, timeout=CLIENT_TIMEOUT_S)
    job = debate_job_launch(
        spec=JobSpec(pool=scifact_pool(24), agent_a=agent, agent_b=agent, rounds=2, concurrency=N),
        start=False,
    )
    assert job.concurrency == N
    debate_job_start(job=job, enqueue=False)

    def run() -> None:
        try:
            debate_job_run_inline(job=type(job).objects.get(pk=job.pk))
        finally:
            connection.close()

    server.hold(True)
    runner = threading.Thread(target=run)
    runner.start()
    try:
        wait_for_n_held_then_release(server)
    finally:
        server.hold(False)
        runner.join(timeout=600)
    assert not runner.is_alive()
    assert_n_in_flight_and_nothing_lost(job, server)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_thread_pool_worker_of_the_remote_queue_keeps_n_requests_in_flight(
    scifact_pool, latency_server, celery_worker_process
):
    server = latency_server(0.5)
    agent = remote_agent(server, timeout=CLIENT_TIMEOUT_S)
    typed = AgentConfig.load(agent)
    assert debate_queue(agent_a=typed, agent_b=typed) == REMOTE_QUEUE
    job = debate_job_launch(
        spec=JobSpec(pool=scifact_pool(24), agent_a=agent, agent_b=agent, rounds=2, concurrency=N),
        start=False,
    )
    worker = celery_worker_process(pool="threads", concurrency=N, queues=REMOTE_QUEUE)
    server.hold(True)
    debate_job_start(job=job)
    wait_for_n_held_then_release(server)
    wait_job_finished(job, what="the job to finish on the worker")
    worker.stop()
    # N slots shared by N + 1 threads: one more debate than N may be running, never more calls.
    assert f"concurrency: {N + 1} (thread)" in worker.log.read_text()
    assert_n_in_flight_and_nothing_lost(job, server)
