"""The audit's error rate treats a drawn audit not judged yet as missing at random within its
weighting class (its stratum's audits of the same inclusion probability; under a Neyman
audit, one unit once the second phase is drawn), as the intervals do: each judged audit's
probability is scaled by its class's response rate (assess.review.agreement).

Before, a judged pair weighed only 1 / its final probability. Once a Neyman second phase
raised every probability of an error-prone unit, its pilot pairs weighed less while their
phase-2 companions waited, and the error rate fell with no new judgment (0.164 to 0.107 on
a user's job; 0.121 once phase 2 was judged).

By hand, two units piloted at 0.1: A, 4 judged and 3 wrong, raised to 0.3 (12 drawn); B, 6
judged and 1 wrong, raised to 0.2 (12 drawn). While phase 2 waits A's judged pairs stand
for 12 / 0.3 = 40 agreed labels, B's for 12 / 0.2 = 60: (40 x 3/4 + 60 x 1/6) / 100 = 0.4,
the pilot's plain share 4 / 10 (here each unit's drawn pairs over its probability equal its
pilot's, 4 / 0.1 and 6 / 0.1). The final probabilities alone gave (3 / 0.3 + 1 / 0.2) /
(4 / 0.3 + 6 / 0.2) = 15 / 43.33 = 0.346."""

import pytest

from assess.review.agreement import audit_error_rate, audit_response_inclusions

# (human label or None, consensus) per drawn audit: the consensus is 1, a human 0 is wrong.
PILOT_A = [(0, 1)] * 3 + [(1, 1)]
PILOT_B = [(0, 1)] + [(1, 1)] * 5


def _drawn(phase_2_a, phase_2_b):
    pairs = PILOT_A + phase_2_a + PILOT_B + phase_2_b
    inclusion = [0.3] * (4 + len(phase_2_a)) + [0.2] * (6 + len(phase_2_b))
    units = ["A"] * (4 + len(phase_2_a)) + ["B"] * (6 + len(phase_2_b))
    return pairs, inclusion, units


def test_while_phase_2_waits_the_estimate_is_the_pilots_plain_share():
    pairs, inclusion, units = _drawn([(None, 1)] * 8, [(None, 1)] * 6)

    got = audit_error_rate(pairs, inclusion=inclusion, strata=units)

    assert (got.successes, got.n) == (4, 10)
    assert got.estimate == pytest.approx(0.4)
    # Every judged pair weighs 10 (0.3 x 4/12 = 0.2 x 6/12 = 0.1): the plain share and its
    # Wilson interval, unweighted.
    assert got == audit_error_rate(PILOT_A + PILOT_B)
    # What the final probabilities alone gave, the unjudged audits left out.
    judged = [(p, pi) for p, pi in zip(pairs, inclusion, strict=True) if p[0] is not None]
    before = audit_error_rate([p for p, _ in judged], inclusion=[pi for _, pi in judged])
    assert before.estimate == pytest.approx(15 / (40 / 3 + 30))


def test_once_phase_2_is_judged_the_estimate_weighs_each_pair_by_its_final_probability():
    # A's 8 new pairs: 5 wrong; B's 6 new: 1 wrong. All judged, every response rate is 1.
    pairs, inclusion, units = _drawn([(0, 1)] * 5 + [(1, 1)] * 3, [(0, 1)] + [(1, 1)] * 5)

    got = audit_error_rate(pairs, inclusion=inclusion, strata=units)

    # (8 / 0.3 + 2 / 0.2) / (12 / 0.3 + 12 / 0.2) = (26.67 + 10) / 100.
    assert (got.successes, got.n, got.weighted) == (10, 24, True)
    assert got.estimate == pytest.approx((8 / 0.3 + 2 / 0.2) / 100)
    assert got == audit_error_rate(pairs, inclusion=inclusion)


def test_half_judged_phase_2_scales_each_unit_by_its_own_response_rate():
    # A: 2 of its 8 new pairs judged, both wrong (6 of 12 judged, 5 wrong); B: all judged, 2
    # wrong. A's judged pairs still stand for 40 labels, B's for 60.
    pairs, inclusion, units = _drawn([(0, 1)] * 2 + [(None, 1)] * 6, [(0, 1)] + [(1, 1)] * 5)

    got = audit_error_rate(pairs, inclusion=inclusion, strata=units)

    assert (got.successes, got.n) == (7, 18)
    assert got.estimate == pytest.approx((40 * 5 / 6 + 60 * 2 / 12) / 100)
    # Weights 1 / (0.3 x 6/12) = 20/3 for A's six, 1 / 0.2 = 5 for B's twelve.
    assert got.n_effective == pytest.approx(100**2 / (6 * (20 / 3) ** 2 + 12 * 5**2))


def test_a_class_is_a_stratum_and_a_probability_and_an_unanswered_one_joins_the_nearest():
    answered = [True, True, False, False, True, False, False, False]
    inclusion = [0.2, 0.2, 0.25, 0.25, 0.2, 0.2, 0.5, 0.5]
    strata = ["S", "S", "S", "S", "T", "T", "U", "U"]

    got = audit_response_inclusions(answered, inclusion, strata=strata)

    # S: the 0.25 class has no answer and joins 0.2: 2 of 4 answered. T, at the same 0.2:
    # 1 of 2. U: nothing answered, nothing to weigh, unchanged.
    assert got == pytest.approx([0.1, 0.1, 0.125, 0.125, 0.1, 0.1, 0.5, 0.5])


def test_without_unjudged_audits_nothing_changes():
    pairs = [(0, 1), (1, 1), (1, 1)]
    assert audit_error_rate(pairs, inclusion=[0.5, 0.1, 0.1], strata=["x", "y", "y"]) == (
        audit_error_rate(pairs, inclusion=[0.5, 0.1, 0.1])
    )
    assert audit_error_rate(pairs, inclusion=[0.5, 0.1, 0.1]).estimate == pytest.approx(1 / 11)
