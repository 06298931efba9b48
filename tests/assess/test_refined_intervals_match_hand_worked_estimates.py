"""The prediction-powered interval on a refined metric, checked against numbers worked by
hand (assess.evaluation.intervals; no database)."""

import math

import pytest

from assess.evaluation.interval_comparisons import difference_interval, labels_for_half_width
from assess.evaluation.intervals import (
    Interval,
    IntervalError,
    PooledLabel,
    SystemIntervals,
    query_measure,
    refined_intervals,
)


def label(q, d, machine, human, *, drawn=True, share=0.5, stratum=None):
    return PooledLabel(q, d, machine, human, stratum or f"label {machine}", drawn, share)


def two_queries_p_at_10(pool):
    """P@10 intervals of one system ranking q1: a, b, c and q2: x, y, z, with q1-a judged
    relevant and q2-x judged not relevant."""
    return refined_intervals(
        runs={"s": {"q1": ["a", "b", "c"], "q2": ["x", "y", "z"]}},
        fixed={"q1": {"a": 1}, "q2": {"x": 0}},
        pool=pool,
        queries=["q1", "q2"],
        measures=("P@10",),
    )


def test_p_at_10_is_the_machine_value_plus_the_horvitz_thompson_correction():
    # Machine labels: q1 has a (judged), b (wrong: human 0) relevant -> P@10 0.2; q2 has y
    # -> 0.1; mean 0.15. Sample at pi = 0.5: b (z = 0.1 * (0 - 1) / 2 = -0.05), c and z
    # (right, z = 0). Correction -0.05 / 0.5 = -0.1 -> 0.05.
    pool = [
        label("q1", "b", 1, 0),
        label("q1", "c", 0, 0),
        label("q2", "y", 1, None, drawn=False),
        label("q2", "z", 0, 0),
    ]
    found = two_queries_p_at_10(pool)
    interval = found.by_system["s"]["P@10"]
    assert interval.estimate == pytest.approx(0.05)
    assert interval.n_human == 3
    # The audit saw one of the label-1 stratum's wrong labels and pi = 0.5, so more may lie
    # unseen (each would lower P@10 by 0.05): the interval reaches below the estimate, down
    # to 0, the least P@10 can be (its bounds are clipped to [0, 1]).
    assert interval.low == 0.0
    assert interval.high > 0.05
    assert found.base["P@10"]["s"] == pytest.approx(0.15)


def test_a_stratum_with_unanswered_audits_counts_its_answered_share_only():
    # Two of the label-1 stratum's pairs are drawn, one answered: pi = 0.5 * 1/2 = 0.25, so
    # the one wrong label found weighs 4: 0.15 + 4 * (-0.05) = -0.05, shown as 0 (the least
    # P@10 can be; weighed 2, as the design's 0.5 alone says, it would be 0.05).
    pool = [
        label("q1", "b", 1, 0),
        label("q2", "y", 1, None, drawn=True),
        label("q1", "c", 0, 0),
        label("q2", "z", 0, 0),
    ]
    found = two_queries_p_at_10(pool)
    assert found.by_system["s"]["P@10"].estimate == 0.0


def test_ndcg_with_every_pair_audited_is_the_human_value_even_with_two_errors_in_a_query():
    ranking = ["a", "b", "c", "d", "e"]
    fixed = {"q": {"a": 1}}
    # b and d are wrong machine labels (1 -> 0 and 0 -> 1); c and e are right.
    pool = [
        label("q", "b", 1, 0, share=1.0),
        label("q", "c", 0, 0, share=1.0),
        label("q", "d", 0, 1, share=1.0),
        label("q", "e", 1, 1, share=1.0),
    ]
    found = refined_intervals(
        runs={"s": {"q": ranking}}, fixed=fixed, pool=pool, queries=["q"], measures=("nDCG@10",)
    )
    human = query_measure("nDCG@10", ranking, {"a": 1, "b": 0, "c": 0, "d": 1, "e": 1})
    # By hand: DCG = 1 + 1/log2(5) + 1/log2(6), ideal = 1 + 1/log2(3) + 1/log2(4).
    by_hand = (1 + 1 / math.log2(5) + 1 / math.log2(6)) / (1 + 1 / math.log2(3) + 0.5)
    assert human == pytest.approx(by_hand)
    interval = found.by_system["s"]["nDCG@10"]
    assert interval.estimate == pytest.approx(by_hand)
    assert interval.half_width == pytest.approx(0.0, abs=1e-12)  # all audited: no sampling error


