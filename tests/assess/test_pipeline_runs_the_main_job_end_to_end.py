"""The pipeline chains runs, pool, debates, refined qrels and a re-benchmark, idempotently."""

import pytest

from assess.pipeline import pipeline_run
from corpora.formats import parse_trec_qrels
from corpora.models import Pair, Run
from debates.models import Debate, DebateJob, Turn
from tests.fixtures.jobs import pipeline_spec

STANCE_RULE = {"backend": "test", "rule": "stance"}


@pytest.mark.django_db
def test_the_pipeline_refines_the_qrels_with_consensus_labels_and_lists_pending(
    energy, fake_llms, tmp_path
):
    lines: list[str] = []
    report = pipeline_run(
        dataset=energy,
        echo=lines.append,
        spec=pipeline_spec(
            retrievers=["bm25"], depth=3, agent=STANCE_RULE, rounds=2, out_dir=tmp_path
        ),
    )
    pairs = Pair.objects.filter(pool__name=report.pool).count()
    agreed = Debate.objects.filter(status="agreed").count()
    escalated = Debate.objects.filter(status="escalated").count()
    assert report.pairs == pairs == agreed + escalated > 0
    rows = list(parse_trec_qrels(report.refined_file))
    assert len(rows) == report.refined_rows == 4 + agreed
    assert report.pending == escalated
    text = "\n".join(lines)
    assert "Leaderboard on the original qrels" in text
    assert "Leaderboard on the refined qrels" in text
    assert f"{pairs} unjudged pairs from bm25 at depth 3" in text
    # No human has judged an audit yet: the intervals say what is missing, not a number.
    assert "Intervals (95%) on the refined qrels" in text
    assert "No interval: " in text


@pytest.mark.django_db
def test_running_the_pipeline_again_repeats_no_debate_and_no_run(energy, fake_llms, tmp_path):
    first = pipeline_run(
        dataset=energy,
        echo=lambda _: None,
        spec=pipeline_spec(retrievers=["bm25"], depth=3, agent=STANCE_RULE, out_dir=tmp_path),
    )
    turns = Turn.objects.count()
    second = pipeline_run(
        dataset=energy,
        echo=lambda _: None,
        spec=pipeline_spec(retrievers=["bm25"], depth=3, agent=STANCE_RULE, out_dir=tmp_path),
    )
    assert second.job_id == first.job_id
    assert (Run.objects.count(), DebateJob.objects.count()) == (1, 1)
    assert Turn.objects.count() == turns
    assert second.refined_file.read_bytes() == first.refined_file.read_bytes()
