"""Cohen's kappa and Krippendorff's alpha (nominal) on small hand-worked examples.

Four pairs judged by two annotators: (1,1), (0,0), (1,0), (1,1).
- kappa: p_o = 3/4; rater 1 says 1 three times in four, rater 2 twice; p_e = 3/4 * 2/4 +
  1/4 * 2/4 = 1/2; kappa = (3/4 - 1/2) / (1 - 1/2) = 1/2.
- alpha: coincidences o00 = 2, o11 = 4, o01 = o10 = 1 (n = 8, n0 = 3, n1 = 5);
  D_o = 2/8, D_e = 2 * 3 * 5 / (8 * 7) = 30/56; alpha = 1 - (2/8) / (30/56) = 8/15.
"""

import math

import pytest

from assess.review.agreement import cohen_kappa, krippendorff_alpha, majority_label, median

PAIRS = [(1, 1), (0, 0), (1, 0), (1, 1)]


def test_kappa_of_the_four_pairs_is_one_half():
    assert cohen_kappa(PAIRS) == pytest.approx(0.5)


def test_kappa_is_one_for_full_agreement_and_minus_one_for_systematic_opposition():
    assert cohen_kappa([(1, 1), (0, 0)]) == pytest.approx(1.0)
    assert cohen_kappa([(1, 0), (0, 1)]) == pytest.approx(-1.0)


def test_kappa_is_undefined_without_pairs_or_with_a_single_label():
    assert cohen_kappa([]) is None
    assert cohen_kappa([(1, 1), (1, 1)]) is None


def test_alpha_of_the_four_pairs_is_eight_fifteenths():
    units = {u: {"ann1": a, "ann2": b} for u, (a, b) in enumerate(PAIRS)}
    assert krippendorff_alpha(units) == pytest.approx(8 / 15)


def test_alpha_handles_three_raters_and_missing_labels():
    # Unit 1: (1, 1, 0) adds o11 = 1, o10 = o01 = 1 (pairs / (3 - 1)); unit 2: (0, 0) adds
    # o00 = 2; unit 3 has one label and is ignored. n = 5, n0 = 3, n1 = 2.
    # D_o = 2/5, D_e = 2 * 3 * 2 / (5 * 4) = 12/20; alpha = 1 - (2/5) / (12/20) = 1/3.
    units = {1: {"a": 1, "b": 1, "c": 0}, 2: {"a": 0, "b": 0}, 3: {"a": 1}}
    assert krippendorff_alpha(units) == pytest.approx(1 / 3)


def test_alpha_is_undefined_with_one_label_value_or_no_pairable_unit():
    assert krippendorff_alpha({1: {"a": 1, "b": 1}, 2: {"a": 1, "b": 1}}) is None
    assert krippendorff_alpha({1: {"a": 1}}) is None
    assert krippendorff_alpha({}) is None


def test_majority_and_median():
    assert majority_label([1, 0, 1]) == 1
    assert majority_label([1, 0]) is None
    assert majority_label([]) is None
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert median([]) is None
    assert not math.isnan(median([0.0]))
