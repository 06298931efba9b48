"""Kendall's tau between the original leaderboard and the refined estimates, with an interval
from simultaneous (Bonferroni) intervals on every system pair's difference: pairs whose
interval excludes 0 keep their estimated order, the others may go either way. Worked by hand
on a human sample of five pairs alike (no database)."""

import math

import numpy as np
import pytest
from scipy.stats import t as student_t

from assess.evaluation.interval_comparisons import (
    PairComparison,
    kendall_tau_interval,
    sign,
    tau_b_bounds,
)
from assess.evaluation.intervals import HumanSample, Interval, SystemIntervals

# Five sampled pairs, the fewest an interval rests on (assess.evaluation.interval_range.
# MIN_BEARING): with fewer every pair below would be open.
PAIRS = 5


def three_systems(v: float) -> SystemIntervals:
    """Estimates s1 0.9, s2 0.5, s3 0.45 with five sampled pairs alike (pi = 1/2, residual
    0, cell variance ``v``) whose slopes are 0, 0.1 / sqrt(5) and -0.1 / sqrt(5): the
    difference a - b has variance 5 (1 - pi) / pi^2 * (slope_a - slope_b)^2 * v = 2 v (0.1
    or 0.2)^2, as one pair of slopes 0, 0.1 and -0.1 would give, on n_b = 5 pairs."""
    base = {"s1": 0.9, "s2": 0.5, "s3": 0.45}
    one = 0.1 / math.sqrt(PAIRS)
    slope = {"s1": [0.0] * PAIRS, "s2": [one] * PAIRS, "s3": [-one] * PAIRS}
    sample = HumanSample(
        [2.0] * PAIRS, [0.5] * PAIRS, [0.0] * PAIRS, [v] * PAIRS, [0.0] * PAIRS,
        [0] * PAIRS, ["label 1"] * PAIRS,
    )  # fmt: skip
    return SystemIntervals(
        method="ppi",
        n_human=1,
        queries=1,
        by_system={s: {"nDCG@10": Interval(x, x - 0.1, x + 0.1, 1)} for s, x in base.items()},
        sample=sample,
        slope={"nDCG@10": slope},
        base={"nDCG@10": base},
    )


def test_settled_pairs_keep_their_order_and_the_open_one_goes_either_way():
    # v = 1/4: sd(s1 - s2) = sd(s1 - s3) = 0.0707, sd(s2 - s3) = 0.1414. Three pairs at
    # 95% together, each on n_b = 5 pairs: the t quantile on 4 degrees of freedom at
    # 1 - 0.05 / 6, 3.961, each. s1 - s2 = 0.40 and s1 - s3 = 0.45 are settled, s2 - s3 =
    # 0.05 (+-0.560) is not. The original order is s1, s3, s2: tau = (2 - 1) / 3, and the
    # open pair may agree or not: [(2 - 1) / 3, (2 + 1) / 3].
    z = student_t.ppf(1 - 0.05 / 6, PAIRS - 1)
    assert z == pytest.approx(3.961, abs=1e-3)
    assert 0.40 > z * math.sqrt(0.005) and 0.05 < z * math.sqrt(0.02)
    tau, low, high = kendall_tau_interval(three_systems(0.25), {"s1": 0.8, "s2": 0.3, "s3": 0.35})
    assert (tau, low, high) == pytest.approx((1 / 3, 1 / 3, 1.0))


def test_with_nothing_settled_tau_can_be_anything():
    # v = 4: sd(s1 - s2) = 0.283, 3.961 of them = 1.12 > 0.45: no pair is settled.
    tau, low, high = kendall_tau_interval(three_systems(4.0), {"s1": 0.8, "s2": 0.3, "s3": 0.35})
    assert (tau, low, high) == pytest.approx((1 / 3, -1.0, 1.0))


def test_a_pair_tied_on_the_original_leaderboard_counts_for_neither_side_but_may_tie_again():
    # s2 and s3 tied originally: tau-b = 2 / sqrt(2 * 3) whatever their refined order. Their
    # difference is open (0.05 +- 0.560), so the perfect assessor's values may tie them too
    # (near-identical systems do tie exactly): then n2 = 1 and tau-b = 2 / sqrt(2 * 2) = 1,
    # which the interval must hold.
    tau, low, high = kendall_tau_interval(three_systems(0.25), {"s1": 0.8, "s2": 0.3, "s3": 0.3})
    assert (tau, low, high) == pytest.approx((2 / math.sqrt(6), 2 / math.sqrt(6), 1.0))


