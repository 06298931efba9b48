"""PostgreSQL closes sessions idle for 1 s (``idle_session_timeout``, as PgBouncer and managed
databases do) and the LLM server answers in 1.5 s: every debate still finishes, each reply is
stored once and never asked for again, and every answered request is counted in the job's
calls and tokens. In this process with 4 threads, and on a thread-pool Celery worker.
"""

import select

import psycopg
import pytest
from django.db import connection
from django.db.models import Sum

from debates.models import Turn
from debates.services import debate_job_run_inline, debate_job_start
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import wait_job_finished
from tests.fixtures.latency import counted_calls, remote_agent, stored_calls

LATENCY_S = 1.5


@pytest.fixture
def idle_session_timeout_1s():
    """New sessions of the test database are closed after 1 s idle; proven to bite."""
    name = connection.settings_dict["NAME"]
    with connection.cursor() as cursor:
        cursor.execute(f'ALTER DATABASE "{name}" SET idle_session_timeout = 1000')
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        dbname=name,
        autocommit=True,
    ) as probe:
        probe.execute("SELECT 1")
        # The server closes the idle session on its own (it sends the error, then closes the
        # socket): wait for that rather than sleeping a fixed time and hoping the server's
        # process has run by then on a loaded machine; 60 s only limits a hang.
        readable, _, _ = select.select([probe.fileno()], [], [], 60)
        assert readable, "the idle session was not closed within 60 s"
        with pytest.raises(psycopg.OperationalError):
            probe.execute("SELECT 1")
    try:
        yield
    finally:
        connection.close()  # it may have been closed by the server; a fresh one resets
        with connection.cursor() as cursor:
            cursor.execute(f'ALTER DATABASE "{name}" RESET idle_session_timeout')
        connection.close()


def assert_each_reply_stored_once_and_counted(job, server) -> None:
    job.refresh_from_db()
    assert job.status == "finished"
    rows = list(job.debates.values_list("status", "attempts", "last_error"))
    assert rows and all(status in ("agreed", "escalated") for status, _, _ in rows)
    assert all(attempts == 0 and not error for _, attempts, error in rows)  # nothing failed
    counters = server.counters()
    assert counters["repeated"] == 0
    calls, prompt_tokens, completion_tokens = counted_calls(job)
    assert counters["requests"] == stored_calls(job) == calls >= 2 * len(rows)
    assert completion_tokens == 20 * calls  # the server bills 20 completion tokens a reply
    turns = Turn.objects.filter(debate__job=job)
    assert prompt_tokens == turns.aggregate(n=Sum("prompt_tokens"))["n"] > 0


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_in_process_debates_finish_with_every_reply_stored_once(
    scifact_pool, latency_server, idle_session_timeout_1s
):
    server = latency_server(LATENCY_S)
    agent = remote_agent(server)
    job = debate_job_launch(
        spec=JobSpec(pool=scifact_pool(8), agent_a=agent, agent_b=agent, rounds=2, concurrency=4),
        start=False,
    )
    debate_job_start(job=job, enqueue=False)
    debate_job_run_inline(job=job)
    assert_each_reply_stored_once_and_counted(job, server)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_thread_pool_worker_finishes_every_debate_with_every_reply_stored_once(
    scifact_pool, latency_server, celery_worker_process, idle_session_timeout_1s
):
    server = latency_server(LATENCY_S)
    agent = remote_agent(server)
    job = debate_job_launch(
        spec=JobSpec(pool=scifact_pool(8), agent_a=agent, agent_b=agent, rounds=2, concurrency=4),
        start=False,
    )
    worker = celery_worker_process(pool="threads", concurrency=4, queues="llm_remote")
    debate_job_start(job=job)
    wait_job_finished(job, what="the job to finish on the worker")
    worker.stop()
    assert_each_reply_stored_once_and_counted(job, server)
