"""A worker SIGKILLed in the middle of a job: after a restart every debate finishes exactly
once, no Turn is duplicated, and no LLM call for a stored turn is made again.

Real worker process, Redis broker, PostgreSQL. The agents are a test backend answering by
rule (:func:`tests.jobs_fixtures.stance_rule`, 0.4 s a call, so the kill lands mid-debate)
that logs every call it starts, from every worker process, to a file.
"""

from collections import Counter

import pytest
from django.db.models import Count

from debates.models import Debate, Turn
from debates.services import debate_job_create, debate_job_start

from .jobs_fixtures import (  # noqa: F401
    FACTORY,
    celery_worker_process_fixture,
    debate_pair_key,
    expected_outcome,
    read_call_log,
    scifact_pool_fixture,
    wait_for,
)

RULE = {"backend": "test", "rule": "stance", "delay": 0.4}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_after_a_sigkill_and_a_restart_every_debate_finishes_once_without_repeated_calls(
    scifact_pool, celery_worker_process, tmp_path, monkeypatch
):
    monkeypatch.setenv("DREAM_TEST_LLM_FACTORY", FACTORY)
    log = tmp_path / "calls.log"
    env = {
        "DREAM_TEST_LLM_LOG": str(log),
        "DREAM_DEBATE_LEASE_SECONDS": "3",
        "DREAM_REQUEUE_EVERY_SECONDS": "1",
    }
    pool = scifact_pool(12)
    job = debate_job_create(pool=pool, agent_a=RULE, agent_b=RULE, rounds=2)
    keys = {
        d.pk: debate_pair_key(d)
        for d in job.debates.select_related("pair__query", "pair__document")
    }
    assert len(set(keys.values())) == 12

    first = celery_worker_process(**env)
    debate_job_start(job=job)

    def mid_debate():
        done = job.debates.filter(status__in=["agreed", "escalated"]).count()
        started = (
            Debate.objects.filter(job=job, status="running")
            .annotate(n=Count("turns"))
            .filter(n__gte=1)
        )
        return done >= 2 and started.exists()

    wait_for(mid_debate, timeout=120, every=0.05, what="a debate with stored turns running")
    first.kill()

    killed = list(job.debates.filter(status="running").values_list("pk", flat=True))
    assert len(killed) == 1
    stored_at_kill = {
        (keys[d], r, a)
        for d, r, a in Turn.objects.filter(debate__job=job).values_list(
            "debate_id", "round", "agent"
        )
    }
    calls_before = read_call_log(log)
    assert calls_before and {pid for *_, pid in calls_before} == {first.process.pid}
    assert job.debates.filter(status="pending").exists()  # the job is really mid-way

    second = celery_worker_process(beat=True, **env)

    def finished():
        job.refresh_from_db()
        return job.status == "finished"

    wait_for(finished, timeout=240, what="the job to finish after the restart")
    second.stop()

    # Every debate ended once, as the rule dictates, with exactly its turns.
    for debate in job.debates.all():
        status, consensus, turns = expected_outcome(keys[debate.pk], rounds=2)
        assert (debate.status, debate.consensus_round) == (status, consensus), debate.pk
        assert debate.turns.count() == turns
        assert debate.calls == turns  # one call per turn: nothing counted twice
        assert debate.finished is not None
        assert debate.attempts == (1 if debate.pk in killed else 0)
    assert (
        not Turn.objects.filter(debate__job=job)
        .values("debate", "round", "agent")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
    )

    calls = read_call_log(log)
    calls_after = [c[:3] for c in calls if c[3] == second.process.pid]
    assert calls_after, "the restarted worker did the rest of the job"
    # No call for a turn stored before the kill was made again ...
    assert not set(calls_after) & stored_at_kill
    # ... the only call made twice is the one in flight when the worker died (its turn was
    # never stored), and every call made ended up as exactly one stored turn.
    repeated = [key for key, n in Counter(c[:3] for c in calls).items() if n > 1]
    assert len(repeated) <= 1
    if repeated:
        assert repeated[0] == calls_before[-1][:3]
        assert repeated[0] not in stored_at_kill
    stored = {
        (keys[d], r, a)
        for d, r, a in Turn.objects.filter(debate__job=job).values_list("debate", "round", "agent")
    }
    assert stored == {c[:3] for c in calls}
    assert len(calls) == len(stored) + len(repeated)
