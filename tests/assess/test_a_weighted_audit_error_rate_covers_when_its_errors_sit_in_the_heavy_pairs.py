"""The weighted audit error rate's Wilson interval is taken at the smaller of Kish's effective
size and the design-based one (Korn and Graubard 1998; agreement.audit_effective_size). Kish's
alone assumes the errors are spread independently of the weights: where they sit in the pairs
of low probability, as in a Neyman audit whose error-prone unit still waits for its second
phase (its few judged pilot pairs weigh much), the interval at Kish's size covered the
agreed labels' error rate 83-84% of the time at a nominal 95%."""

import random

import pytest

from assess.review.agreement import audit_effective_size, audit_error_rate
from core.proportions import wilson_bounds


def test_the_effective_size_is_the_design_based_one_when_errors_sit_in_the_heavy_pairs():
    # One wrong and one right pair at 0.1 (weight 10 each), eight right pairs at 0.5 (2).
    # Total weight 36, p = 10/36 = 5/18. Kish: 36^2 / (2 x 100 + 8 x 4) = 1296 / 232 = 5.586.
    # Design-based: v = (0.9 x 100 x ((13/18)^2 + (5/18)^2) + 8 x 0.5 x 4 x (5/18)^2) / 36^2
    # = (17,860 / 324) / 1,296, p (1 - p) = 65 / 324: n = 65 x 1,296 / 17,860 = 4.7167.
    pairs = [(0, 1), (1, 1)] + [(1, 1)] * 8
    inclusion = [0.1, 0.1] + [0.5] * 8
    got = audit_error_rate(pairs, inclusion=inclusion)
    assert got.estimate == pytest.approx(5 / 18)
    assert got.n_effective == pytest.approx(65 * 1296 / 17860)
    assert (got.low, got.high) == pytest.approx(wilson_bounds(5 / 18, 65 * 1296 / 17860))
    assert audit_effective_size(inclusion, [True] + [False] * 9) == pytest.approx(4.71669, abs=1e-5)


def test_with_no_error_seen_kishs_size_stands():
    # v = 0: the design-based size says nothing. Weights 10 and 2 x 8: 26^2 / 132 = 5.1212.
    assert audit_effective_size([0.1] + [0.5] * 8, [False] * 9) == pytest.approx(676 / 132)


def test_the_interval_covers_a_neyman_audit_whose_error_prone_unit_waits_for_its_second_phase():
    # Unit A: 1,000 agreed labels, 30% wrong, drawn at 0.3, but only its pilot (draws below
    # 0.01) judged yet; unit B: 5,000 labels, 2% wrong, drawn at 0.05, all judged. The
    # estimand is the share wrong among all 6,000. 1,000 seeded replications: at a true 95%
    # the binomial standard deviation is 0.7 points; Kish's size alone gave 0.833.
    rng = random.Random(0)
    hits = 0
    for _ in range(1000):
        pairs, inclusion, units, wrong_total = [], [], [], 0
        for unit, size, rate, pi, judged_below in (
            ("A", 1000, 0.3, 0.3, 0.01),
            ("B", 5000, 0.02, 0.05, 1.0),
        ):
            for _ in range(size):
                wrong = rng.random() < rate
                wrong_total += wrong
                draw = rng.random()
                if draw < pi:
                    human = (0 if wrong else 1) if draw < judged_below else None
                    pairs.append((human, 1))
                    inclusion.append(pi)
                    units.append(unit)
        got = audit_error_rate(pairs, inclusion=inclusion, strata=units)
        hits += got.low <= wrong_total / 6000 <= got.high
    assert hits / 1000 >= 0.92
