"""A check of the judged pairs in batch mode compares each consensus with the original grade
as the direct path does: on 30 SciFact pairs (all judged relevant) the scripted model's
agreements on "not relevant" end escalated as suspect original labels on both paths, its
agreements on "relevant" stay agreed, and the two jobs end the same."""

import io

import pytest

from debates.services.batch import batch_export, batch_import
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.batch import MODEL, debate_outcomes, output_line


def _launch(pool, url, *, batch: bool):
    agent = {"backend": "openai", "model": MODEL, "base_url": url, "context_window": 8192}
    spec = JobSpec(
        pool=pool,
        agent_a=agent,
        rounds=2,
        max_tokens=384,
        concurrency=1 if batch else 2,
        batch=batch,
        check_judged=True,
        gold_share=0.0,
    )
    return debate_job_launch(spec=spec)


# Both turns of a round together, as a batch asks them: the direct path runs with two
# requests in flight (see test_batch_mode_gives_the_direct_paths_labels.py).
@pytest.mark.django_db(transaction=True)
def test_batch_and_direct_checks_flag_the_same_suspects(scifact_pool, scripted_server):
    pool = scifact_pool(30)
    direct = _launch(pool, scripted_server, batch=False)
    debate_job_wait(job=direct)
    batch = _launch(pool, scripted_server, batch=True)
    for _ in range(10):
        out = io.StringIO()
        if not batch_export(job=batch, out=out, batch_ref="test"):
            break
        lines = [output_line(line) for line in out.getvalue().splitlines()]
        batch_import(job=batch, lines=lines, name="out.jsonl")
    batch.refresh_from_db()
    assert batch.status == "finished"
    outcomes = debate_outcomes(batch)
    assert outcomes == debate_outcomes(direct)
    ends = [(row[0], row[1], row[3]) for row in outcomes.values()]
    suspects = ends.count(("escalated", None, "suspect_original"))
    assert suspects > 0 and ("agreed", 0, "") not in ends  # every original grade is 1
    assert ends.count(("agreed", 1, "")) > 0
