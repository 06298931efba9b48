"""Stage 0's band: fixed-sequence testing per side at delta / 2 (debates.stage0_band)."""

import math

import pytest
from scipy.stats import binom

from debates.stage0_band import band_choose, band_load, labels_needed


def test_labels_needed_is_the_smallest_n_with_no_error_rejecting_at_half_delta():
    # (0.9)^28 = 0.0523 > 0.05, (0.9)^29 = 0.0471 <= 0.05
    assert labels_needed(alpha=0.1, delta=0.1) == 29
    assert 0.9**28 > 0.05 >= 0.9**29
    # alpha 0.2, delta 0.2: (0.8)^n <= 0.1 -> n = 11 (0.8^10 = 0.107)
    assert labels_needed(alpha=0.2, delta=0.2) == 11


def test_thirty_confident_correct_pairs_set_the_high_side_and_nothing_below():
    p = [0.999] * 30 + [0.4] * 10
    y = [1] * 30 + [1] * 5 + [0] * 5
    band = band_choose(p, y, alpha=0.1, delta=0.1)
    # At every threshold from 0.995 down to 0.505 (the grid's end: a pair at 0.5 is always
    # debated) the same 30 pairs settle with 0 errors: p-value 0.9^30 = 0.0424 <= 0.05.
    assert band.high.bound == 0.505
    assert band.high.settled == 30 and band.high.errors == 0
    assert band.high.p_value == pytest.approx(0.9**30)
    # The low side: at threshold 0.005 nothing settles (p-value 1): it stops at once.
    assert band.low.bound is None
    assert band.label_of(0.7) == 1 and band.label_of(0.2) is None
    assert band.settles


def test_an_error_among_the_confident_pairs_stops_the_walk_where_it_enters():
    # 40 pairs at 0.99 all relevant; 10 at 0.9 of which 6 non-relevant.
    p = [0.99] * 40 + [0.9] * 10
    y = [1] * 40 + [1] * 4 + [0] * 6
    band = band_choose(p, y, alpha=0.1, delta=0.1)
    # At t = 0.99: n 40, k 0, p-value 0.9^40 = 0.0148 -> rejected. At t = 0.9 (reached once
    # the grid passes 0.9): n 50, k 6, P(Bin(50, 0.1) <= 6) = 0.770 -> not rejected: stop.
    assert band.high.bound == 0.905
    assert band.high.settled == 40
    assert float(binom.cdf(6, 50, 0.1)) > 0.05
    assert band.label_of(0.95) == 1 and band.label_of(0.9) is None


def test_too_few_labels_settle_nothing_and_say_how_many_more():
    band = band_choose([0.99] * 12, [1] * 12, alpha=0.1, delta=0.1)
    assert not band.settles
    assert band.needed == 29
    assert "needs at least 29" in band.message and "17 more" in band.message


def test_the_band_survives_its_json_round_trip():
    band = band_choose([0.01] * 30 + [0.99] * 30, [0] * 30 + [1] * 30)
    again = band_load(band.dump())
    assert again == band
    assert again.low.bound == 0.495 and again.high.bound == 0.505


@pytest.mark.parametrize(
    "p, y, words",
    [
        ([0.5], [1, 0], "differ in length"),
        ([1.5], [1], "[0, 1]"),
        ([0.5], [2], "0 or 1"),
    ],
)
def test_bad_input_is_refused_with_words(p, y, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        band_choose(p, y)


def test_the_guarantee_holds_over_seeded_replications():
    """Over 300 seeded calibration sets from a judge whose errors are known, the settled
    labels' true error rate exceeds alpha in at most delta of them (with binomial slack)."""
    import random

    alpha, delta, failures, reps = 0.1, 0.1, 0, 300
    # A judge: p uniform on [0, 1]; the true P(relevant | p) is p itself (perfectly
    # calibrated), so the error of settling relevant at p >= t is the mean of 1 - p there.
    for seed in range(reps):
        rng = random.Random(seed)
        p = [rng.random() for _ in range(400)]
        y = [1 if rng.random() < s else 0 for s in p]
        band = band_choose(p, y, alpha=alpha, delta=delta)
        errs = []
        if band.high.bound is not None:
            t = band.high.bound
            errs.append(((1 - t) / 2, 1 - t))  # mean error above t, mass above t
        if band.low.bound is not None:
            t = band.low.bound
            errs.append((t / 2, t))
        mass = sum(m for _, m in errs)
        if mass and sum(e * m for e, m in errs) / mass > alpha:
            failures += 1
    # delta = 0.1 bounds the failure rate; 300 replications: allow 3 binomial SDs above it.
    assert failures / reps <= delta + 3 * math.sqrt(delta * (1 - delta) / reps)


def test_a_band_that_settles_nothing_says_how_many_labels_would_let_it_or_that_none_would():
    """With enough labels to test but none rejected, the words say what each side saw beyond
    its most confident testable threshold and, where that error rate is below alpha, about
    how many human labels in all would reject at that rate: 2 errors in 29 (6.9%) need m =
    215 pairs beyond the threshold, the first m with P(Bin(m, 0.1) <= floor(2 m / 29)) <=
    0.05 (0.0496 with 14 errors; at 214, 0.0519), so 60 * 215 / 29 -> 445 labels in all,
    385 more. A side at or above alpha needs a better judge, whatever the number of
    labels."""
    from scipy.stats import binom

    p = [0.01 * i for i in range(1, 41)] + [0.9] * 20
    y = [0] * 40 + [1] * 20
    y[0] = y[3] = 1  # two errors among the most confident "non-relevant" pairs
    tails = [binom.cdf(2 * m // 29, m, 0.1) for m in range(29, 216)]
    assert tails[-1] <= 0.05 < min(tails[:-1])
    band = band_choose(p, y)
    assert not band.settles
    assert band.message == (
        "stage 0 settles nothing: on 60 human labels no threshold keeps its error <= 0.1 with "
        "probability >= 0.9; beyond its most confident testable threshold the non-relevant "
        "side saw 2 errors in 29 pairs (7%): at those rates about 445 human labels in all "
        "(385 more) would let a side settle, or a better judge fewer"
    )
    y[5] = y[7] = 1  # 4 errors in 29 (14%): above alpha
    assert band_choose(p, y).message.endswith(
        "the non-relevant side saw 4 errors in 29 pairs (14%): at those rates no number of "
        "human labels lets a side settle; it needs a better judge"
    )
