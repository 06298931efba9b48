"""Rank-biased overlap (Webber, Moffat and Zobel, TOIS 2010), extrapolated for two lists of
equal length n (eq. 32): RBO = (1 - p) / p * sum_{d=1..n} A_d p^d + A_n p^n, where A_d is
the share of the top d the two leaderboards have in common. Ties: Corsi and Urbano's RBO^a
(SIGIR 2024), the mean over the orders of the tied systems.
"""

import pytest

from assess.evaluation.ranking import rbo


def board(*order: str) -> dict[str, float]:
    return {s: float(len(order) - i) for i, s in enumerate(order)}


def test_a_swap_at_the_top_of_three_gives_exactly_p():
    """[A, B, C] vs [B, A, C], p = 0.9: A_1 = 0 (A vs B), A_2 = 2/2 = 1, A_3 = 1.
    RBO = (0.1 / 0.9) * (0 * 0.9 + 1 * 0.81 + 1 * 0.729) + 1 * 0.729 = 0.171 + 0.729 = 0.9."""
    assert rbo(board("A", "B", "C"), board("B", "A", "C")) == pytest.approx(0.9)


def test_reversing_three_gives_0_855():
    """[A, B, C] vs [C, B, A]: A_1 = 0, A_2 = |{A, B} ∩ {C, B}| / 2 = 1/2, A_3 = 1.
    RBO = (1/9) * (0.5 * 0.81 + 0.729) + 0.729 = 0.126 + 0.729 = 0.855."""
    assert rbo(board("A", "B", "C"), board("C", "B", "A")) == pytest.approx(0.855)


def test_identical_leaderboards_give_one_and_rbo_is_symmetric():
    a, b = board("A", "B", "C", "D", "E"), board("B", "D", "A", "E", "C")
    assert rbo(a, a) == pytest.approx(1.0)
    assert rbo(a, b) == pytest.approx(rbo(b, a))


def test_the_persistence_moves_the_weight_to_the_top():
    """[A, B, C] vs [B, A, C] at p = 0.5: (0.5 / 0.5) * (0.25 + 0.125) + 0.125 = 0.5: the
    missed first place weighs more when p is small."""
    assert rbo(board("A", "B", "C"), board("B", "A", "C"), p=0.5) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        rbo(board("A", "B"), board("B", "A"), p=1.0)


def test_a_tie_counts_as_the_mean_over_its_orders():
    """Reference [A, B, C]; other ties A and B at the top, then C. A tied system is in the
    top 1 with probability 1/2: A_1 = 1 * 1/2 (A) = 0.5, A_2 = 1, A_3 = 1.
    RBO = (1/9) * (0.5 * 0.9 + 0.81 + 0.729) + 0.729 = 0.221 + 0.729 = 0.95, the mean of
    the two orders: [A, B, C] gives 1 and [B, A, C] gives 0.9."""
    other = {"A": 2.0, "B": 2.0, "C": 1.0}
    assert rbo(board("A", "B", "C"), other) == pytest.approx(0.95)


def test_everything_tied_is_the_overlap_expected_by_chance():
    """Two systems tied on both sides: of the four pairs of orders, two agree (RBO 1) and two
    are swapped (RBO (1/9) * 0.81 + 0.81 = 0.9): 0.95."""
    tied = {"A": 1.0, "B": 1.0}
    assert rbo(tied, tied) == pytest.approx(0.95)
