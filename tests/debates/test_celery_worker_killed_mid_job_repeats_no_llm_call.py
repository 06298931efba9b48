"""A worker SIGKILLed in the middle of a job: after a restart every debate finishes exactly
once, no Turn is duplicated, and no LLM call for a stored turn is made again.

Real worker process, Redis broker, PostgreSQL. The agents are a test backend answering by
rule (:func:`tests.fixtures.jobs.stance_rule`, 0.4 s a call, so the kill lands mid-debate)
that logs every call it starts, from every worker process, to a file.
"""

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


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_after_a_sigkill_and_a_restart_every_debate_finishes_once_without_repeated_calls(
    scifact_pool, celery_worker_process, tmp_path, monkeypatch
):
    monkeypatch.setenv("DREAM_TEST_LLM_FACTORY", FACTORY)
    log = tmp_path / "calls.log"
    job, keys, env = kill_test_job(scifact_pool, log)

    first = celery_worker_process(**env)
    debate_job_start(job=job)
    wait_mid_debate(job)
    held = kill_during_held_calls(env, first.kill)

    killed = list(job.debates.filter(status="running").values_list("pk", flat=True))
    assert [keys[pk] for pk in killed] == list(held)  # killed in its held call
    stored_at_kill = stored_turn_keys(job, keys)
    calls_before = read_call_log(log)
    assert calls_before and {pid for *_, pid in calls_before} == {first.process.pid}
    assert job.debates.filter(status="pending").exists()  # the job is really mid-way

    second = celery_worker_process(beat=True, **env)
    wait_job_finished(job, what="the job to finish after the restart")
    second.stop()

    calls = read_call_log(log)
    assert_every_debate_finished_once(
        job,
        keys,
        killed=killed,
        calls_before=calls_before,
        calls=calls,
        calls_after=[c[:3] for c in calls if c[3] == second.process.pid],
        stored_at_kill=stored_at_kill,
    )
