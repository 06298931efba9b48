"""End to end: a real Celery worker process, a Redis broker, PostgreSQL and the embedded
SmolLM2 model debate 10 real SciFact pairs with the defaults (R = 2, 384 completion tokens per
call); every debate ends agreed, escalated or failed, its stored turns are exactly those of
its outcome (agreed in round j: 2j turns, equal labels in round j and only there; escalated
for disagreement: 2R turns; unparsed: the last turn unread), its cost adds up from its turns,
and at least one debate settles a label.

Both agents are the ``embedded`` backend as a user would configure it. SmolLM2 agrees in
round 1 on most pairs (about 13 s a pair on 2 cores, so 2-3 minutes).
"""

import pytest
from django.db.models import Sum

from debates.models import Turn
from debates.services import debate_job_progress, debate_job_start
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import wait_for

EMBEDDED = {"backend": "embedded"}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_worker_debates_ten_scifact_pairs_with_the_embedded_model(
    scifact_pool, celery_worker_process
):
    pool = scifact_pool(10)
    job = debate_job_launch(
        spec=JobSpec(pool=pool, agent_a=EMBEDDED, agent_b=EMBEDDED), start=False
    )
    assert (job.rounds, job.max_tokens) == (2, 384)  # the defaults
    celery_worker_process()
    assert debate_job_start(job=job) == 10

    def finished():
        job.refresh_from_db()
        return job.status == "finished"

    wait_for(finished, timeout=1500, every=1.0, what="the job to finish")

    debates = list(job.debates.select_related("pair__query", "pair__document"))
    assert len(debates) == 10
    rounds = job.rounds
    for debate in debates:
        assert debate.status in ("agreed", "escalated", "failed"), debate.last_error
        turns = list(debate.turns.order_by("round", "agent"))
        assert turns, f"debate {debate.pk} has no turn stored"
        # Turns are a prefix of the debate in speaking order: (1, A), (1, B), (2, A), ...
        order = [(t.round, t.agent) for t in turns]
        assert order == [(r, a) for r in range(1, rounds + 1) for a in "AB"][: len(turns)]
        assert {t.model for t in turns} == {"SmolLM2-135M-Instruct-Q4_1"}
        assert all(t.raw and t.prompt_tokens > 0 and t.completion_tokens > 0 for t in turns)
        assert all(t.raw_attempts[-1] == t.raw and len(t.raw_attempts) == t.attempts for t in turns)
        assert {t.prompt_version for t in turns} == {job.prompt_version}
        assert debate.calls == sum(t.attempts for t in turns)
        by_round = {r: [t.label for t in turns if t.round == r] for r in range(1, rounds + 1)}
        if debate.status == "agreed":
            j = debate.consensus_round
            assert debate.final_label in (0, 1) and 1 <= j <= rounds
            assert len(turns) == 2 * j
            assert by_round[j] == [debate.final_label] * 2
            assert all(len(set(by_round[r])) == 2 for r in range(1, j))  # disagreed before
            assert None not in [t.label for t in turns]
        elif debate.status == "escalated" and debate.escalation_reason == "disagreement":
            assert (debate.final_label, debate.consensus_round) == (None, None)
            assert len(turns) == 2 * rounds
            assert all(set(by_round[r]) == {0, 1} for r in range(1, rounds + 1))
        elif debate.status == "escalated":
            assert debate.escalation_reason == "unparsed"
            assert turns[-1].label is None and turns[-1].attempts == 2
            assert turns[-1].parse_error
            assert None not in [t.label for t in turns[:-1]]
        assert debate.seconds > 0 and debate.finished is not None
    progress = debate_job_progress(job=job)
    assert progress.agreed + progress.escalated + progress.failed == 10
    # The tiny model settles most pairs at once: a job that only failed or escalated would
    # pass every check above, so at least one label must come out.
    assert progress.agreed >= 1, progress
    stored_calls = Turn.objects.filter(debate__job=job).aggregate(n=Sum("attempts"))["n"]
    assert progress.calls == stored_calls >= 10
    print(
        f"\nembedded end to end: agreed {progress.agreed} {progress.agreed_by_round}, "
        f"escalated {progress.escalated} {progress.escalated_by_reason}, failed "
        f"{progress.failed}; {progress.calls} calls, {progress.seconds:.0f} s of worker time"
    )
