"""RAGAlign@k and the correlation of Success@k with answer accuracy across systems."""

from __future__ import annotations

import pytest

from assess.evaluation.metrics import hit_at_k
from assess.evaluation.rag import answer_accuracy, rag_align, success_accuracy_correlation
from tests.fixtures.metrics import ALPHA, ORIGINAL, REFINED


def test_rag_align_of_the_toy_system_rises_with_the_refined_qrels():
    """alpha's generator answers all three toy queries correctly.

    Relevant in the top 10, original qrels: q1 yes (a), q2 yes (e), q3 no (i is 0, j is
    unjudged). Agreement with "correct": q1, q2 → RAGAlign@10 = 2/3 = 0.666667.
    Refined: j is relevant, so q3 is a hit too → 3/3 = 1.0.
    """
    correct = {"q1": True, "q2": True, "q3": True}

    original_hits = hit_at_k(ORIGINAL, ALPHA, 10)
    refined_hits = hit_at_k(REFINED, ALPHA, 10)

    assert original_hits == {"q1": True, "q2": True, "q3": False}
    assert rag_align(original_hits, correct) == pytest.approx(2 / 3)
    assert rag_align(refined_hits, correct) == 1.0


def test_a_miss_with_a_wrong_answer_also_agrees():
    """q1 hit & correct, q2 miss & wrong (agree), q3 hit & wrong, q4 miss & correct → 2/4."""
    hits = {"q1": True, "q2": False, "q3": True, "q4": False}
    correct = {"q1": True, "q2": False, "q3": False, "q4": True}

    assert rag_align(hits, correct) == 0.5
    assert answer_accuracy(correct) == 0.5


def test_rag_align_refuses_different_query_sets_or_none():
    with pytest.raises(ValueError, match="1 differ"):
        rag_align({"q1": True, "q2": True}, {"q1": True})
    with pytest.raises(ValueError, match="at least one query"):
        rag_align({}, {})


def test_success_and_accuracy_correlate_as_worked_by_hand():
    """Systems (Success@10, accuracy): A (0.2, 0.1), B (0.4, 0.3), C (0.6, 0.2).

    Pearson: deviations x (-0.2, 0, 0.2), y (-0.1, 0.1, 0); sum of products 0.02,
    sum x^2 0.08, sum y^2 0.02 → r = 0.02 / sqrt(0.08 * 0.02) = 0.5.
    Spearman: ranks x (1, 2, 3), y (1, 3, 2); sum d^2 = 2 → rho = 1 - 6 * 2 / (3 * 8) = 0.5.
    """
    result = success_accuracy_correlation({"A": (0.2, 0.1), "B": (0.4, 0.3), "C": (0.6, 0.2)})

    assert result.n == 3
    assert result.pearson_r == pytest.approx(0.5)
    assert result.spearman_rho == pytest.approx(0.5)


def test_correlation_is_none_for_fewer_than_three_systems_or_no_variance():
    assert success_accuracy_correlation({"A": (0.2, 0.1), "B": (0.4, 0.3)}) is None
    flat = {"A": (0.5, 0.1), "B": (0.5, 0.3), "C": (0.5, 0.2)}
    assert success_accuracy_correlation(flat) is None
