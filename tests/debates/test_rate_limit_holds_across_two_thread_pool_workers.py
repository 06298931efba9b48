"""With ``rpm`` set, the shared limit holds across 2 worker processes of 4 threads each
(``-P threads -c 4``): requests reach the server spaced by 60/rpm seconds (GCRA in Redis),
although 8 debates are running at once and both workers serve the job.
"""

import time

import pytest

from debates.services import debate_job_start
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import wait_job_finished
from tests.fixtures.latency import remote_agent, stored_calls

RPM = 60  # one request a second


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_requests_are_spaced_by_the_rate_limit_across_two_workers_and_eight_threads(
    scifact_pool, latency_server, celery_worker_process
):
    server = latency_server(0.1)
    agent = remote_agent(server, rpm=RPM)
    job = debate_job_launch(
        spec=JobSpec(pool=scifact_pool(6), agent_a=agent, agent_b=agent, rounds=2, concurrency=4),
        start=False,
    )
    workers = [
        celery_worker_process(pool="threads", concurrency=4, queues="llm_remote") for _ in range(2)
    ]
    started = time.time()  # the server stamps arrivals on the same clock (Unix seconds)
    debate_job_start(job=job)
    wait_job_finished(job, what="the rate-limited job to finish")
    for worker in workers:
        worker.stop()

    counters = server.counters(arrivals=True)
    arrivals = sorted(counters["arrivals"])
    assert counters["requests"] == stored_calls(job) >= 12
    interval = 60 / RPM
    # What the limit guarantees, whatever the load: every request takes its own slot before
    # it is sent, and slots are granted at least one interval apart (GCRA, burst 1, on the
    # Redis server's clock, the clock of this machine), the first no earlier than the job's
    # start. So the k-th request to arrive has k slots granted before it, the last of them no
    # earlier than start + (k - 1) intervals. (A request may arrive any time after its slot,
    # later on a loaded machine, so arrivals can bunch up: a bound on the gaps between
    # arrivals would measure the machine, not the limit.) Without the limit, 8 threads send 8
    # requests within the first 0.1 s.
    for k, arrived in enumerate(arrivals):
        assert arrived >= started + k * interval - 0.01, (k, arrived - started)
    for worker in workers:
        assert "succeeded" in worker.log.read_text(), "both workers ran debates"
