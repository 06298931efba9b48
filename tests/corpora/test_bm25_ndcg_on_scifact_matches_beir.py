"""BM25 on the SciFact test queries scores nDCG@10 within 0.02 of BEIR's published 0.665
(Thakur et al., 2021, Elasticsearch BM25), computed with ir_measures against the test qrels."""

import pytest

from corpora.services import qrel_set_get, run_create, run_evaluate, run_retrieve

BEIR_BM25_SCIFACT = 0.665


@pytest.mark.slow
@pytest.mark.django_db
def test_bm25_ndcg_at_10_on_scifact_is_within_0_02_of_0_665(scifact):
    run = run_retrieve(run=run_create(dataset=scifact, retriever="bm25", k=100, queries="test"))
    assert run.parameters["backend"] == "bm25s"
    assert run.entries.values("query").distinct().count() == 300
    assert run.entries.filter(rank__gt=100).count() == 0
    scores = run_evaluate(run=run, qrel_set=qrel_set_get(dataset=scifact, name="test"))
    # measured: 0.6618
    assert scores["nDCG@10"] == pytest.approx(0.6618, abs=1e-4)
    assert abs(scores["nDCG@10"] - BEIR_BM25_SCIFACT) <= 0.02
