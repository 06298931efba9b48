"""Reciprocal rank fusion, CombSUM and CombMNZ (corpora.fusion, pure) give the rankings worked
out by hand below, break ties by doc id, and refuse what they cannot fuse."""

import pytest

from corpora.fusion import fuse, min_max

# Three runs of query q1; run a alone covers q2.
#   a: d1 1.0, d2 0.5, d3 0.0   -> min-max 1, 0.5, 0
#   b: d3 5, d4 1               -> min-max d3 1, d4 0
#   c: d2 2, d3 1, d5 0         -> min-max d2 1, d3 0.5, d5 0
RUNS = {
    "a": {"q1": [("d1", 1.0), ("d2", 0.5), ("d3", 0.0)], "q2": [("d9", 7.0)]},
    "b": {"q1": [("d3", 5.0), ("d4", 1.0)]},
    "c": {"q1": [("d2", 2.0), ("d3", 1.0), ("d5", 0.0)]},
}


def ranked(result, query):
    return [doc for doc, _ in result[query]]


def test_min_max_maps_a_runs_scores_onto_zero_to_one_and_equal_scores_to_one():
    assert min_max([3.0, 2.0, 1.0]) == [1.0, 0.5, 0.0]
    assert min_max([-2.0, -4.0]) == [1.0, 0.0]
    assert min_max([2.0, 2.0]) == [1.0, 1.0]
    assert min_max([]) == []


def test_rrf_sums_one_over_sixty_plus_the_rank_in_each_run():
    result = fuse(RUNS, method="rrf")
    # d3: ranks 3, 1, 2; d2: ranks 2 (a), 1 (c); d1: 1 (a); d4: 2 (b); d5: 3 (c)
    assert ranked(result, "q1") == ["d3", "d2", "d1", "d4", "d5"]
    scores = dict(result["q1"])
    assert scores["d3"] == pytest.approx(1 / 61 + 1 / 62 + 1 / 63)
    assert scores["d2"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["d5"] == pytest.approx(1 / 63)
    assert result["q2"] == [("d9", pytest.approx(1 / 61))]


def test_combsum_adds_the_min_max_normalised_scores_and_breaks_ties_by_doc_id():
    result = fuse(RUNS, method="combsum")
    # d2: 0.5 + 1 = 1.5; d3: 0 + 1 + 0.5 = 1.5 (tie: d2 first); d1: 1; d4, d5: 0
    assert result["q1"] == [
        ("d2", pytest.approx(1.5)),
        ("d3", pytest.approx(1.5)),
        ("d1", pytest.approx(1.0)),
        ("d4", 0.0),
        ("d5", 0.0),
    ]
    assert result["q2"] == [("d9", 1.0)]  # one document: its run ranks it best


def test_combmnz_multiplies_the_sum_by_the_runs_that_retrieved_the_document():
    result = fuse(RUNS, method="combmnz")
    # d3: 1.5 x 3 = 4.5; d2: 1.5 x 2 = 3; d1: 1 x 1; d4, d5: 0
    assert result["q1"] == [
        ("d3", pytest.approx(4.5)),
        ("d2", pytest.approx(3.0)),
        ("d1", pytest.approx(1.0)),
        ("d4", 0.0),
        ("d5", 0.0),
    ]


def test_only_the_top_k_are_kept_and_rrf_k_is_the_constant_given():
    result = fuse(RUNS, method="rrf", k=2, rrf_k=0)
    assert result["q1"] == [
        ("d3", pytest.approx(1 / 3 + 1 + 1 / 2)),
        ("d2", pytest.approx(1 / 2 + 1)),
    ]


def test_equal_contributions_in_another_order_tie_exactly_and_rank_by_doc_id():
    # f, x and y each hold ranks 1, 2 and 3 once, met in three different orders
    runs = {
        "r1": {"q": [("x", 3.0), ("y", 2.0), ("f", 1.0)]},
        "r2": {"q": [("y", 3.0), ("f", 2.0), ("x", 1.0)]},
        "r3": {"q": [("f", 3.0), ("x", 2.0), ("y", 1.0)]},
    }
    result = fuse(runs, method="rrf")
    assert len({score for _, score in result["q"]}) == 1
    assert ranked(result, "q") == ["f", "x", "y"]


@pytest.mark.parametrize(
    ("kwargs", "runs", "message"),
    [
        ({"method": "borda"}, RUNS, "unknown fusion method 'borda'"),
        ({"k": 0}, RUNS, "k must be at least 1, got 0"),
        ({"rrf_k": -1}, RUNS, "rrf_k must be 0 or more, got -1"),
        ({}, {"a": {"q": [("d1", 2.0), ("d1", 1.0)]}}, "run 'a' ranks document 'd1' twice"),
    ],
)
def test_what_cannot_be_fused_is_refused(kwargs, runs, message):
    with pytest.raises(ValueError, match=message):
        fuse(runs, **kwargs)
