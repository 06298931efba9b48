"""The audit's estimate of agreed-but-wrong labels: the share of audited pairs where the
human label differs from the consensus, with a 95% Wilson score interval.

Hand-worked: 0 errors in 10: upper bound z^2 / (n + z^2) = 3.8415 / 13.8415 = 0.2775.
1 error in 50: p = 0.02, centre = (0.02 + 3.8415/100) / (1 + 3.8415/50) = 0.05428,
half width = 1.96 / 1.07683 * sqrt(0.02 * 0.98 / 50 + 3.8415 / 10000) = 0.05071,
so (0.00354, 0.10495).
"""

import math

import pytest

from assess.review.agreement import audit_error_rate
from core.proportions import Z_95, wilson_interval


def test_no_error_in_ten_gives_zero_to_0_2775():
    result = wilson_interval(0, 10)
    assert result.estimate == 0.0
    assert result.low == 0.0
    assert result.high == pytest.approx(Z_95**2 / (10 + Z_95**2))
    assert result.high == pytest.approx(0.2775, abs=5e-5)


@pytest.mark.parametrize("n", [10, 85, 1000, 2323])
def test_no_error_gives_a_lower_end_of_exactly_zero_and_all_errors_an_upper_end_of_one(n):
    # Rounding once left 3.5e-18 at n = 85, which the API printed as such.
    assert wilson_interval(0, n).low == 0.0
    assert wilson_interval(n, n).high == 1.0
    assert audit_error_rate([(1, 1)] * n, inclusion=[0.5] * (n - 1) + [0.25]).low == 0.0


def test_one_error_in_fifty_gives_0_0035_to_0_1050():
    result = wilson_interval(1, 50)
    assert result.estimate == pytest.approx(0.02)
    assert result.low == pytest.approx(0.00354, abs=5e-6)
    assert result.high == pytest.approx(0.10495, abs=5e-6)
    assert result.confidence == 0.95


def test_the_audit_counts_pairs_where_human_and_consensus_differ():
    pairs = [(1, 1)] * 45 + [(0, 1)] + [(0, 0)] * 4
    result = audit_error_rate(pairs)
    assert (result.successes, result.n) == (1, 50)
    assert result.low == pytest.approx(0.00354, abs=5e-6)


def test_no_audited_pair_gives_no_estimate_and_bad_counts_are_refused():
    empty = audit_error_rate([])
    assert (empty.n, empty.estimate, empty.low, empty.high) == (0, None, None, None)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_a_neyman_audits_error_rate_weighs_each_pair_by_its_inverse_inclusion():
    # One wrong pair drawn at 1/2 and two right ones drawn at 1/10: the audit saw 1 of 3
    # wrong, but among the agreed labels the wrong ones are 2 / (2 + 10 + 10) = 1/11. The
    # Wilson interval is taken at Kish's effective size 22^2 / (4 + 100 + 100) = 2.3725 (the
    # smaller: the design-based one is 12.7).
    pairs = [(0, 1), (1, 1), (1, 1)]
    got = audit_error_rate(pairs, inclusion=[0.5, 0.1, 0.1])
    n_eff, p, z2 = 22**2 / 204, 1 / 11, 1.959964**2
    centre = (p + z2 / (2 * n_eff)) / (1 + z2 / n_eff)
    half = 1.959964 / (1 + z2 / n_eff) * math.sqrt(p * (1 - p) / n_eff + z2 / (4 * n_eff**2))
    assert (got.successes, got.n, got.weighted) == (1, 3, True)
    assert got.estimate == pytest.approx(1 / 11)
    assert got.low == pytest.approx(max(0.0, centre - half), abs=1e-6)
    assert got.high == pytest.approx(centre + half, abs=1e-6)
    # Equal probabilities (a proportional audit): the plain share and its Wilson interval.
    assert audit_error_rate(pairs, inclusion=[0.1, 0.1, 0.1]) == audit_error_rate(pairs)
