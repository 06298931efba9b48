"""The DREAM paper's nDCG@10 (ideal DCG over all gold) differs from standard nDCG@10."""

from __future__ import annotations

import math

import pytest

from assess.evaluation.metrics import PAPER_NDCG10, evaluate_run, ndcg_paper_variant

TWELVE_RELEVANT = {"q1": {f"r{i:02d}": 1 for i in range(1, 13)}}
# The run ranks ten of the twelve relevant documents, r01..r10, in its top 10.
TOP_TEN = {"q1": {f"r{i:02d}": 1.0 - i / 100 for i in range(1, 11)}}


def test_with_twelve_relevant_documents_the_paper_variant_is_below_standard_ndcg():
    """Ten relevant documents at ranks 1..10 of a query with 12 relevant (grade 1).

    DCG@10 = sum_{i=1..10} 1/log2(i+1) = 1 + 0.630930 + 0.5 + 0.430677 + 0.386853
             + 0.356207 + 0.333333 + 0.315465 + 0.301030 + 0.289065 = 4.543559.
    Standard ideal DCG@10 uses the best min(10, 12) = 10 gains: the same 4.543559 → 1.0.
    Paper ideal sums all 12: 4.543559 + 1/log2(12) + 1/log2(13)
             = 4.543559 + 0.278943 + 0.270238 = 5.092740 → 4.543559 / 5.092740 = 0.892164.
    """
    aggregate, _ = evaluate_run(TWELVE_RELEVANT, TOP_TEN)
    paper_mean, paper = ndcg_paper_variant(TWELVE_RELEVANT, TOP_TEN)

    assert aggregate["nDCG@10"] == pytest.approx(1.0)
    assert paper["q1"] == pytest.approx(0.892164, abs=1e-6)
    assert paper_mean == pytest.approx(
        sum(1 / math.log2(i + 1) for i in range(1, 11))
        / sum(1 / math.log2(i + 1) for i in range(1, 13))
    )
    assert aggregate[PAPER_NDCG10] == pytest.approx(paper_mean)


def test_with_at_most_ten_relevant_documents_both_variants_agree():
    """q1 has grades a=2, c=1; the run ranks b(0), a(2), c(1), d(unjudged).

    DCG = 2 / log2(3) + 1 / 2 = 1.761860; ideal (2, 1) = 2 + 0.630930 = 2.630930 for both
    variants (|relevant| = 2 <= 10): 0.669672.
    """
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}}
    run = {"q1": {"b": 4.0, "a": 3.0, "c": 2.0, "d": 1.0}}

    aggregate, _ = evaluate_run(qrels, run)

    assert aggregate["nDCG@10"] == pytest.approx(0.669672, abs=1e-6)
    assert aggregate[PAPER_NDCG10] == pytest.approx(aggregate["nDCG@10"])


def test_the_paper_variant_uses_graded_gains_like_trec_eval():
    """Grades 3, 2, 2 (and a judged -1 that gains nothing) with the run c, n, a.

    DCG = 2 (c) + 0 (n, grade -1) + 3 / 2 (a at rank 3) = 3.5.
    Ideal over all gold (3, 2, 2) = 3 + 2 * 0.6309298 + 2 * 0.5 = 5.261860 → 0.665164;
    standard nDCG@10 has the same ideal here, so ir_measures gives the same value.
    """
    qrels = {"q1": {"a": 3, "b": 2, "c": 2, "n": -1}}
    run = {"q1": {"c": 3.0, "n": 2.0, "a": 1.0}}

    aggregate, _ = evaluate_run(qrels, run)

    assert aggregate[PAPER_NDCG10] == pytest.approx(3.5 / (3 + 2 / math.log2(3) + 1))
    assert aggregate[PAPER_NDCG10] == pytest.approx(0.665164, abs=1e-6)
    assert aggregate["nDCG@10"] == pytest.approx(aggregate[PAPER_NDCG10])
