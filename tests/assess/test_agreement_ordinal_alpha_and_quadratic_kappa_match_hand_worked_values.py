"""Ordinal agreement on grades 0..2, worked by hand, next to the nominal figures.

Five pairs judged by two annotators: (0,0), (1,2), (2,2), (1,1), (0,1).

- Quadratic weighted kappa (Cohen 1968; scikit-learn ``weights="quadratic"``), weights
  (i - j)^2: observed weighted disagreement (1 + 1) / 5 = 0.4; marginals rater 1 (0: 2,
  1: 2, 2: 1), rater 2 (0: 1, 1: 2, 2: 2); expected = (2*2*1 + 2*2*4 + 2*1*1 + 2*2*1 +
  1*1*4 + 1*2*1) / 25 = 32/25 = 1.28; kappa_w = 1 - 0.4/1.28 = 0.6875.
- Krippendorff's alpha, coincidences o00 = o11 = o22 = 2, o01 = o10 = o12 = o21 = 1;
  n0 = 3, n1 = 4, n2 = 3, n = 10.
  Ordinal: delta^2(0,1) = (3 + 4 - (3 + 4)/2)^2 = 12.25 = delta^2(1,2), delta^2(0,2) =
  (10 - (3 + 3)/2)^2 = 49; D_o = (2 * 12.25 + 2 * 12.25) / 10 = 4.9; D_e = (2*3*4*12.25 +
  2*4*3*12.25 + 2*3*3*49) / (10 * 9) = 1470/90; alpha = 1 - 4.9 * 90 / 1470 = 0.7.
  Nominal: D_o = 4/10, D_e = (2*12 + 2*12 + 2*9) / 90 = 66/90; alpha = 1 - 36/66 = 5/11.
"""

import pytest

from assess.review.agreement import cohen_kappa, krippendorff_alpha, weighted_kappa

PAIRS = [(0, 0), (1, 2), (2, 2), (1, 1), (0, 1)]
UNITS = {u: {"ann1": a, "ann2": b} for u, (a, b) in enumerate(PAIRS)}


def test_quadratic_weighted_kappa_is_0_6875():
    assert weighted_kappa(PAIRS) == pytest.approx(0.6875)


def test_ordinal_alpha_is_0_7_and_nominal_alpha_5_11ths():
    assert krippendorff_alpha(UNITS, level="ordinal") == pytest.approx(0.7)
    assert krippendorff_alpha(UNITS) == pytest.approx(5 / 11)


def test_on_binary_labels_weighted_kappa_equals_cohens_kappa():
    pairs = [(1, 1), (0, 0), (1, 0), (1, 1)]
    assert weighted_kappa(pairs) == pytest.approx(cohen_kappa(pairs)) == pytest.approx(0.5)


def test_one_grade_off_costs_less_than_two_grades_off():
    near = [(0, 0), (2, 2), (1, 1), (2, 1)]
    far = [(0, 0), (2, 2), (1, 1), (2, 0)]
    assert cohen_kappa(near) == pytest.approx(cohen_kappa(far))  # nominal: the same
    assert weighted_kappa(near) > weighted_kappa(far)


def test_undefined_without_pairs_or_with_one_grade_and_an_unknown_level_is_refused():
    assert weighted_kappa([]) is None
    assert weighted_kappa([(2, 2), (2, 2)]) is None
    with pytest.raises(ValueError, match="level must be 'nominal' or 'ordinal'"):
        krippendorff_alpha(UNITS, level="interval")
