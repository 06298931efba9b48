"""The range a refined measure can take over every completion of the pooled pairs without a
human label (assess.evaluation.interval_range), worked by hand on the ``holes`` world of
tests/fixtures/refine.py, and the intervals clipped to it (no database)."""

import itertools
import math

import pytest

from assess.evaluation.interval_range import (
    QueryLabels,
    query_labels,
    query_range,
    system_range,
)
from assess.evaluation.intervals import (
    IntervalError,
    PooledLabel,
    query_measure,
    refined_intervals,
)

# The holes world: fixed q1 d1=1 d2=0, q2 d4=1 d5=-1; pooled q1-d3 and q1-d5 agreed (1 and 0)
# without a human label, q2-d3 escalated and judged 1, q2-d6 agreed 1 and audited 0.
FIXED = {"q1": {"d1": 1, "d2": 0}, "q2": {"d4": 1, "d5": -1}}
POOL = [
    PooledLabel("q1", "d3", 1, None, "label 1, round 1", False, 0.5),
    PooledLabel("q1", "d5", 0, None, "label 0, round 2", False, 0.5),
    PooledLabel("q2", "d3", None, 1, "escalated", True, 1.0),
    PooledLabel("q2", "d6", 1, 0, "label 1, round 1", True, 0.5),
]
ALPHA = {"q1": ["d3", "d1", "d2"], "q2": ["d6", "d4"]}
BETA = {"q1": ["d1", "d2", "d5"], "q2": ["d5", "d4", "d3"]}
LOG3 = 1 / math.log2(3)  # the discount of rank 2: 0.63093


def test_the_labels_split_into_known_relevant_and_unknown():
    labels = query_labels(fixed=FIXED, pool=POOL, queries=["q1", "q2"])
    assert labels["q1"] == QueryLabels(frozenset({"d1"}), frozenset({"d3", "d5"}))
    assert labels["q2"] == QueryLabels(frozenset({"d4", "d3"}), frozenset())


def test_ndcg_takes_its_extremes_over_the_unknown_pairs_as_worked_by_hand():
    labels = query_labels(fixed=FIXED, pool=POOL, queries=["q1", "q2"])
    # alpha q1 (d3, d1, d2), d3 unknown at rank 1, d5 unknown below: highest with d3
    # relevant and d5 not, (1 + 0.63093) / (1 + 0.63093) = 1; lowest with d3 not and d5
    # relevant, 0.63093 / 1.63093 = 0.38685. q2 is known: 0.63093 / 1.63093 = 0.38685.
    assert query_range("nDCG@10", ALPHA["q1"], labels["q1"]) == pytest.approx(
        (0.38685, 1.0), abs=1e-5
    )
    assert system_range("nDCG@10", ALPHA, labels) == pytest.approx((0.38685, 0.69343), abs=1e-5)
    # beta q1 (d1, d2, d5): highest with d5 and d3 not relevant, 1; lowest with d5 not and
    # d3 relevant, 1 / 1.63093 = 0.61315. q2: (0.63093 + 0.5) / 1.63093 = 0.69342.
    assert system_range("nDCG@10", BETA, labels) == pytest.approx((0.65329, 0.84671), abs=1e-5)


def test_the_extremes_are_those_of_every_completion_tried_one_by_one():
    # Brute force over the four completions of (d3, d5) for q1, with the same nDCG@10 the
    # intervals use: the exact range, not a bound.
    labels = query_labels(fixed=FIXED, pool=POOL, queries=["q1"])
    for ranking in (ALPHA["q1"], BETA["q1"], ["d5", "d2", "d3", "d1"]):
        values = [
            query_measure("nDCG@10", ranking, {"d1": 1, "d2": 0, "d3": a, "d5": b})
            for a, b in itertools.product((0, 1), repeat=2)
        ]
        low, high = query_range("nDCG@10", ranking, labels["q1"])
        assert (low, high) == pytest.approx((min(values), max(values)))


