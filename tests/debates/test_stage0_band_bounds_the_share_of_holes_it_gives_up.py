"""Stage 0's band with beta: the non-relevant side also bounds the share of the relevant
pairs (holes) it settles, by an intersection-union test at the same level delta / 2
(debates.stage0_band)."""

import pytest

from debates.stage0_band import band_choose, band_load, relevant_needed


def test_relevant_needed_is_the_smallest_m_with_no_miss_rejecting_at_half_delta():
    # (0.9)^28 = 0.0523 > 0.05 >= (0.9)^29 = 0.0471
    assert relevant_needed(beta=0.1, delta=0.1) == 29
    # beta 0.2, delta 0.1: 0.8^13 = 0.0550 > 0.05 >= 0.8^14 = 0.0440
    assert relevant_needed(beta=0.2, delta=0.1) == 14
    assert relevant_needed(beta=1.0, delta=0.1) == 0


def test_twenty_nine_relevant_pairs_above_the_band_let_the_non_relevant_side_settle():
    # 200 non-relevant pairs at P 0.01, 29 relevant at 0.9: at every low threshold from
    # 0.01 to 0.495 the side settles the 200 with no error and no relevant pair below it,
    # so the miss p-value is P(Bin(29, 0.1) <= 0) = 0.9^29 = 0.0471 <= 0.05 and the error
    # p-value 0.9^200 is far smaller: the larger of the two is the side's p-value.
    p = [0.01] * 200 + [0.9] * 29
    y = [0] * 200 + [1] * 29
    band = band_choose(p, y, alpha=0.1, delta=0.1, beta=0.1)
    assert band.low.bound == 0.495
    assert (band.low.settled, band.low.errors, band.low.missed) == (200, 0, 0)
    assert band.low.p_value == pytest.approx(0.9**29)
    assert (band.beta, band.relevant, band.holes_bounded) == (0.1, 29, True)
    assert (
        "error <= 0.1 among settled labels and a chance of at most 0.1 that a relevant pair "
        "(hole) is settled non-relevant, with probability >= 0.9"
    ) in band.message


def test_twenty_eight_relevant_pairs_are_too_few_to_bound_the_holes_and_say_so():
    # 0.9^28 = 0.0523 > 0.05: even with no relevant pair below any threshold the miss
    # null cannot be rejected, so the side settles nothing though its error test passes.
    p = [0.01] * 200 + [0.9] * 28
    y = [0] * 200 + [1] * 28
    band = band_choose(p, y, alpha=0.1, delta=0.1, beta=0.1)
    assert band.low.bound is None
    assert band_choose(p, y, alpha=0.1, delta=0.1).low.bound == 0.495  # without beta
    # The words say the error test passed and the holes bound stopped the side.
    assert band.message == (
        "stage 0 settles nothing: on 228 human labels its non-relevant side would keep its "
        "error <= 0.1 (P(relevant) <= 0.495: 200 pairs, 0 of them relevant), but it must show "
        "that a relevant pair (hole) is settled non-relevant with a chance of at most 0.1, "
        "which needs at least 29 relevant pairs among its human labels; it has 28"
    )


def test_relevant_pairs_below_the_first_threshold_are_counted_and_the_labels_needed_estimated():
    # 200 non-relevant and 2 relevant pairs at P 0.01; 38 relevant and 10 non-relevant at 0.6.
    # The first testable non-relevant threshold, 0.01, holds 202 pairs, 2 of them relevant:
    # error p-value P(Bin(202, 0.1) <= 2) is tiny, but 2 of the 40 relevant labels lie there
    # and P(Bin(40, 0.1) <= 2) = 0.223 > 0.05: the side stops before it starts. 2 in 40 is
    # 5%, under beta, so more labels at that share would show it: the fewest m with
    # P(Bin(m, 0.1) <= floor(m / 20)) <= 0.05 is 76 (floor 3: 0.0470; m = 75: 0.0504), so
    # about 250 x 76 / 40 = 475 labels in all.
    p = [0.01] * 202 + [0.6] * 48
    y = [0] * 200 + [1] * 2 + [1] * 38 + [0] * 10
    band = band_choose(p, y, alpha=0.1, delta=0.1, beta=0.1)
    assert band.low.bound is None
    assert band.message.endswith(
        "but 2 of its 40 relevant labels lie at or below its first testable threshold "
        "(P(relevant) <= 0.01), too many to show a chance of at most 0.1 that a relevant pair "
        "(hole) is settled non-relevant; at that share about 475 human labels in all would "
        "show it"
    )
    # At a share of relevant pairs below the threshold of beta or more, no number does.
    worse = band_choose([0.01] * 204 + [0.6] * 36, [0] * 200 + [1] * 40, beta=0.1)
    assert worse.message.endswith(
        "at that share no number of labels shows it: it needs a better judge"
    )


