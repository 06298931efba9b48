"""Paired significance tests round every per-query score to 1e-9 before differencing, so a
float-noise "change" (0.1 + 0.2 against 0.3) is no change: p = 1.0, "no query changed"."""

from assess.evaluation.metrics import paired_test


def test_point_one_plus_point_two_against_point_three_is_no_change():
    assert 0.1 + 0.2 != 0.3  # the noise under test: 0.30000000000000004
    before = [0.3, 0.5, 1.0]
    after = [0.1 + 0.2, 0.5, 1.0]
    test = paired_test(before, after)
    assert test.note == "no query changed"
    assert test.wilcoxon_p == 1.0
    assert test.t_p == 1.0
    assert test.wilcoxon_statistic is None and test.t_statistic is None
    assert test.mean_delta == 0.0
    assert test.n == 3


def test_a_single_noisy_query_is_no_change_either():
    test = paired_test([0.3], [0.1 + 0.2])
    assert (test.note, test.wilcoxon_p, test.t_p, test.mean_delta) == (
        "no query changed",
        1.0,
        1.0,
        0.0,
    )


def test_noise_next_to_real_changes_is_a_zero_difference_wilcoxon_drops():
    # Differences after rounding: 0 (noise), +0.1, +0.2, +0.3; Wilcoxon drops the zero, ranks
    # 1, 2, 3 all positive: W = min(W+, W-) = 0, exact two-sided p = 2 / 2**3 = 0.25.
    before = [0.3, 0.1, 0.2, 0.3]
    after = [0.1 + 0.2, 0.2, 0.4, 0.6]
    test = paired_test(before, after)
    assert test.wilcoxon_statistic == 0.0
    assert test.wilcoxon_p == 0.25
    assert test.note == ""
    # t on the rounded differences [0, .1, .2, .3]: mean .15, sd .1291, t = 2.3238
    assert round(test.t_statistic, 4) == 2.3238
    assert round(test.mean_delta, 12) == 0.15