def test_the_bounds_take_every_way_an_open_pair_can_fall_ties_included():
    # Four systems, six pairs, one tied on the first side; of the five untied, four are
    # settled (C - D = 2) and one is open; the tied one is open too. tau-b = (C - D) /
    # sqrt((6 - 1) * (6 - n2)). Highest: the open untied pair concordant and the tied one
    # tied again, 3 / sqrt(5 * 5) = 0.6 (untied on the refined side: 3 / sqrt(30) = 0.548).
    # Lowest: the open pair discordant, nothing tied again, 1 / sqrt(30).
    low, high = tau_b_bounds(agree=2, open_untied=1, open_tied=1, pairs=6, tied_before=1)
    assert (low, high) == pytest.approx((1 / math.sqrt(30), 0.6))
    # The mirror image: C - D = -2.
    low, high = tau_b_bounds(agree=-2, open_untied=1, open_tied=1, pairs=6, tied_before=1)
    assert (low, high) == pytest.approx((-0.6, -1 / math.sqrt(30)))
    # No tie anywhere: the bounds of tau without ties, (C - D -+ open) / n0.
    low, high = tau_b_bounds(agree=1, open_untied=2, open_tied=0, pairs=3, tied_before=0)
    assert (low, high) == pytest.approx((-1 / 3, 1.0))
    with pytest.raises(ValueError, match="ties every pair"):
        tau_b_bounds(agree=0, open_untied=0, open_tied=1, pairs=1, tied_before=1)


def test_the_interval_covers_the_true_tau_where_a_percentile_interval_did_not():
    """20 systems 0.01 apart with standard errors of 0.01 (independent): the true refined
    order is the original one (tau = 1). Over 200 seeded replications the interval holds
    tau = 1 in at least 95% of them (the percentile interval it replaces: 0%)."""
    rng = np.random.default_rng(7)
    truth = {f"s{i:02d}": 0.5 + 0.01 * i for i in range(20)}
    names = sorted(truth)
    covered = 0
    for _ in range(200):
        noise = rng.normal(0, 0.01, size=(20,))
        # One sampled pair per system (pi = 1/2, v = 1/2): var(a - b) = 2 * v * (s_a^2 + s_b^2)
        # = 0.01^2 + 0.01^2 with slopes 0.01 on each system's own pair.
        sample = HumanSample([2.0] * 20, [0.5] * 20, [0.0] * 20, [0.5] * 20, [0.0] * 20,
                             list(range(20)), ["label 1"] * 20)  # fmt: skip
        slope = {n: [0.01 if j == i else 0.0 for j in range(20)] for i, n in enumerate(names)}
        base = {n: truth[n] + noise[i] for i, n in enumerate(names)}
        found = SystemIntervals(
            method="ppi", n_human=20, queries=1,
            by_system={n: {"nDCG@10": Interval(x, x, x, 20)} for n, x in base.items()},
            sample=sample, slope={"nDCG@10": slope}, base={"nDCG@10": base},
        )  # fmt: skip
        _tau, low, high = kendall_tau_interval(found, truth)
        covered += low <= 1.0 <= high
    assert covered >= 190


def test_two_systems_tied_up_to_rounding_are_neither_settled_nor_ordered():
    # Means of 0.1, 0.2, 0.3 and 0.3, 0.2, 0.1 differ by float rounding (5.55e-17), not by a
    # ranking: a zero-width interval there is no settled order.
    noise = (0.1 + 0.2 + 0.3) / 3 - (0.3 + 0.2 + 0.1) / 3
    assert noise != 0 and abs(noise) < 1e-15
    tied = PairComparison("a", "b", Interval(noise, noise, noise, 1))
    assert not tied.settled
    assert PairComparison("a", "b", Interval(0.01, 0.005, 0.015, 1)).settled
    assert (sign(noise), sign(0.01), sign(-0.01)) == (0, 1, -1)


def test_a_leaderboard_tied_only_by_float_rounding_has_no_tau_rather_than_an_error():
    # 0.1 + 0.2 and 0.3 differ by 5.6e-17: one tie, not an order. With two systems every pair
    # is then tied before, so tau-b is undefined: None, as for any constant side (before,
    # scipy saw an order there and the bounds, seeing a tie, raised ValueError).
    two = three_systems(0.25)
    two.by_system.pop("s3")
    assert kendall_tau_interval(two, {"s1": 0.1 + 0.2, "s2": 0.3}) is None
    # With three, the rounding tie counts as the s2-s3 tie worked by hand above.
    found = kendall_tau_interval(three_systems(0.25), {"s1": 0.8, "s2": 0.1 + 0.2, "s3": 0.3})
    assert found == pytest.approx((2 / math.sqrt(6), 2 / math.sqrt(6), 1.0))
