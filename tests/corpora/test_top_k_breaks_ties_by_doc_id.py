"""Rank order is score descending, then doc id ascending (code point), also at the k-th place."""

import numpy as np

from corpora import retrieval


def test_equal_scores_rank_by_doc_id_even_across_the_cut_off():
    doc_ids = ["b", "a", "C", "d", "aa"]
    scores = np.array([1.0, 1.0, 1.0, 2.0, 1.0])
    keys = retrieval.tie_keys(doc_ids)
    # code-point order: "C" < "a" < "aa" < "b"
    assert retrieval.top_k(scores, 3, keys) == [(3, 2.0), (2, 1.0), (1, 1.0)]
    assert retrieval.top_k(scores, 10, keys) == [(3, 2.0), (2, 1.0), (1, 1.0), (4, 1.0), (0, 1.0)]
    assert retrieval.top_k(np.array([0.0, 0.0, 1.0, 0.0, 0.0]), 3, keys, min_score=0.0) == [
        (2, 1.0)
    ]


def test_cosine_search_ranks_by_dot_product_with_the_same_tie_break():
    docs = np.array([[1, 0], [0, 1], [1, 0], [0.6, 0.8]], dtype=np.float32)
    queries = np.array([[1, 0], [0, 1]], dtype=np.float32)
    rankings = retrieval.cosine_search(
        queries, docs, doc_ids=["z", "y", "x", "w"], k=3, batch_size=1
    )
    assert [[i for i, _ in r] for r in rankings] == [[2, 0, 3], [1, 3, 2]]
    assert np.allclose([s for _, s in rankings[0]], [1.0, 1.0, 0.6])
