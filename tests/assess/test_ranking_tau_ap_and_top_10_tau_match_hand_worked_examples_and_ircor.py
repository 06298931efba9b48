"""AP correlation (Yilmaz, Aslam and Robertson, SIGIR 2008) with the tie-aware variants of
Urbano and Marrero (ICTIR 2017), and autojudge-evaluate's top-k Kendall's tau, on
hand-worked leaderboards.

tau_AP walks down a ranking; at position i (from 2) the system there scores the share of the
i - 1 systems above it that the compared ranking also puts above it;
tau_AP = 2 / (n - 1) * sum(shares) - 1.
"""

import pytest

from assess.evaluation.metrics import kendall_tau
from assess.evaluation.ranking import kendall_at_k, kendall_tau_b, tau_ap

ABCD = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}


def board(*order: str) -> dict[str, float]:
    """The systems in ``order``, best first (scores n, n - 1, ..., 1)."""
    return {s: float(len(order) - i) for i, s in enumerate(order)}


def test_swapping_the_middle_pair_gives_two_thirds_both_ways():
    """[A, B, C, D] vs [A, C, B, D]. Walking down [A, C, B, D]: C has A above (also above
    in the reference) 1/1; B has A, C above, only A agrees 1/2; D has 3/3. Sum 2.5,
    tau_AP = 2/3 * 2.5 - 1 = 2/3. Walking down the reference: B 1/1, C 1/2 (B is below C
    in the other), D 3/3: 2/3 again, so tau_AP,b = 2/3 (Kendall's tau too: (5 - 1) / 6)."""
    other = board("A", "C", "B", "D")
    assert tau_ap(ABCD, other) == pytest.approx(2 / 3)
    assert tau_ap(ABCD, other, variant="a") == pytest.approx(2 / 3)
    assert kendall_tau_b(ABCD, other)[0] == pytest.approx(2 / 3)


def test_a_swap_at_the_top_costs_more_than_one_at_the_bottom():
    """Top swap [B, A, C, D]: A has B above, which the reference puts below: 0/1; C 2/2;
    D 3/3 → 2/3 * 2 - 1 = 1/3. Bottom swap [A, B, D, C]: B 1/1, D 2/2, C has A, B, D
    above and D disagrees: 2/3 → 2/3 * (8/3) - 1 = 7/9. Kendall's tau is 2/3 for both."""
    assert tau_ap(ABCD, board("B", "A", "C", "D")) == pytest.approx(1 / 3)
    assert tau_ap(ABCD, board("A", "B", "D", "C")) == pytest.approx(7 / 9)
    assert kendall_tau_b(ABCD, board("B", "A", "C", "D"))[0] == pytest.approx(2 / 3)
    assert kendall_tau_b(ABCD, board("A", "B", "D", "C"))[0] == pytest.approx(2 / 3)


def test_variant_a_is_asymmetric_and_variant_b_is_the_mean_of_both_walks():
    """Reference [A, B, C, D], other [B, C, A, D]. Down the other (Yilmaz's tau_AP, variant
    a): C has B above, agreed 1/1; A has B, C above, neither above A in the reference 0/2;
    D 3/3 → 2/3 * 2 - 1 = 1/3. Down the reference (arguments swapped): B has A above, but
    the other puts B first 0/1; C has A, B above, only B agrees 1/2; D 3/3 → 2/3 * 1.5 - 1
    = 0. tau_AP,b = (1/3 + 0) / 2 = 1/6, whichever argument comes first."""
    other = board("B", "C", "A", "D")
    assert tau_ap(ABCD, other, variant="a") == pytest.approx(1 / 3)
    assert tau_ap(other, ABCD, variant="a") == pytest.approx(0.0)
    assert tau_ap(ABCD, other) == pytest.approx(1 / 6)
    assert tau_ap(other, ABCD) == pytest.approx(1 / 6)


def test_a_tie_in_the_other_leaderboard_is_no_agreement_in_tau_ap_b():
    """Other: A 4, B 2, C 2, D 1 (B and C tied). Down the other: B and C each have the one
    system above their group, A, which the reference also ranks higher: 1/1, 1/1; D 3/3 →
    2/3 * 3 - 1 = 1. Down the reference: B 1/1; C has A, B above and the other ties B with C,
    so only A counts: 1/2; D 3/3 → 2/3 * 2.5 - 1 = 2/3. tau_AP,b = (1 + 2/3) / 2 = 5/6.
    (tau-b: 5 concordant pairs, 1 tied in the other: 5 / sqrt(6 * 5) = 0.912871.)"""
    other = {"A": 4.0, "B": 2.0, "C": 2.0, "D": 1.0}
    assert tau_ap(ABCD, other) == pytest.approx(5 / 6)
    assert kendall_tau_b(ABCD, other)[0] == pytest.approx(5 / 30**0.5)


