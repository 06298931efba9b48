"""End to end: a real Celery worker process, a Redis broker, PostgreSQL and the embedded
SmolLM2 model debate 10 real SciFact pairs; every debate ends agreed, escalated or failed
with its turns stored, and its cost adds up from its turns.

Both agents are the ``embedded`` backend as a user would configure it; R = 1 and 96
completion tokens per call keep it to a few minutes on 2 cores.
"""

import pytest
from django.db.models import Sum

from debates.models import Turn
from debates.services import debate_job_create, debate_job_progress, debate_job_start

from .jobs_fixtures import (  # noqa: F401
    celery_worker_process_fixture,
    scifact_pool_fixture,
    wait_for,
)

EMBEDDED = {"backend": "embedded"}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_worker_debates_ten_scifact_pairs_with_the_embedded_model(
    scifact_pool, celery_worker_process
):
    pool = scifact_pool(10)
    job = debate_job_create(pool=pool, agent_a=EMBEDDED, agent_b=EMBEDDED, rounds=1, max_tokens=96)
    celery_worker_process()
    assert debate_job_start(job=job) == 10

    def finished():
        job.refresh_from_db()
        return job.status == "finished"

    wait_for(finished, timeout=1500, every=1.0, what="the job to finish")

    debates = list(job.debates.select_related("pair__query", "pair__document"))
    assert len(debates) == 10
    for debate in debates:
        assert debate.status in ("agreed", "escalated", "failed"), debate.last_error
        turns = list(debate.turns.all())
        assert turns, f"debate {debate.pk} has no turn stored"
        assert turns[0].round == 1 and turns[0].agent == "A"
        assert {t.model for t in turns} == {"SmolLM2-135M-Instruct-Q4_1"}
        assert all(t.raw and t.prompt_tokens > 0 and t.completion_tokens > 0 for t in turns)
        assert debate.calls == sum(t.attempts for t in turns)
        if debate.status == "agreed":
            assert debate.final_label in (0, 1) and debate.consensus_round == 1
            assert [t.label for t in turns] == [debate.final_label] * 2
        if debate.status == "escalated":
            assert debate.escalation_reason in ("disagreement", "unparsed")
        assert debate.seconds > 0 and debate.finished is not None
    progress = debate_job_progress(job=job)
    assert progress.agreed + progress.escalated + progress.failed == 10
    stored_calls = Turn.objects.filter(debate__job=job).aggregate(n=Sum("attempts"))["n"]
    assert progress.calls == stored_calls >= 10
    print(
        f"\nembedded end to end: agreed {progress.agreed} {progress.agreed_by_round}, "
        f"escalated {progress.escalated} {progress.escalated_by_reason}, failed "
        f"{progress.failed}; {progress.calls} calls, {progress.seconds:.0f} s of worker time"
    )
