"""bm25s (the large-corpus backend) and rank-bm25 (the reference) give the same top 10 for
every SciFact test query on identical tokens."""

import numpy as np
import pytest

from corpora import formats, retrieval

from .conftest import shared_dataset


@pytest.mark.slow
def test_bm25s_and_rank_bm25_give_the_same_top_10_for_all_300_test_queries():
    folder = shared_dataset("scifact")
    docs = list(formats.parse_corpus(folder / "corpus.jsonl"))
    queries = {q.query_id: q.text for q in formats.parse_queries(folder / "queries.jsonl")}
    test_ids = sorted({r.query_id for r in formats.parse_beir_qrels(folder / "qrels/test.tsv")})
    tokens = [retrieval.tokenize(retrieval.document_text(d.title, d.text)) for d in docs]
    doc_ids = [d.doc_id for d in docs]
    texts = [queries[q] for q in test_ids]
    results = {
        backend: retrieval.bm25_search(
            retrieval.bm25_index(tokens, backend=backend), texts, doc_ids=doc_ids, k=10
        )
        for backend in retrieval.BACKENDS
    }
    assert len(test_ids) == 300
    for reference, fast in zip(results["rank_bm25"], results["bm25s"], strict=True):
        assert [i for i, _ in fast] == [i for i, _ in reference]
        assert np.allclose([s for _, s in fast], [s for _, s in reference], rtol=1e-12)
