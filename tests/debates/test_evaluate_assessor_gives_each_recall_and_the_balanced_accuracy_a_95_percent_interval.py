"""Forty gold pairs leave a balanced accuracy far from exact: each recall comes with its 95%
Wilson interval and the pairs behind it, the balanced accuracy with the MOVER interval of a
mean of two independent shares, in the command's JSON beside the figures it already gave."""

import pytest

from debates.assessment import ESCALATED, FAILED, assessor_scores
from debates.management.commands.evaluate_assessor import format_intervals, recalls_json

# Relevant: 3 right of 4 settled (one escalated); irrelevant: 2 right of 3 settled.
ROWS = [(1, 1), (1, 1), (1, 1), (1, 0), (1, ESCALATED), (0, 0), (0, 0), (0, 1), (0, FAILED)]


def test_the_recalls_have_wilson_intervals_and_their_mean_a_mover_interval():
    recalls = assessor_scores(ROWS).settled
    # Wilson, z = 1.96: 3/4 -> centre 0.6275, half width 0.3269.
    relevant = recalls.relevant_interval
    assert (relevant.successes, relevant.n) == (3, 4)
    assert (relevant.low, relevant.high) == pytest.approx((0.30064, 0.95441), abs=1e-5)
    irrelevant = recalls.irrelevant_interval
    assert (irrelevant.successes, irrelevant.n) == (2, 3)
    assert (irrelevant.low, irrelevant.high) == pytest.approx((0.20766, 0.93851), abs=1e-5)
    # MOVER: 0.70833 -/+ hypot of the distances to each recall's ends, halved:
    # hypot(0.45901, 0.44936) / 2 = 0.32117 below, hypot(0.27184, 0.20441) / 2 = 0.17006 above.
    assert recalls.balanced_accuracy == pytest.approx(0.70833, abs=1e-5)
    assert recalls.balanced_accuracy_interval == pytest.approx((0.38716, 0.87839), abs=1e-5)


def test_perfect_and_nil_recalls_keep_the_interval_inside_zero_and_one():
    recalls = assessor_scores([(1, 1)] * 5 + [(0, 1)] * 5).settled
    assert (recalls.relevant_interval.high, recalls.irrelevant_interval.low) == (1.0, 0.0)
    assert recalls.balanced_accuracy_interval == pytest.approx((0.28276, 0.71724), abs=1e-5)


def test_a_class_without_pairs_has_no_interval():
    recalls = assessor_scores([(1, 1), (0, ESCALATED)]).settled
    assert recalls.balanced_accuracy_interval is None
    assert recalls.irrelevant_interval.n == 0


def test_the_json_keeps_its_keys_and_adds_the_intervals_beside_them():
    scores = assessor_scores(ROWS)
    body = recalls_json(scores.settled, scores)
    assert (body["balanced_accuracy"], body["recall_relevant"], body["n"]) == (
        pytest.approx(0.70833, abs=1e-5),
        0.75,
        9,
    )
    assert body["recall_relevant_interval"]["successes"] == 3
    assert body["recall_relevant_interval"]["n"] == 4
    assert body["recall_nonrelevant_interval"]["n"] == 3
    assert body["recall_relevant_interval"]["low"] == pytest.approx(0.30064, abs=1e-5)
    interval = body["balanced_accuracy_interval"]
    assert (interval["low"], interval["high"]) == pytest.approx((0.38716, 0.87839), abs=1e-5)
    assert interval["confidence"] == 0.95 and interval["method"].startswith("MOVER")
    line = format_intervals("stage 0", scores.settled)
    assert line == (
        "  95% intervals, stage 0: rec.irr 2/3, 20.8-93.9; rec.rel 3/4, 30.1-95.4; "
        "bal.acc 38.7-87.8"
    )
