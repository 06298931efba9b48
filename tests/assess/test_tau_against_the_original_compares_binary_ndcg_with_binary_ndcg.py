"""The refined estimates measure nDCG@10 with binary gains (grade >= the relevance level), so
what they are compared with, by Kendall's tau and the intervals plot, is the original
qrels' nDCG@10 with binary gains too: on graded qrels the leaderboard's graded nDCG would
move tau by the change of gain alone, with no label changed (no database)."""

import math

import pytest

from assess.evaluation.refined_intervals import _binary_scores


def _binary_ndcg(ranked, fixed, queries, rel_level):
    return _binary_scores(ranked, fixed, queries, rel_level)["nDCG@10"]


def test_two_runs_that_swap_a_grade_2_and_a_grade_1_document_tie_on_binary_ndcg():
    fixed = {"q": {"d1": 2, "d2": 1}}
    ranked = {"A": {"q": ["d2", "d1"]}, "B": {"q": ["d1", "d2"]}, "C": {"q": ["d1", "x", "d2"]}}
    found = _binary_ndcg(ranked, fixed, ["q"], 1)
    # Graded (trec_eval's linear gain) they differ: A 0.860, B 1.000, C 0.950; binary, A and
    # B both rank both relevant documents first: 1.0; C has the second at rank 3.
    ideal = 1 + 1 / math.log2(3)
    assert found == pytest.approx({"A": 1.0, "B": 1.0, "C": (1 + 0.5) / ideal})


def test_at_relevance_level_two_only_grade_two_counts():
    fixed = {"q": {"d1": 2, "d2": 1}, "r": {"d3": 1}}
    ranked = {"A": {"q": ["d2", "d1"], "r": ["d3"]}}
    # q: d1 at rank 2 alone relevant -> 1 / log2(3); r has no relevant document at level 2: 0.
    assert _binary_ndcg(ranked, fixed, ["q", "r"], 2) == pytest.approx(
        {"A": (1 / math.log2(3)) / 2}
    )
