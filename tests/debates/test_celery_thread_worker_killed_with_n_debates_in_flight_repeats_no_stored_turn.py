"""A thread-pool worker (``-P threads -c 4``, the remote-agent worker: 5 threads sharing 4 LLM
slots) SIGKILLed with 4 LLM calls in flight: after a restart every debate finishes exactly
once, no Turn is duplicated, no LLM call for a stored turn is made again, and the only calls
made twice are those of a killed debate's round whose turns were not yet stored.

Real worker processes, Redis broker, PostgreSQL. The agents are the rule test backend (0.4 s
a call) logging every call it starts, from every thread and process, to a file.
"""

import pytest

from debates.models import Turn
from debates.services import debate_job_start
from tests.fixtures.jobs import (
    FACTORY,
    assert_every_debate_finished_once,
    kill_during_held_calls,
    kill_test_job,
    read_call_log,
    stored_turn_keys,
    wait_for,
    wait_job_finished,
)

N = 4


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_after_a_sigkill_with_four_in_flight_every_debate_finishes_once(
    scifact_pool, celery_worker_process, tmp_path, monkeypatch
):
    monkeypatch.setenv("DREAM_TEST_LLM_FACTORY", FACTORY)
    log = tmp_path / "calls.log"
    job, keys, env = kill_test_job(scifact_pool, log)

    first = celery_worker_process(pool="threads", concurrency=N, queues="llm_remote", **env)
    debate_job_start(job=job)

    # -c N runs N + 1 threads sharing N LLM slots: N or N + 1 debates are running.
    def four_running_with_turns():
        running = job.debates.filter(status="running").count()
        return running >= N and Turn.objects.filter(debate__job=job).count() >= 2

    wait_for(four_running_with_turns, timeout=120, every=0.05, what="4 debates in flight")
    # Killed with its N slots all taken by held calls: N calls in flight by construction.
    held = kill_during_held_calls(env, first.kill, calls=N)

    killed = list(job.debates.filter(status="running").values_list("pk", flat=True))
    # Every debate with a held call is running; a thread between two debates at the kill
    # leaves fewer, and the spare thread one more, never more than N + 1 threads.
    assert held <= {keys[pk] for pk in killed}
    assert len(killed) <= N + 1
    stored_at_kill = stored_turn_keys(job, keys)
    calls_before = read_call_log(log)
    assert calls_before and {pid for *_, pid in calls_before} == {first.process.pid}
    assert job.debates.filter(status="pending").exists()  # the job is really mid-way

    # Beat's periodic requeue task goes to the default queue, so this worker takes both.
    second = celery_worker_process(
        beat=True, pool="threads", concurrency=N, queues="celery,llm_remote", **env
    )
    wait_job_finished(job, what="the job to finish after the restart")
    second.stop()

    calls = read_call_log(log)
    # What may be asked twice, from what the code guarantees: a debate stores its round's two
    # turns before it starts the next round, so a killed debate repeats at most the two calls
    # of its current round. It is not bounded by the N LLM slots: a call gives its slot back
    # when its reply arrives, before the turn is written (holding the slot over the write
    # would cost throughput), so a reply that arrived but was not yet stored at the kill is
    # asked again too. Hence at most 2 per killed debate, never a call of a stored turn.
    killed_keys = {keys[pk] for pk in killed}
    assert_every_debate_finished_once(
        job,
        keys,
        killed=killed,
        calls_before=calls_before,
        calls=calls,
        calls_after=[c[:3] for c in calls if c[3] == second.process.pid],
        stored_at_kill=stored_at_kill,
        in_flight=2 * len(killed),
    )
    twice = [key for key in {c[:3] for c in calls} if [c[:3] for c in calls].count(key) > 1]
    assert {key for key, *_ in twice} <= killed_keys, "only a killed debate repeats a call"
