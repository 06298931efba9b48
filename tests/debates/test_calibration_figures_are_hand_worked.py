"""ECE with equal-mass bins, Brier score and reliability bins (debates.calibration),
hand-worked."""

from __future__ import annotations

import pytest

from debates.calibration import (
    ReliabilityBin,
    brier_score,
    calibration_summary,
    expected_calibration_error,
    reliability_bins,
)

P = (0.8, 0.1, 0.6, 0.3)  # unsorted on purpose
Y = (1, 0, 1, 1)


def test_four_points_in_two_equal_mass_bins():
    # Sorted: (0.1, 0), (0.3, 1) | (0.6, 1), (0.8, 1).
    assert reliability_bins(P, Y, 2) == (
        ReliabilityBin(count=2, mean_p=pytest.approx(0.2), observed=0.5),
        ReliabilityBin(count=2, mean_p=pytest.approx(0.7), observed=1.0),
    )
    # 2/4 * |0.5 - 0.2| + 2/4 * |1.0 - 0.7| = 0.15 + 0.15
    assert expected_calibration_error(P, Y, 2) == pytest.approx(0.3)
    # (0.04 + 0.01 + 0.16 + 0.49) / 4
    assert brier_score(P, Y) == pytest.approx(0.175)


def test_one_bin_compares_the_mean_with_the_base_rate():
    # mean p 0.45, observed 0.75
    assert expected_calibration_error(P, Y, 1) == pytest.approx(0.3)


def test_equal_probabilities_stay_in_one_bin():
    bins = reliability_bins((0.5, 0.5, 0.5, 0.9), (0, 1, 1, 1), 2)
    assert bins == (
        ReliabilityBin(count=3, mean_p=0.5, observed=pytest.approx(2 / 3)),
        ReliabilityBin(count=1, mean_p=0.9, observed=1.0),
    )


def test_perfect_forecasts_score_zero():
    summary = calibration_summary((0.0, 1.0, 1.0), (0, 1, 1), 10)
    assert (summary.n, summary.ece, summary.brier) == (3, 0.0, 0.0)
    assert [b.count for b in summary.bins] == [1, 2]


@pytest.mark.parametrize(
    ("p", "y", "words"),
    [
        ((0.5,), (1, 0), "differ in length: 1 probabilities, 2 outcomes"),
        ((), (), "no points"),
        ((1.2,), (1,), "p[0] = 1.2 is not a probability in [0, 1]"),
        ((0.5,), (2,), "y[0] = 2 is not an outcome 0 or 1"),
    ],
)
def test_bad_input_is_refused_with_words(p, y, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        calibration_summary(p, y)
