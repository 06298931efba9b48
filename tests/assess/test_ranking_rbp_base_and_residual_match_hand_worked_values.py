"""Rank-biased precision with its residual (Moffat and Zobel, TOIS 2008), p = 0.8:
base = 0.2 * sum over relevant ranks i of 0.8^(i - 1); residual = 0.2 * sum over unjudged
ranks i of 0.8^(i - 1) + 0.8^depth."""

import pytest

from assess.evaluation.ranking import RbpScore, rbp


def test_three_documents_with_one_unjudged():
    """q: d1 relevant (rank 1), d2 unjudged (rank 2), d3 judged 0 (rank 3).
    base = 0.2 * 0.8^0 = 0.2; residual = 0.2 * 0.8^1 + 0.8^3 = 0.16 + 0.512 = 0.672."""
    mean, per_query = rbp({"q": ["d1", "d2", "d3"]}, {"q": {"d1": 1, "d3": 0}})
    assert per_query["q"].base == pytest.approx(0.2)
    assert per_query["q"].residual == pytest.approx(0.672)
    assert per_query["q"].p == 0.8
    assert mean.base == pytest.approx(0.2) and mean.residual == pytest.approx(0.672)


def test_the_mean_is_over_the_judged_queries_and_an_unranked_one_is_all_residual():
    """q1 as above; q2 judged but not ranked: base 0, residual 0.8^0 = 1. Mean base
    (0.2 + 0) / 2 = 0.1, residual (0.672 + 1) / 2 = 0.836. q3 has no judgment: left out."""
    qrels = {"q1": {"d1": 1, "d3": 0}, "q2": {"x": 1}, "q3": {}}
    mean, per_query = rbp({"q1": ["d1", "d2", "d3"], "q3": ["d9"]}, qrels)
    assert sorted(per_query) == ["q1", "q2"]
    assert per_query["q2"] == RbpScore(0.8, 0.0, 1.0)
    assert mean.base == pytest.approx(0.1)
    assert mean.residual == pytest.approx(0.836)


def test_graded_relevance_counts_from_the_relevance_level():
    """d1 grade 1, d2 grade 2. Level 1: base 0.2 + 0.16 = 0.36. Level 2: d1 is judged, not
    relevant: base 0.16. Residual is the tail alone, 0.8^2 = 0.64, either way."""
    run, qrels = {"q": ["d1", "d2"]}, {"q": {"d1": 1, "d2": 2}}
    assert rbp(run, qrels)[0].base == pytest.approx(0.36)
    level_2 = rbp(run, qrels, rel_level=2)[0]
    assert level_2.base == pytest.approx(0.16)
    assert level_2.residual == pytest.approx(0.64)


def test_another_persistence_and_the_refusals():
    """p = 0.5, d1 unjudged, d2 relevant: base 0.5 * 0.5 = 0.25, residual 0.5 + 0.25 = 0.75."""
    score = rbp({"q": ["d1", "d2"]}, {"q": {"d2": 1}}, 0.5)[0]
    assert (score.base, score.residual) == pytest.approx((0.25, 0.75))
    assert rbp({}, {}) == (RbpScore(0.8, 0.0, 1.0), {})
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        rbp({"q": ["d1"]}, {"q": {"d1": 1}}, 0.0)
    with pytest.raises(ValueError, match="relevance level"):
        rbp({"q": ["d1"]}, {"q": {"d1": 1}}, rel_level=0)
    with pytest.raises(ValueError, match="ranks a document twice"):
        rbp({"q": ["d1", "d1"]}, {"q": {"d1": 1}})
