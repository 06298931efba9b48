"""Pooling at depth k: the union of every run's top k per query, without the pairs the qrels
already judged (any grade, 0 and negative included) unless they are re-judged; each candidate
keeps every (run, rank, score) that put it there. Hand-worked example."""

import pytest

from corpora.pooling import Source, pool_candidates

ENTRIES = [
    ("A", "q1", "d1", 1, 3.0),
    ("A", "q1", "d2", 2, 2.0),
    ("A", "q1", "d3", 3, 1.0),
    ("A", "q2", "d3", 1, 0.9),
    ("A", "q2", "d4", 2, 0.8),
    ("A", "q2", "d1", 3, 0.1),
    ("B", "q1", "d2", 1, 0.9),
    ("B", "q1", "d4", 2, 0.5),
    ("B", "q1", "d1", 3, 0.4),
    ("B", "q2", "d2", 1, 0.7),
    ("B", "q2", "d3", 2, 0.6),
]
JUDGED = {("q1", "d1"): 1, ("q1", "d3"): 0, ("q2", "d3"): 2, ("q2", "d4"): -1}


def summary(result):
    return [
        (c.query, c.document, c.original_relevance, [(s.run, s.rank, s.score) for s in c.sources])
        for c in result.candidates
    ]


def test_depth_2_keeps_three_unjudged_pairs_with_their_provenance():
    result = pool_candidates(ENTRIES, depth=2, judged=JUDGED, runs=["A", "B"])
    assert summary(result) == [
        ("q1", "d2", None, [("A", 2, 2.0), ("B", 1, 0.9)]),
        ("q1", "d4", None, [("B", 2, 0.5)]),
        ("q2", "d2", None, [("B", 1, 0.7)]),
    ]
    assert [(s.query, s.pairs, s.by_run, s.shared, s.judged) for s in result.per_query] == [
        ("q1", 2, {"A": 1, "B": 2}, 1, 1),
        ("q2", 1, {"A": 0, "B": 1}, 0, 2),
    ]
    assert (result.judged_left_out, result.judged_kept, result.unjudged) == (3, 0, 3)


def test_a_pair_judged_irrelevant_with_grade_0_is_left_out_too():
    result = pool_candidates(ENTRIES, depth=3, judged=JUDGED)
    pairs = {(c.query, c.document) for c in result.candidates}
    assert ("q1", "d3") not in pairs
    assert pairs == {("q1", "d2"), ("q1", "d4"), ("q2", "d1"), ("q2", "d2")}
    assert result.judged_left_out == 4


def test_re_judging_keeps_judged_pairs_with_their_original_grade():
    result = pool_candidates(ENTRIES, depth=2, judged=JUDGED, include_judged=True)
    assert summary(result) == [
        ("q1", "d1", 1, [("A", 1, 3.0)]),
        ("q1", "d2", None, [("A", 2, 2.0), ("B", 1, 0.9)]),
        ("q1", "d4", None, [("B", 2, 0.5)]),
        ("q2", "d2", None, [("B", 1, 0.7)]),
        ("q2", "d3", 2, [("A", 1, 0.9), ("B", 2, 0.6)]),
        ("q2", "d4", -1, [("A", 2, 0.8)]),
    ]
    assert (result.judged_left_out, result.judged_kept, result.unjudged) == (0, 3, 3)
    assert result.per_query[1].pairs == 3 and result.per_query[1].shared == 1


def test_a_run_ranking_a_pair_twice_is_an_error():
    with pytest.raises(ValueError, match="run 'A' ranks query 'q1' document 'd1' twice"):
        pool_candidates([ENTRIES[0], ENTRIES[0]], depth=2, judged={})
    with pytest.raises(ValueError, match="pool depth must be at least 1"):
        pool_candidates(ENTRIES, depth=0, judged={})
    assert Source("A", 1, 1.0).rank == 1
