"""With ``rpm`` set, the shared limit holds across 2 worker processes of 4 threads each
(``-P threads -c 4``): requests reach the server spaced by 60/rpm seconds (GCRA in Redis),
although 8 debates are running at once and both workers serve the job.
"""

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
    debate_job_start(job=job)
    wait_job_finished(job, what="the rate-limited job to finish")
    for worker in workers:
        worker.stop()

    counters = server.counters(arrivals=True)
    arrivals = sorted(counters["arrivals"])
    assert counters["requests"] == stored_calls(job) >= 12
    interval = 60 / RPM
    # Without the limit 8 threads would send 8 requests per 0.1 s; with it, any window of
    # w seconds holds at most w / interval + 1 (+1 for the jitter between a slot granted in
    # Redis and the request's arrival on a loaded machine).
    window = 4.0
    for i, start in enumerate(arrivals):
        inside = sum(1 for t in arrivals[i:] if t < start + window)
        assert inside <= window / interval + 2, (start, inside)
    assert arrivals[-1] - arrivals[0] >= (len(arrivals) - 1) * interval - 0.5
    for worker in workers:
        assert "succeeded" in worker.log.read_text(), "both workers ran debates"