def test_precision_and_recall_take_every_unknown_pair_one_way_or_the_other():
    labels = QueryLabels(frozenset({"a", "z"}), frozenset({"b", "c", "y"}))
    ranking = ["a", "b", "x", "c"]  # y and z are judged or pooled but not ranked
    # P@10: a known, b and c unknown: 1/10 to 3/10.
    assert query_range("P@10", ranking, labels) == pytest.approx((0.1, 0.3))
    # R@100: highest with b, c relevant and y not, (1 + 2) / (2 + 2) = 0.75; lowest with b, c
    # not and y relevant, 1 / (2 + 1) = 1/3.
    assert query_range("R@100", ranking, labels) == pytest.approx((1 / 3, 0.75))
    with pytest.raises(ValueError, match="no range for measure 'MAP'"):
        query_range("MAP", ranking, labels)


def test_an_interval_never_reaches_above_what_the_labels_can_give():
    # Every pooled pair agreed relevant; the audited one confirmed. Whatever the unaudited
    # ones are, P@10 cannot exceed the value with all of them relevant: the estimate here.
    fixed = {"q": {"r": 1}}
    pool = [PooledLabel("q", f"d{i}", 1, None, "label 1, round 1", False, 0.5) for i in range(4)]
    pool.append(PooledLabel("q", "d4", 1, 1, "label 1, round 1", True, 0.5))
    runs = {"s": {"q": ["r", "d0", "d1", "d2", "d3", "d4"]}}
    found = refined_intervals(runs=runs, fixed=fixed, pool=pool, queries=["q"], measures=["P@10"])
    interval = found.by_system["s"]["P@10"]
    assert found.ranges["P@10"]["s"] == pytest.approx((0.2, 0.6))
    assert interval.high <= 0.6 + 1e-12
    assert interval.low >= 0.2 - 1e-12


def test_a_pooled_pair_also_in_the_fixed_judgments_is_refused_naming_it():
    # Counted once as fixed relevant and once as an open pair, q1-d1 would widen the range
    # and double its weight in the estimate: the caller must pass it in one place.
    pool = [*POOL, PooledLabel("q1", "d1", 1, None, "label 1, round 1", False, 0.5)]
    # An IntervalError, so that a re-benchmark says it in words instead of failing.
    with pytest.raises(IntervalError, match=r"pooled pair \(q1, d1\) is also in the fixed"):
        refined_intervals(runs={"alpha": ALPHA}, fixed=FIXED, pool=pool, queries=["q1", "q2"])


def test_an_estimate_at_the_end_of_what_the_labels_allow_is_said_to_be_one_sided():
    # Seven agreed "relevant" pairs, five audited at half and found relevant (five, so that
    # enough audited labels bear on the value for an interval of its own): the model predicts
    # the other two relevant too, so the estimate is the highest value the two unknown pairs
    # allow (P@10 = 8 / 10 with d0 also relevant and ranked), and the interval stops there.
    pool = [
        PooledLabel("q1", f"d{i}", 1, 1 if i <= 5 else None, "label 1, round 1", i <= 5, 0.5)
        for i in range(1, 8)
    ]
    found = refined_intervals(
        runs={"alpha": {"q1": ["d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "x1"]}},
        fixed={"q1": {"d0": 1}},
        pool=pool,
        queries=["q1"],
        measures=("P@10",),
        # One model cell, so that the five terms of the variance are alike and n_b = 5 (the
        # rank bands of d1..d5 give cells of unequal v, an effective size of 4.x).
        best_rank={("q1", f"d{i}"): 5 for i in range(1, 8)},
    )
    interval = found.by_system["alpha"]["P@10"]
    assert interval.n_bearing == 5
    assert interval.estimate == pytest.approx(0.8) and interval.high == pytest.approx(0.8)
    assert found.ranges["P@10"]["alpha"] == pytest.approx((0.6, 0.8))
    assert (
        "alpha P@10: the estimate is at the lowest or highest value the pairs without a human "
        "label allow, so its interval stops there (one-sided)"
    ) in found.notes
