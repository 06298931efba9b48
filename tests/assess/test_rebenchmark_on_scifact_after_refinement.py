"""End to end on real data: SciFact (20 test queries), BM25 + dense runs, a depth-10 pool, a
debate job whose outcomes the test sets for every pair (consensus, human answers, a few
escalations left open), refine, re-benchmark. Holes filled in dense's top 3 lift dense's
nDCG@10 and everyone's Judged@10; the exported TREC qrels, read back with ir_measures with
the exported runs, give exactly the in-app numbers."""

import ir_measures
import pytest

from assess.evaluation.metrics import DEFAULT_MEASURES, HOLE10, NDCG10
from assess.evaluation.rebench import rebench_compute
from assess.refined.exports import export_path, export_request
from assess.refined.refine import qrels_refine
from corpora.models import RunEntry
from corpora.services import (
    pool_build,
    qrel_set_get,
    qrels_import,
    qrels_rows,
    run_create,
    run_export,
    run_retrieve,
)
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.pooling import EMBEDDING_CACHE
from tests.fixtures.refine import AGENT, review, settle

QUERIES = 20


def first_queries_qrels(scifact, tmp_path):
    """Qrel set ``test20``: the test qrels of the first 20 test queries (code-point order)."""
    rows = list(qrels_rows(qrel_set=qrel_set_get(dataset=scifact, name="test")))
    keep = sorted({q for q, _, _ in rows})[:QUERIES]
    path = tmp_path / "test20.qrels"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in rows if q in keep))
    return qrels_import(dataset=scifact, path=path, name="test20")


def label_every_pair(job, dense):
    """Relevant: the unjudged pairs in dense's top 3; not relevant: the rest. Every 25th
    pair is escalated: humans answer all but the last two (left unresolved)."""
    top3 = set(
        RunEntry.objects.filter(run=dense, rank__lte=3).values_list("query_id", "document_id")
    )
    debates = list(
        job.debates.select_related("pair").order_by(
            "pair__query__query_id", "pair__document__doc_id"
        )
    )
    escalated = debates[::25]
    for index, debate in enumerate(debates):
        label = int((debate.pair.query_id, debate.pair.document_id) in top3)
        if debate in escalated:
            settle(debate, "escalated", reason="disagreement", minutes=index)
            if debate not in escalated[-2:]:
                review(debate, "escalated", [("alice", label)])
        else:
            settle(debate, "agreed", label=label, round=1 + index % 2, minutes=index)
    return (
        len(debates),
        len(escalated),
        sum(1 for d in debates if (d.pair.query_id, d.pair.document_id) in top3),
    )


@pytest.mark.slow
@pytest.mark.django_db
def test_refinement_lifts_dense_and_exported_qrels_score_like_the_app(
    scifact, tmp_path, var_dir, django_capture_on_commit_callbacks
):
    test20 = first_queries_qrels(scifact, tmp_path)
    bm25 = run_retrieve(run=run_create(dataset=scifact, retriever="bm25", queries="test20"))
    dense = run_retrieve(
        run=run_create(dataset=scifact, retriever="dense", queries="test20"),
        cache_dir=EMBEDDING_CACHE,
    )
    pool = pool_build(dataset=scifact, qrel_set=test20, runs=[bm25, dense], depth=10).pool
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=AGENT, agent_b=AGENT), start=False)
    pairs, escalated, relevant = label_every_pair(job, dense)
    report = qrels_refine(pool=pool, name="test20-dream")
    s = report.summary
    # measured: 322 pairs over the 20 queries, 13 escalated, 46 in dense's top 3
    assert (pairs, escalated, relevant) == (322, 13, 46)
    assert s.pairs == pairs
    assert (s.new_relevant, s.new_nonrelevant) == (46, 274)
    assert s.unresolved == 2 and s.by_reason == {"escalated, awaiting human": 2}
    assert s.by_source == {"consensus": pairs - escalated, "human": escalated - 2, "unresolved": 2}

    result = rebench_compute(
        dataset=scifact, original=test20, refined=report.qrel_set, runs=[bm25, dense]
    ).result
    before = {r.system: r.scores for r in result.before}
    after = {r.system: r.scores for r in result.after}
    # Direction: dense's holes were filled, so dense rises and overtakes BM25.
    assert after["dense"][NDCG10] > before["dense"][NDCG10]
    assert after["bm25"][NDCG10] < before["bm25"][NDCG10]
    for system in ("bm25", "dense"):
        assert after[system]["Judged@10"] > before[system]["Judged@10"]
    assert result.holes["dense"] > result.holes["bm25"] > 0
    assert (result.rank_changes["dense"].before, result.rank_changes["dense"].after) == (2, 1)
    # measured values
    assert before["bm25"][NDCG10] == pytest.approx(0.6521, abs=1e-4)
    assert before["dense"][NDCG10] == pytest.approx(0.5804, abs=1e-4)
    assert after["bm25"][NDCG10] == pytest.approx(0.6001, abs=1e-4)
    assert after["dense"][NDCG10] == pytest.approx(0.9601, abs=1e-4)
    assert (before["bm25"]["Judged@10"], before["dense"]["Judged@10"]) == pytest.approx(
        (0.095, 0.09)
    )
    assert after["dense"]["Judged@10"] == pytest.approx(0.995)  # 2 unresolved pairs left
    assert (result.holes["bm25"], result.holes["dense"]) == pytest.approx((0.105, 0.23))

    # The exported TREC qrels and runs, read back with ir_measures, give the same numbers.
    with django_capture_on_commit_callbacks(execute=True):
        export, _ = export_request(kind="trec", qrel_set=report.qrel_set)
    export.refresh_from_db()
    assert export.status == "done"
    qrels = list(ir_measures.read_trec_qrels(str(export_path(export=export))))
    assert len(qrels) == export.rows
    for run in (bm25, dense):
        path = tmp_path / f"{run.name}.run"
        with open(path, "w", encoding="utf-8") as out:
            run_export(run=run, out=out)
        scores = ir_measures.calc_aggregate(
            list(DEFAULT_MEASURES.values()), qrels, ir_measures.read_trec_run(str(path))
        )
        for label, measure in DEFAULT_MEASURES.items():
            assert scores[measure] == pytest.approx(after[run.name][label], abs=1e-12), label
    assert HOLE10 not in before["bm25"]  # Hole@10 exists only against the refined set
