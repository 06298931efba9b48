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

from assess.review.agreement import (
    audit_error_rate,
    audit_response_inclusions,
    audit_strata_collapse,
)

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

    # S: the 0.25 class has no answer and joins 0.2; the group's drawn pairs weigh
    # 2 / 0.2 + 2 / 0.25 = 18, its answered ones 2 / 0.2 = 10: factor 10/18, so 0.2 becomes
    # 2/18 (weight 9, the two answered weigh 18) and 0.25 becomes 2.5/18. T, at the same 0.2:
    # 1 of 2. U: nothing answered, nothing to weigh, unchanged.
    assert got == pytest.approx([2 / 18, 2 / 18, 2.5 / 18, 2.5 / 18, 0.1, 0.1, 0.5, 0.5])


def test_a_joined_class_weighs_its_judged_pairs_to_the_drawn_pairs_weight_not_their_count():
    # S0: unit A, 20 drawn at 0.5, none judged; unit B, 2 drawn at 0.02, both judged and
    # wrong. S1: 10 judged at 0.05, none wrong.
    pairs = [(None, 1)] * 20 + [(0, 1)] * 2 + [(1, 1)] * 10
    inclusion = [0.5] * 20 + [0.02] * 2 + [0.05] * 10
    strata = ["S0"] * 22 + ["S1"] * 10

    got = audit_error_rate(pairs, inclusion=inclusion, strata=strata)

    # A joins B. S0's drawn pairs stand for 20 / 0.5 + 2 / 0.02 = 140 labels, its judged ones
    # for 2 / 0.02 = 100: factor 100/140, so B's pi 0.02 x 5/7 = 1/70 and each wrong pair
    # weighs 70. S1's ten weigh 20 each. Errors 140 of 140 + 200 = 340: 7/17 = 0.412. The
    # count rate 2/22 made each B pair weigh 550 (S0 as 1,100 labels): 1100/1300 = 0.846.
    assert (got.successes, got.n, got.weighted) == (2, 12, True)
    assert got.estimate == pytest.approx(140 / 340)
    # Effective size: the design-based one (agreement.audit_effective_size), below Kish's
    # 340^2 / (2 x 70^2 + 10 x 20^2) = 8.377 as the errors sit in the heavy pairs:
    # v = (2 x (69/70) x 70^2 x (10/17)^2 + 10 x 0.95 x 20^2 x (7/17)^2) / 340^2 = 0.034488,
    # p (1 - p) = 70/289, so 7.0231.
    variance = (2 * (69 / 70) * 70**2 * (10 / 17) ** 2 + 10 * 0.95 * 400 * (7 / 17) ** 2) / 340**2
    assert got.n_effective == pytest.approx((70 / 289) / variance)
    assert got.n_effective == pytest.approx(7.0231, abs=1e-4)
    scaled = audit_response_inclusions([p[0] is not None for p in pairs], inclusion, strata=strata)
    assert scaled[20:22] == pytest.approx([1 / 70, 1 / 70])
    assert scaled[0] == pytest.approx(0.5 * 5 / 7)
    assert scaled[22:] == pytest.approx([0.05] * 10)


def test_without_unjudged_audits_nothing_changes():
    pairs = [(0, 1), (1, 1), (1, 1)]
    assert audit_error_rate(pairs, inclusion=[0.5, 0.1, 0.1], strata=["x", "y", "y"]) == (
        audit_error_rate(pairs, inclusion=[0.5, 0.1, 0.1])
    )
    assert audit_error_rate(pairs, inclusion=[0.5, 0.1, 0.1]).estimate == pytest.approx(1 / 11)


def test_a_stratum_with_no_judged_audit_is_counted_at_its_same_label_siblings_rate():
    # S and T agreed "relevant", U "not relevant", all drawn at 0.1. S: 4 judged, 2 wrong; T:
    # 2 drawn, none judged yet; U: 4 judged, none wrong. T joins S, as the intervals merge
    # it: S's class then has 6 drawn and 4 answered, so its judged pairs weigh 15 each (60
    # agreed labels at S's rate 1/2), U's 10 (40 labels): 30 errors in 100 labels, 0.30.
    # Left out, T's labels would not count at all: 2 / 8 = 0.25.
    pairs = [(0, 1), (0, 1), (1, 1), (1, 1), (None, 1), (None, 1)] + [(0, 0)] * 4
    inclusion = [0.1] * 10
    strata = ["S"] * 4 + ["T"] * 2 + ["U"] * 4

    got = audit_error_rate(pairs, inclusion=inclusion, strata=strata)

    assert (got.successes, got.n, got.weighted) == (2, 8, True)
    assert got.estimate == pytest.approx(0.30)
    # Effective size: the design-based one, just below Kish's 100^2 / 1,300 = 7.692. S's
    # judged pairs at pi 0.1 x 4/6 = 1/15, U's at 0.1: v = ((14/15) x 15^2 x (2 x 0.7^2 +
    # 2 x 0.3^2) + 4 x 0.9 x 10^2 x 0.3^2) / 100^2 = 0.0276, p (1 - p) = 0.21: 7.6087.
    assert got.n_effective == pytest.approx(0.21 / 0.0276)


def test_a_waiting_stratum_joins_its_own_labels_sibling_and_without_one_stays_out():
    strata = ["S"] * 4 + ["T"] * 2 + ["U"] * 4
    # T agreed "not relevant" now: it joins U (rate 0), not S. S's four weigh 10 each (2
    # wrong); U's four stand for U and T, 6 drawn: 15 each. 20 errors in 100 labels.
    pairs = [(0, 1), (0, 1), (1, 1), (1, 1), (None, 0), (None, 0)] + [(0, 0)] * 4
    got = audit_error_rate(pairs, inclusion=[0.1] * 10, strata=strata)
    assert got.estimate == pytest.approx(20 / (40 + 60))

    # T agreed grade 2, which no judged stratum has: it stays, with nothing to weigh.
    alone = [(0, 1), (0, 1), (1, 1), (1, 1), (None, 2), (None, 2)] + [(0, 0)] * 4
    got = audit_error_rate(alone, inclusion=[0.1] * 10, strata=strata)
    assert got.estimate == pytest.approx(2 / 8)
    answered = [True] * 4 + [False] * 2 + [True] * 4
    assert audit_strata_collapse(answered, [1] * 4 + [2] * 2 + [0] * 4, strata) == strata


def test_a_graded_jobs_side_error_joins_a_waiting_stratum_by_grade_not_by_side():
    # "label 1": 4 judged, 2 wrong; "label 2": 2 waiting; "label 0": 4 judged, none wrong; all
    # at 0.1. By grade, label 2 has no judged sibling and stays out: 2 wrong of 8, 0.25. By
    # side it would join label 1 (both relevant) and count at its rate: 0.30.
    strata = ["label 1"] * 4 + ["label 2"] * 2 + ["label 0"] * 4
    grades = [(0, 1), (0, 1), (1, 1), (1, 1), (None, 2), (None, 2)] + [(0, 0)] * 4
    sides = [(None if h is None else int(h > 0), int(c > 0)) for h, c in grades]

    by_grade = audit_error_rate(
        sides, inclusion=[0.1] * 10, strata=strata, collapse_on=[c for _, c in grades]
    )
    by_side = audit_error_rate(sides, inclusion=[0.1] * 10, strata=strata)

    assert by_grade.estimate == pytest.approx(2 / 8)
    assert by_side.estimate == pytest.approx(0.30)