def test_relevant_pairs_low_in_the_judges_scores_stop_the_walk_before_them():
    # 200 non-relevant pairs at 0.01; 30 relevant: 3 at P 0.2, 27 at 0.9.
    p = [0.01] * 200 + [0.2] * 3 + [0.9] * 27
    y = [0] * 200 + [1] * 30
    # Error alone: at t = 0.2 the side settles 203 pairs with 3 errors, P(Bin(203, 0.1)
    # <= 3) is about 1e-5: rejected, and so on to the grid's end 0.495.
    alone = band_choose(p, y, alpha=0.1, delta=0.1)
    assert (alone.low.bound, alone.low.settled, alone.low.errors) == (0.495, 203, 3)
    # With beta 0.1: below 0.2 no relevant pair, miss p-value 0.9^30 = 0.0424 <= 0.05; at
    # 0.2 three of the 30 relevant pairs fall below, P(Bin(30, 0.1) <= 3) = 0.647 > 0.05:
    # the walk stops, and the bound is the grid's step before, 0.195.
    band = band_choose(p, y, alpha=0.1, delta=0.1, beta=0.1)
    assert (band.low.bound, band.low.settled, band.low.errors, band.low.missed) == (
        0.195,
        200,
        0,
        0,
    )
    assert band.low.p_value == pytest.approx(0.9**30)
    assert band.label_of(0.2) is None and band.label_of(0.19) == 0
    # beta 0.3: at 0.2, P(Bin(30, 0.3) <= 3) = 0.0093 <= 0.05, so the side goes on to 0.495,
    # giving up 3 of 30 relevant pairs (10%, under the 30% allowed).
    loose = band_choose(p, y, alpha=0.1, delta=0.1, beta=0.3)
    assert (loose.low.bound, loose.low.missed) == (0.495, 3)


def test_beta_of_one_is_no_bound_and_the_relevant_side_never_tests_misses():
    p = [0.01] * 200 + [0.2] * 3 + [0.999] * 27
    y = [0] * 200 + [1] * 30
    off = band_choose(p, y, alpha=0.1, delta=0.1, beta=1.0)
    assert off.low == band_choose(p, y, alpha=0.1, delta=0.1).low
    assert off.low.missed is None and not off.holes_bounded
    on = band_choose(p, y, alpha=0.1, delta=0.1, beta=0.1)
    assert on.high.missed is None and on.high == off.high


def test_a_beta_of_zero_or_below_or_not_a_number_is_refused():
    for beta in (0.0, -0.1, float("nan")):
        with pytest.raises(ValueError, match="beta must be above 0"):
            band_choose([0.1], [0], beta=beta)


def test_a_band_stored_before_the_bound_existed_loads_as_not_bounded():
    stored = {
        "alpha": 0.1,
        "delta": 0.1,
        "n": 40,
        "low": {"bound": 0.3, "settled": 30, "errors": 0, "p_value": 0.04},
        "high": {"bound": None, "settled": 0, "errors": 0, "p_value": None},
        "needed": 29,
        "message": "stage 0 settles non-relevant when P(relevant) <= 0.3",
        "simulated": 0,
    }
    band = band_load(stored)
    assert (band.beta, band.relevant, band.low.missed, band.holes_bounded) == (None, 0, None, False)
    assert band_load(band.dump()) == band


def test_the_job_report_says_what_the_guarantee_bounds_at_its_beta():
    from assess.review.stage0_report import GUARANTEE_SCOPE, guarantee_scope

    assert guarantee_scope(1.0) == GUARANTEE_SCOPE  # not bounded: wrong labels only
    assert "not the relevant pairs (holes) it lost" in GUARANTEE_SCOPE
    assert guarantee_scope(0.1) == (
        "the guarantee bounds the error rate of stage 0's labels and the chance that a "
        "relevant pair (hole) is settled not relevant, at most 0.1, both for pairs like its "
        "band's human labels (a job's own shares scatter around them); the audit counts the "
        'holes its "not relevant" labels lost'
    )