def test_variant_a_scores_a_tie_as_the_mean_over_its_orders():
    """Same other as above, tau_AP,a: the tie {B, C} at positions 2-3 is the mean over its two
    orders, [A, B, C, D] (tau_AP 1) and [A, C, B, D] (2/3): 5/6. By the formula: B and C have
    1 concordant system above, weighted (1/1 + 1/2) / 2 = 3/4, plus (1/2) / 2 / 2 = 1/8 for
    the pair within the group; D 3 * 1/3 = 1. Sum 2.75 → 2/3 * 2.75 - 1 = 5/6."""
    other = {"A": 4.0, "B": 2.0, "C": 2.0, "D": 1.0}
    assert tau_ap(ABCD, other, variant="a") == pytest.approx(5 / 6)
    with pytest.raises(ValueError, match="reference without ties"):
        tau_ap(other, ABCD, variant="a")


# The published example of Urbano and Marrero's R package ircor (README): ten systems.
X = [0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94]
Y = [0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94]


def scores(values):
    return {f"s{i}": v for i, v in enumerate(values)}


def test_the_values_of_the_published_ircor_example():
    """ircor: tauAP(x, y) = 0.7491182; y rounded to fifths, tauAP_a = 0.6074515; x rounded
    too, tau_b = 0.75 and tauAP_b = 0.6269841 (autojudge-evaluate's tauap_b is ircor's)."""
    y_ties = [round(v * 5) / 5 for v in Y]
    x_ties = [round(v * 5) / 5 for v in X]
    assert tau_ap(scores(X), scores(Y), variant="a") == pytest.approx(0.7491182, abs=1e-7)
    assert tau_ap(scores(X), scores(y_ties), variant="a") == pytest.approx(0.6074515, abs=1e-7)
    assert kendall_tau_b(scores(x_ties), scores(y_ties))[0] == pytest.approx(0.75)
    assert tau_ap(scores(x_ties), scores(y_ties)) == pytest.approx(0.6269841, abs=1e-7)


def test_kendall_tau_b_is_the_re_benchmarks_kendall_tau():
    before, after = {"a": 0.5, "b": 0.5, "c": 0.1}, {"a": 0.2, "b": 0.6, "c": 0.1}
    assert kendall_tau_b(before, after) == kendall_tau(before, after)
    assert kendall_tau_b(before, after)[0] == pytest.approx(2 / 6**0.5)


def test_top_k_tau_keeps_the_references_best_k_systems():
    """Reference A > B > C > D. Other D 5, A 4, B 3, C 1: D leaps to the top, but it is not
    in the reference's top 3, so kendall@3 compares A, B, C only: all concordant, 1. Over
    all four (tau-b): AB, AC, BC concordant, AD, BD, CD discordant → 0. Other A 3, B 4, C 1,
    D 2: the top 2 swap, kendall@2 = -1; top 3 has AB discordant, AC and BC concordant: 1/3."""
    leap = {"D": 5.0, "A": 4.0, "B": 3.0, "C": 1.0}
    assert kendall_at_k(ABCD, leap, 3) == pytest.approx(1.0)
    assert kendall_tau_b(ABCD, leap)[0] == pytest.approx(0.0)
    swap = {"A": 3.0, "B": 4.0, "C": 1.0, "D": 2.0}
    assert kendall_at_k(ABCD, swap, 2) == pytest.approx(-1.0)
    assert kendall_at_k(ABCD, swap, 3) == pytest.approx(1 / 3)
    assert kendall_at_k(ABCD, swap) == kendall_tau_b(ABCD, swap)[0]  # 4 systems <= 10


def test_top_k_breaks_a_tie_across_the_cut_by_name():
    """Reference A 3, B 2, C 2, D 1 with k = 2: B and C tie for second, B is kept (name).
    Other A 1, B 2, C 3, D 0: on {A, B} the order flips, -1 (on {A, C} it would flip too)."""
    reference = {"A": 3.0, "B": 2.0, "C": 2.0, "D": 1.0}
    other = {"A": 1.0, "B": 2.0, "C": 3.0, "D": 0.0}
    assert kendall_at_k(reference, other, 2) == pytest.approx(-1.0)
    assert kendall_at_k(reference, {"A": 2.0, "B": 2.0, "C": 3.0, "D": 0.0}, 2) is None
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        kendall_at_k(reference, other, 0)
