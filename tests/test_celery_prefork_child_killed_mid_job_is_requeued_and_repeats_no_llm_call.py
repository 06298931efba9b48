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
RECEIVED = re.compile(r"Task debates\.run_debate\[([0-9a-f-]+)\] received")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_killed_pool_child_is_rejected_requeued_and_every_debate_finishes_once(
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

    worker = celery_worker_process(beat=True, pool="prefork", **env)
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
    # The process making the LLM calls is the pool child (beat runs in another child).
    (child,) = {pid for *_, pid in read_call_log(log)}
    assert child != worker.process.pid and child in worker.pool_children()
    os.kill(child, signal.SIGKILL)

    killed = list(job.debates.filter(status="running").values_list("pk", flat=True))
    assert len(killed) == 1
    stored_at_kill = {
        (keys[d], r, a)
        for d, r, a in Turn.objects.filter(debate__job=job).values_list(
            "debate_id", "round", "agent"
        )
    }
    calls_before = read_call_log(log)

    def finished():
        job.refresh_from_db()
        return job.status == "finished"

    wait_for(finished, timeout=240, what="the job to finish after the child was killed")
    assert worker.process.poll() is None  # the worker itself survived; a new child took over
    assert child not in worker.pool_children()
    worker.stop()

    worker_log = worker.log.read_text(errors="replace")
    assert "WorkerLostError" in worker_log
    received = Counter(RECEIVED.findall(worker_log))
    assert [n for n in received.values() if n > 1] == [2]  # only the killed task, redelivered

    for debate in job.debates.all():
        status, consensus, turns = expected_outcome(keys[debate.pk], rounds=2)
        assert (debate.status, debate.consensus_round) == (status, consensus), debate.pk
        assert debate.turns.count() == turns
        assert debate.calls == turns
        assert debate.attempts == (1 if debate.pk in killed else 0)
    assert (
        not Turn.objects.filter(debate__job=job)
        .values("debate", "round", "agent")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
    )

    calls = read_call_log(log)
    calls_after = [c[:3] for c in calls if c[3] != child]
    assert calls_after, "the new pool child did the rest of the job"
    assert not set(calls_after) & stored_at_kill
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
