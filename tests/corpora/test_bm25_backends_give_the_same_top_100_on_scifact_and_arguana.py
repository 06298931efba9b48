"""bm25s (the default backend) and rank-bm25 (the reference) give the same top 100, ties
ranked by doc id, and the same scores on identical tokens: for every SciFact test query at
top 10, and at top 100 for a sample of SciFact and ArguAna test queries (every 10th and
every 140th query id in code-point order; ArguAna's long queries cost rank-bm25 ~0.6 s each
on a quiet machine, so its full test set, 828 s, is left out: bench/arguana_bm25_bench.py
times it on a sample)."""

import numpy as np
import pytest

from corpora import formats, retrieval
from tests.fixtures.datasets import shared_dataset


def _rankings(name: str, *, step: int, k: int) -> tuple[list[str], dict[str, list]]:
    folder = shared_dataset(name)
    docs = list(formats.parse_corpus(folder / "corpus.jsonl"))
    queries = {q.query_id: q.text for q in formats.parse_queries(folder / "queries.jsonl")}
    test_ids = sorted({r.query_id for r in formats.parse_beir_qrels(folder / "qrels/test.tsv")})
    sample = test_ids[::step]
    tokens = [retrieval.tokenize(retrieval.document_text(d.title, d.text)) for d in docs]
    doc_ids = [d.doc_id for d in docs]
    return test_ids, {
        backend: retrieval.bm25_search(
            retrieval.bm25_index(tokens, backend=backend),
            [queries[q] for q in sample],
            doc_ids=doc_ids,
            k=k,
        )
        for backend in retrieval.BACKENDS
    }


def _assert_same(results: dict[str, list], k: int) -> None:
    for reference, fast in zip(results["rank_bm25"], results["bm25s"], strict=True):
        assert len(fast) == len(reference) <= k
        assert [i for i, _ in fast] == [i for i, _ in reference]
        assert np.allclose([s for _, s in fast], [s for _, s in reference], rtol=1e-12)


@pytest.mark.slow
def test_the_same_top_10_for_all_300_scifact_test_queries():
    test_ids, results = _rankings("scifact", step=1, k=10)
    assert len(test_ids) == 300
    _assert_same(results, 10)


@pytest.mark.slow
def test_the_same_top_100_for_30_scifact_test_queries():
    test_ids, results = _rankings("scifact", step=10, k=100)
    assert len(results["bm25s"]) == 30
    assert sum(len(r) for r in results["bm25s"]) == 30 * 100
    _assert_same(results, 100)


@pytest.mark.slow
def test_the_same_top_100_for_11_arguana_test_queries():
    test_ids, results = _rankings("arguana", step=140, k=100)
    assert len(test_ids) == 1401
    assert len(results["bm25s"]) == 11
    assert sum(len(r) for r in results["bm25s"]) == 11 * 100
    _assert_same(results, 100)
