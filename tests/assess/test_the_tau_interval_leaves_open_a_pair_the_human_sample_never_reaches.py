"""Kendall's tau interval counts a system pair as settled only when the sample measures its
difference: two systems whose top 10 holds no audited pair have a GREG variance of 0 (a sum
over the sampled pairs), so their simultaneous interval had no width and the pair counted as
surely ordered, while their paired difference (difference_interval) spans its whole range.
Such a pair is settled only by its range (no database)."""

import pytest

from assess.evaluation.interval_comparisons import difference_interval, kendall_tau_interval
from assess.evaluation.intervals import PooledLabel, refined_intervals

# q1: fixed d1 relevant; d2 agreed relevant, d3 agreed not relevant, neither drawn; d4 agreed
# relevant and audited (human 1), ranked by neither u1 (d1, d2) nor u2 (d1, d3).
FIXED = {"q1": {"d1": 1}}
POOL = [
    PooledLabel("q1", "d2", 1, None, "label 1, round 1", False, 0.5),
    PooledLabel("q1", "d3", 0, None, "label 0, round 1", False, 0.5),
    PooledLabel("q1", "d4", 1, 1, "label 1, round 1", True, 0.5),
]
RUNS = {"u1": {"q1": ["d1", "d2"]}, "u2": {"q1": ["d1", "d3"]}}


def test_a_pair_of_unseen_systems_stays_open_unless_its_range_settles_it():
    found = refined_intervals(runs=RUNS, fixed=FIXED, pool=POOL, queries=["q1"], measures=["P@10"])
    assert found.unseen == {("P@10", "u1"), ("P@10", "u2")}
    # P@10: u1 0.2 (d1, d2 relevant), u2 0.1; each 0.1 to 0.2 as d2, d3 fall. The difference
    # spans 0.1 - 0.2 = -0.1 to 0.2 - 0.1 = 0.1: the order is open.
    diff = difference_interval(found, "u1", "u2", "P@10")
    assert (diff.estimate, diff.low, diff.high) == pytest.approx((0.1, -0.1, 0.1))
    # Original u1 below u2, refined above: tau-b -1 over one pair. Open, it may be -1 or +1
    # (tau_b_bounds with agree 0, one open untied pair); it was (-1, -1, -1).
    tau = kendall_tau_interval(found, {"u1": 0.1, "u2": 0.3}, measure="P@10")
    assert tau == pytest.approx((-1.0, -1.0, 1.0))


def test_a_range_that_excludes_zero_still_settles_the_pair():
    # u3 ranks d1, d2 and the fixed relevant d5 and d6: 0.3 to 0.4 as d2 falls; u2 0.1 to
    # 0.2. The difference lies in 0.3 - 0.2 = 0.1 to 0.4 - 0.1 = 0.3, which excludes 0.
    fixed = {"q1": {"d1": 1, "d5": 1, "d6": 1}}
    runs = {"u3": {"q1": ["d1", "d2", "d5", "d6"]}, "u2": {"q1": ["d1", "d3"]}}
    found = refined_intervals(runs=runs, fixed=fixed, pool=POOL, queries=["q1"], measures=["P@10"])
    diff = difference_interval(found, "u3", "u2", "P@10")
    assert (diff.low, diff.high) == pytest.approx((0.1, 0.3))
    # Original u3 above u2, refined too: settled and concordant, tau-b 1 surely.
    assert kendall_tau_interval(found, {"u3": 0.5, "u2": 0.3}, measure="P@10") == pytest.approx(
        (1.0, 1.0, 1.0)
    )