def test_a_paired_difference_uses_the_same_sample_for_both_systems():
    pool = [label("q", "b", 1, 0, share=0.5), label("q", "c", 0, 0, share=0.5)]
    runs = {"s1": {"q": ["a", "b", "c"]}, "s2": {"q": ["a", "x", "y"]}}
    found = refined_intervals(
        runs=runs, fixed={"q": {"a": 1}}, pool=pool, queries=["q"], measures=("P@10",)
    )
    # s1 - s2: machine 0.2 - 0.1 = 0.1; b's error moves s1 only: z = -0.1, weight 2.
    diff = difference_interval(found, "s1", "s2", "P@10")
    assert diff.estimate == pytest.approx(0.1 - 0.2)
    assert diff.low < diff.estimate < diff.high


def test_an_audit_that_found_no_wrong_label_still_admits_the_ones_it_did_not_see():
    pool = [label("q", d, 0, 0, share=0.1) for d in "bcdef"]
    pool += [label("q", d, 0, None, drawn=False, share=0.1) for d in "ghijk"]
    found = refined_intervals(
        runs={"s": {"q": ["a", *"bcdefghijk"]}},
        fixed={"q": {"a": 1}},
        pool=pool,
        queries=["q"],
        measures=("P@10",),
    )
    interval = found.by_system["s"]["P@10"]
    assert interval.estimate == pytest.approx(0.1)
    assert interval.low == pytest.approx(0.1)  # a label-0 error can only raise P@10
    assert interval.high > 0.1


def test_no_audit_or_an_unjudged_escalation_gets_words_not_a_number():
    runs = {"s": {"q": ["a", "b"]}}
    no_audit = [label("q", "b", 1, None, drawn=False, share=0.0)]
    with pytest.raises(IntervalError, match="intervals need an audit share > 0"):
        refined_intervals(runs=runs, fixed={"q": {"a": 1}}, pool=no_audit, queries=["q"])
    pending = [PooledLabel("q", "b", None, None, "escalated", True, 1.0)]
    with pytest.raises(IntervalError, match="every escalated pair judged.*'b'"):
        refined_intervals(runs=runs, fixed={"q": {"a": 1}}, pool=pending, queries=["q"])
    never_answered = [label("q", "b", 1, None, drawn=True)]
    with pytest.raises(IntervalError, match="no audited pair has a human label"):
        refined_intervals(runs=runs, fixed={"q": {"a": 1}}, pool=never_answered, queries=["q"])


def test_a_stratum_without_a_human_label_is_named_in_the_notes():
    pool = [
        label("q", "b", 1, 1, stratum="label 1, round 1"),
        label("q", "c", 1, 1, stratum="label 1, round 1"),
        label("q", "d", 1, None, drawn=False, stratum="label 1, round 2"),
    ]
    found = refined_intervals(
        runs={"s": {"q": ["a", "b", "c", "d"]}}, fixed={"q": {"a": 1}}, pool=pool, queries=["q"]
    )
    assert found.notes == [
        "stratum 'label 1, round 2' (1 pairs) has no human label: its machine labels' "
        "errors, if any, are not seen by this sample"
    ]


def test_the_budget_planner_scales_the_audit_share_by_the_variance_it_needs():
    # 10 audited of 100 (pi = 0.1), half-width 0.02, target 0.01: (1 - pi')/pi' must fall
    # from 9 to 9 * (0.01 / 0.02)^2 = 2.25, so pi' = 1 / 3.25 and 100 * (1/3.25 - 0.1) = 20.8.
    found = SystemIntervals(
        method="ppi",
        n_human=10,
        queries=5,
        by_system={"s": {"nDCG@10": Interval(0.5, 0.48, 0.52, 10)}},
        inv_pi=[10.0] * 10,
    )
    assert labels_for_half_width(found, target=0.01, pool_size=100) == 21
    assert labels_for_half_width(found, target=0.05, pool_size=100) == 0
