"""With a broker, run_debates enqueues the job for the workers and, with --wait, follows it
in the database until it ends, then prints the summary."""

import pytest
from django.core.management import call_command

from debates.models import DebateJob
from tests.fixtures.jobs import FACTORY, debate_pair_key, expected_outcome


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_run_debates_waits_for_a_real_worker_and_summarises(
    scifact_pool, celery_worker_process, monkeypatch, capsys
):
    monkeypatch.setenv("DREAM_TEST_LLM_FACTORY", FACTORY)
    scifact_pool(6)
    celery_worker_process()
    call_command(
        "run_debates",
        "scifact/pool",
        "--backend",
        "test",
        "--rounds",
        "2",
        "--wait",
        "--no-progress",
    )
    out = capsys.readouterr().out.splitlines()
    job = DebateJob.objects.get()
    outcomes = [
        expected_outcome(debate_pair_key(d), 2)
        for d in job.debates.select_related("pair__query", "pair__document")
    ]
    agreed = [o for o in outcomes if o[0] == "agreed"]
    by_round = {r: sum(1 for o in agreed if o[1] == r) for r in (1, 2)}
    escalated = len(outcomes) - len(agreed)
    assert out[0].startswith(f"job {job.pk} (finished): 6 pairs of pool scifact/pool, R=2")
    rounds = ", ".join(f"round {r}: {n}" for r, n in by_round.items() if n)
    assert out[1] == f"agreed: {len(agreed)}" + (f" ({rounds})" if rounds else "")
    assert out[2] == f"escalated: {escalated}" + (
        f" (disagreement: {escalated})" if escalated else ""
    )
    assert out[3] == "failed: 0"
    calls = sum(o[2] for o in outcomes)
    assert out[4].startswith(f"per pair: {calls / 6:.2f} LLM calls")
