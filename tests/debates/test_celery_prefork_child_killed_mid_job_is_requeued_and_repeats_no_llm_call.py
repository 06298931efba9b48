"""A prefork worker whose pool CHILD is SIGKILLed in the middle of a debate: the message is
rejected back to the broker (``reject_on_worker_lost``, seen in the worker log as the same
task received twice), the debate is taken over once its lease expires, and every debate
finishes exactly once, with no Turn duplicated and no LLM call for a stored turn repeated.

Real worker process (``-P prefork -c 1`` with beat), Redis broker, PostgreSQL. The agents are
the rule-based test backend (0.4 s a call) that logs every call it starts, with its process id.
"""

import os
import re
import signal
from collections import Counter

import pytest

from debates.services import debate_job_start
from tests.fixtures.jobs import (
    FACTORY,
    assert_every_debate_finished_once,
    kill_during_held_calls,
    kill_test_job,
    read_call_log,
    stored_turn_keys,
    wait_job_finished,
    wait_mid_debate,
)

RECEIVED = re.compile(r"Task debates\.run_debate\[([0-9a-f-]+)\] received")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_killed_pool_child_is_rejected_requeued_and_every_debate_finishes_once(
    scifact_pool, celery_worker_process, tmp_path, monkeypatch
):
    monkeypatch.setenv("DREAM_TEST_LLM_FACTORY", FACTORY)
    log = tmp_path / "calls.log"
    job, keys, env = kill_test_job(scifact_pool, log)

    worker = celery_worker_process(beat=True, pool="prefork", **env)
    debate_job_start(job=job)
    wait_mid_debate(job)
    # The process making the LLM calls is the pool child (beat runs in another child).
    (child,) = {pid for *_, pid in read_call_log(log)}
    assert child != worker.process.pid and child in worker.pool_children()
    held = kill_during_held_calls(env, lambda: os.kill(child, signal.SIGKILL))

    killed = list(job.debates.filter(status="running").values_list("pk", flat=True))
    assert [keys[pk] for pk in killed] == list(held)  # killed in its held call
    stored_at_kill = stored_turn_keys(job, keys)
    calls_before = read_call_log(log)

    wait_job_finished(job, what="the job to finish after the child was killed")
    assert worker.process.poll() is None  # the worker itself survived; a new child took over
    assert child not in worker.pool_children()
    worker.stop()

    worker_log = worker.log.read_text(errors="replace")
    assert "WorkerLostError" in worker_log
    received = Counter(RECEIVED.findall(worker_log))
    assert [n for n in received.values() if n > 1] == [2]  # only the killed task, redelivered

    calls = read_call_log(log)
    assert_every_debate_finished_once(
        job,
        keys,
        killed=killed,
        calls_before=calls_before,
        calls=calls,
        calls_after=[c[:3] for c in calls if c[3] != child],
        stored_at_kill=stored_at_kill,
    )
