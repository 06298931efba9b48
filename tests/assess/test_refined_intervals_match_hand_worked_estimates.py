"""The prediction-powered interval on a refined metric, checked against numbers worked by
hand (assess.evaluation.intervals; no database)."""

import math

import pytest
from scipy.stats import beta

from assess.evaluation.interval_comparisons import (
    difference_interval,
    labels_for_half_width,
)
from assess.evaluation.intervals import (
    Interval,
    IntervalError,
    PooledLabel,
    SystemIntervals,
    greg_interval,
    query_measure,
    refined_intervals,
)


def greg(found, system="s", measure="P@10"):
    """The GREG interval before it is kept within the range the unknown pairs allow (the
    estimator's own formula, which the tests below work out by hand)."""
    return greg_interval(
        found.base[measure][system],
        found.slope[measure][system],
        found.sample,
        found.cross[measure][system],
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


def one_query_p_at_10(pool, ranking, **options):
    """P@10 intervals of one system ranking query q as given, with q-a judged relevant."""
    return refined_intervals(
        runs={"s": {"q": ranking}},
        fixed={"q": {"a": 1}},
        pool=pool,
        queries=["q"],
        measures=("P@10",),
        **options,
    )


# The Student t quantile, 97.5% point, on n_b - 1 degrees of freedom (tables), n_b the
# audited pairs that move the value: an interval's half-width is this times its standard
# error (assess.evaluation.interval_range.interval_quantile). With n_b < 5 the reported
# interval is the value's whole range.
T_975 = {2: 12.706205, 3: 4.302653, 4: 3.182446, 5: 2.776445}


# The residual variance v of a model cell whose audit saw k relevant of n, predicting m:
# p(1 - p) at p, the 95% point of the Jeffreys posterior Beta(k + 1/2, n - k + 1/2) on the
# side of 1/2 (never past 1/2, never nearer 0 or 1 than m).
def v(k, n, m=0.0):
    if m <= 0.5:
        p = min(0.5, max(m, beta.ppf(0.95, k + 0.5, n - k + 0.5)))
    else:
        p = max(0.5, min(m, beta.ppf(0.05, k + 0.5, n - k + 0.5)))
    return p * (1 - p)


def test_p_at_10_is_the_models_prediction_plus_the_greg_correction():
    # Audit at pi = 0.5: the label-1 stratum's one audited pair (b) is not relevant, so the
    # stratum predicts relevance 0 for its unaudited pair (y); the label-0 stratum's two
    # audited pairs (c, z) are not relevant either. Prediction: q1 has a (judged) -> 0.1,
    # q2 nothing -> 0; mean 0.05. Every residual is 0, so no correction: 0.05.
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
    assert found.base["P@10"]["s"] == pytest.approx(0.05)
    # Each audited pair's slope is 0.1 / 2 queries; (1 - pi) / pi^2 = 2. Variance
    # 2 * 0.05^2 * (v(0, 1) + 2 * v(0, 2)); n_b = 3 (b, c and z move P@10).
    half = T_975[3] * math.sqrt(2 * 0.05**2 * (v(0, 1) + 2 * v(0, 2)))
    assert greg(found).n_bearing == 3
    assert greg(found).high == pytest.approx(0.05 + half)
    # Only y has no human label: the human value is 0.05 (y not relevant) or 0.1, and the
    # interval stays there.
    assert (interval.low, interval.high) == pytest.approx((0.05, 0.1))


def test_an_unaudited_pair_is_predicted_at_its_strata_audited_share_of_relevant():
    # Label-1 stratum: b audited relevant, c audited not relevant (m = 1/2), d unaudited;
    # all at pi = 0.5. Prediction for q: a judged + b + d at 1/2 -> P@10 = 0.25. Residuals:
    # b +1/2, c -1/2, both in the top 10 (slope 0.1): correction 0.1 * (1/2 - 1/2) * (2 - 1)
    # = 0, so 0.25; P@10 under the human labels is 0.2 or 0.3 as d turns out.
    pool = [label("q", "b", 1, 1), label("q", "c", 1, 0), label("q", "d", 1, None, drawn=False)]
    found = one_query_p_at_10(pool, ["a", "b", "c", "d"])
    interval = found.by_system["s"]["P@10"]
    assert interval.estimate == pytest.approx(0.25)
    half = T_975[2] * math.sqrt(2 * 2 * 0.1**2 * v(1, 2, 0.5))  # n_b = 2: b and c
    assert greg(found).half_width == pytest.approx(half)
    assert (interval.low, interval.high) == pytest.approx((0.2, 0.3))  # d either way


def test_ndcg_of_a_predicted_pair_is_its_expected_value_over_both_labels():
    # One query ranking a (judged), b (audited relevant), c (audited not), d (unaudited,
    # predicted 1/2): the prediction F(x) is the mean of nDCG@10 with d relevant and with d
    # not relevant, exactly (the multilinear extension).
    ranking = ["a", "b", "c", "d"]
    pool = [
        label("q", "b", 1, 1, share=0.5),
        label("q", "c", 1, 0, share=0.5),
        label("q", "d", 1, None, drawn=False, share=0.5),
    ]
    found = refined_intervals(
        runs={"s": {"q": ranking}},
        fixed={"q": {"a": 1}},
        pool=pool,
        queries=["q"],
        measures=("nDCG@10",),
    )
    with_d = (1 + 1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3) + 0.5)
    without_d = 1.0  # a and b at ranks 1 and 2: ideal
    assert found.base["nDCG@10"]["s"] == pytest.approx((with_d + without_d) / 2)


def test_a_stratum_with_unanswered_audits_weighs_its_answered_pairs_more():
    # Two of the label-1 stratum's pairs are drawn, one answered: pi = 0.5 * 1/2 = 0.25 for
    # b, so its term in the variance is (1 - 0.25) / 0.25^2 = 12 times slope^2 v, not 2.
    pool = [
        label("q1", "b", 1, 0),
        label("q2", "y", 1, None, drawn=True),
        label("q1", "c", 0, 0),
        label("q2", "z", 0, 0),
    ]
    found = two_queries_p_at_10(pool)
    interval = found.by_system["s"]["P@10"]
    assert interval.estimate == pytest.approx(0.05)
    variance = 0.05**2 * (12 * v(0, 1) + 2 * 2 * v(0, 2))
    # n_b: b, c and z bear on it, but b's term carries 12 of the 16 parts (v = 0.25 in both
    # cells): Kish's effective size (12 + 2 + 2)^2 / (12^2 + 2^2 + 2^2) = 256 / 152 = 1.68,
    # floored to 1 (the 3 counted before; the t quantile then taken on 1 degree of freedom).
    assert (v(0, 1), v(0, 2)) == (0.25, 0.25)
    raw = greg(found)
    assert raw.n_bearing == 1 == interval.n_bearing
    assert raw.high == pytest.approx(0.05 + T_975[2] * math.sqrt(variance))
    assert (interval.low, interval.high) == pytest.approx((0.05, 0.1))  # y, unanswered


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
    # b's human label is known (not relevant), so both systems have a alone: 0.1 - 0.1 = 0.
    # The difference's slopes are s1's (0.1 for b and c) less s2's (0 for both), each
    # stratum with one audited, not relevant pair: variance 2 * 2 * 0.1^2 * v(0, 1).
    s1, s2 = found.slope["P@10"]["s1"], found.slope["P@10"]["s2"]
    slopes = [a - b for a, b in zip(s1, s2, strict=True)]
    base = found.base["P@10"]["s1"] - found.base["P@10"]["s2"]
    raw = greg_interval(base, slopes, found.sample)
    assert raw.estimate == pytest.approx(0.0)
    half = T_975[2] * math.sqrt(2 * 2 * 0.1**2 * v(0, 1))  # n_b = 2: b and c
    assert (raw.low, raw.high) == pytest.approx((-half, half))
    # Every pooled pair has its human label: the difference is known to be 0, and the
    # reported interval says so.
    diff = difference_interval(found, "s1", "s2", "P@10")
    assert (diff.estimate, diff.low, diff.high) == pytest.approx((0.0, 0.0, 0.0))


def test_an_audit_that_found_no_wrong_label_still_admits_the_ones_it_did_not_see():
    pool = [label("q", d, 0, 0, share=0.5) for d in "bcdef"]
    pool += [label("q", d, 0, None, drawn=False, share=0.5) for d in "ghijk"]
    found = one_query_p_at_10(pool, ["a", *"bcdefghijk"])
    interval = found.by_system["s"]["P@10"]
    assert interval.estimate == pytest.approx(0.1)
    # Five audited pairs in the top 10, none relevant (k, at rank 11, leaves the band below
    # 10 unaudited, so the stratum is one model cell): v(0, 5) > 0, so the interval has
    # width even though the audit saw no disagreement; n_b = 5, so t on 4 degrees of freedom.
    half = T_975[5] * math.sqrt(5 * 2 * 0.1**2 * v(0, 5))
    assert greg(found).high == pytest.approx(0.1 + half)
    # The same by the numbers: Beta(1/2, 11/2)'s 95% point is 0.30575, v = 0.21227, so the
    # half-width is 2.776445 * sqrt(0.1 * 0.21227) = 0.40451.
    assert greg(found).high == pytest.approx(0.50451, abs=1e-5)
    # Reported within what the labels allow: a and the four unaudited pairs g-j at most.
    assert (interval.low, interval.high) == pytest.approx((0.1, 0.5))
    assert interval.half_width > 0


def test_two_audited_labels_that_agree_still_give_an_interval_with_width():
    # b and c audited relevant at pi = 0.5 (the top 3), d-g unaudited (ranks 4-7: a rank
    # band without an audited pair, so the stratum is one model cell): m = 1, and the
    # variance comes from the Jeffreys floor v(2, 2, 1), never 0.
    pool = [label("q", "b", 1, 1), label("q", "c", 1, 1)]
    pool += [label("q", d, 1, None, drawn=False) for d in "defg"]
    found = one_query_p_at_10(pool, ["a", *"bcdefg"])
    interval = found.by_system["s"]["P@10"]
    assert interval.estimate == pytest.approx(0.7)
    half = T_975[2] * math.sqrt(2 * 2 * 0.1**2 * v(2, 2, 1.0))  # n_b = 2: b and c
    assert greg(found).half_width == pytest.approx(half)
    # Two audited labels bear on P@10, fewer than 5: the interval is what the labels allow,
    # a, b and c relevant whatever d-g are (0.3) up to d-g all relevant (0.7).
    assert (interval.low, interval.high) == pytest.approx((0.3, 0.7))
    assert found.notes == [
        "stratum 'label 1': a rank band has no audited pair, so the stratum's pairs share one "
        "model",
        "s P@10: too few human labels (audited or escalated) bear on this run's value "
        "(n_b = 2; at least 5 needed): "
        "the interval is every value the pairs without a human label allow",
    ]


def test_no_audit_or_no_answered_audit_gets_words_not_a_number():
    runs = {"s": {"q": ["a", "b"]}}
    no_audit = [label("q", "b", 1, None, drawn=False, share=0.0)]
    with pytest.raises(IntervalError, match="intervals need an audit share > 0"):
        refined_intervals(runs=runs, fixed={"q": {"a": 1}}, pool=no_audit, queries=["q"])
    never_answered = [label("q", "b", 1, None, drawn=True)]
    with pytest.raises(IntervalError, match="no audited pair has a human label"):
        refined_intervals(runs=runs, fixed={"q": {"a": 1}}, pool=never_answered, queries=["q"])


def escalated(d, human):
    return PooledLabel("q", d, None, human, "escalated", True, 1.0)


def test_an_unjudged_escalation_is_missing_at_random_among_the_escalated_pairs():
    # q: a judged relevant; b (rank 2, judged relevant), c (rank 4, not judged yet) and d
    # (rank 3, judged not relevant) were escalated. Two of three answered: each answered pair
    # stands for 3/2 (pi = 2/3). The 4-10 band has no answered pair, so the stratum is one
    # cell: share 1/2, shrunk towards itself, 1/2: c is predicted at 0.5, and P@10 is
    # (a + b + c) = (1 + 1 + 0.5) / 10 = 0.25. The residuals +1/2 and -1/2 cancel in the
    # correction and in the leverage term.
    pool = [escalated("b", 1), escalated("c", None), escalated("d", 0)]
    found = one_query_p_at_10(pool, ["a", "b", "d", "c"])
    p_at_10 = found.by_system["s"]["P@10"]
    assert p_at_10.estimate == pytest.approx(0.25)
    # Variance: each answered pair weighs (1 - pi) / pi^2 * slope^2 = (1/3) (9/4) 0.01 =
    # 0.0075; residuals^2 1/4 each, and the model's v at m = 1/2 is 1/4: 0.00375.
    # n_b = 2 (b and d, each drawn with pi = 2/3 < 1).
    assert greg(found).half_width == pytest.approx(T_975[2] * math.sqrt(0.00375), abs=1e-6)
    assert (p_at_10.low, p_at_10.high) == pytest.approx((0.2, 0.3))  # c either way
    # Its n counts audited labels only: the two judged escalations are escalated labels,
    # which the reports add as such (never twice).
    assert p_at_10.n_human == 0
    # The estimator says nothing of the waiting pair: the reports do, from their counts
    # (assess.evaluation.interval_missing), knowing whether a human budget holds it back.
    assert not any("no human label yet" in n for n in found.notes)


def test_unjudged_escalations_with_no_judged_one_get_words_not_a_number():
    with pytest.raises(IntervalError, match="none of the 1 escalated pairs has a human label"):
        one_query_p_at_10([escalated("b", None)], ["a", "b"])


def test_the_human_only_estimator_keeps_escalated_pairs_apart_from_agreed_ones():
    # The agreed pair e (label 1, audited: relevant) must not predict the unjudged escalated
    # c: c is predicted from b and d alone, as in the prediction-powered estimator.
    pool = [escalated("b", 1), escalated("c", None), escalated("d", 0), label("q", "e", 1, 1)]
    ppi = one_query_p_at_10(pool, ["a", "b", "d", "c", "e"])
    human = one_query_p_at_10(pool, ["a", "b", "d", "c", "e"], use_machine=False)
    assert ppi.base["P@10"]["s"] == pytest.approx(0.35)
    assert human.base["P@10"]["s"] == pytest.approx(0.35)


def test_a_stratum_without_a_human_label_is_named_in_the_notes():
    pool = [
        label("q", "b", 1, 1, stratum="label 1, round 1"),
        label("q", "c", 1, 1, stratum="label 1, round 1"),
        label("q", "d", 1, None, drawn=False, stratum="label 1, round 2"),
    ]
    found = refined_intervals(
        runs={"s": {"q": ["a", "b", "c", "d"]}}, fixed={"q": {"a": 1}}, pool=pool, queries=["q"]
    )
    # Its same-label sibling has human labels: the stratum is collapsed with it, and the note
    # says so (without a sibling it would keep its machine labels: the test below).
    # d (rank 4) is the only pair of its rank band: the merged stratum is one model cell.
    assert found.notes == [
        "stratum 'label 1, round 2' (1 pair) has no human label: collapsed with 'label 1, "
        "round 1' (the same binary machine label), whose audited pairs speak for both",
        "stratum 'label 1, round 1': a rank band has no audited pair, so the stratum's pairs "
        "share one model",
        # Two audited labels (b, c) bear on P@10, fewer than 5: its whole range, said so
        # (nDCG@10 and R@100 are 1 whatever d is: nothing to say).
        "s P@10: too few human labels (audited or escalated) bear on this run's value "
        "(n_b = 2; at least 5 needed): "
        "the interval is every value the pairs without a human label allow",
    ]


def test_the_budget_planner_scales_the_audit_share_by_the_variance_it_needs():
    # 10 audited of 100 (pi = 0.1), half-width 0.02, target 0.01: (1 - pi')/pi' must fall
    # from 9 to 9 * (0.01 / 0.02)^2 = 2.25, so pi' = 1 / 3.25 and 100 * (1/3.25 - 0.1) = 20.8.
    found = SystemIntervals(
        method="ppi",
        n_human=10,
        queries=5,
        by_system={"s": {"nDCG@10": Interval(0.5, 0.48, 0.52, 10)}},
    )
    assert labels_for_half_width(found, target=0.01, pool_size=100) == 21
    assert labels_for_half_width(found, target=0.05, pool_size=100) == 0


def test_the_bias_of_a_model_fitted_on_the_same_sample_is_removed_by_its_leverage():
    # One model cell (label 1, top 3 by best rank): b audited relevant at rank 2 of s, c
    # audited not relevant and ranked by t only, d unaudited at rank 3 of s; pi = 0.5.
    # m = (2 * 1/2 + 1 * 1/2) / 3 = 1/2, lam = 2/3, N = 3, so leverage = 2/9. For s:
    # base 0.25 (a, b and d at 1/2); GREG correction 0.1 * (1/2) * (2 - 1) = 0.05 from b
    # (c's slope in s is 0); leverage term 0.5 * 4 * (1/2) * 0.1 * 2/9 = 0.0222.
    pool = [
        label("q", "b", 1, 1),
        label("q", "c", 1, 0),
        label("q", "d", 1, None, drawn=False),
    ]
    found = refined_intervals(
        runs={"s": {"q": ["a", "b", "d"]}, "t": {"q": ["a", "c"]}},
        fixed={"q": {"a": 1}},
        pool=pool,
        queries=["q"],
        measures=("P@10",),
    )
    assert found.base["P@10"]["s"] == pytest.approx(0.25)
    assert greg(found).estimate == pytest.approx(0.25 + 0.05 + 0.1 * 2 / 9)
    # That is above the 0.3 s has with d relevant: the sample bounds nothing beyond what the
    # labels allow, so the interval is that whole range, [0.2, 0.3], its estimate at 0.3.
    reported = found.by_system["s"]["P@10"]
    assert (reported.estimate, reported.low, reported.high) == pytest.approx((0.3, 0.2, 0.3))


def test_the_human_only_estimator_predicts_every_agreed_pair_from_all_audited_ones():
    # Ignoring the consensus labels: one model over both strata. Audited b (label 1, not
    # relevant) and c (label 0, relevant), pi = 0.5, both in the top 3: m = 1/2, so the
    # unaudited d (rank 3) is predicted 1/2 whatever its label 1 says. P@10: a, c and d at
    # 1/2 -> 0.25; residuals -1/2 and +1/2 with equal slopes cancel.
    pool = [label("q", "b", 1, 0), label("q", "c", 0, 1), label("q", "d", 1, None, drawn=False)]
    found = one_query_p_at_10(pool, ["a", "b", "c", "d"], use_machine=False)
    assert found.method == "human_only"
    assert found.base["P@10"]["s"] == pytest.approx(0.25)
    assert found.by_system["s"]["P@10"].estimate == pytest.approx(0.25)


def test_a_stratum_no_audit_reached_keeps_each_pairs_own_machine_label():
    # Stratum "mixed" holds a label-1 and a label-0 pair and no audited one: each keeps its
    # own machine label (b relevant, c not); the other stratum's audit makes intervals
    # possible. P@10 of a, b, c, e: a and b -> 0.2.
    pool = [
        label("q", "b", 1, None, drawn=False, stratum="mixed"),
        label("q", "c", 0, None, drawn=False, stratum="mixed"),
        label("q", "e", 0, 0, stratum="label 0"),
    ]
    found = one_query_p_at_10(pool, ["a", "b", "c", "e"])
    assert found.base["P@10"]["s"] == pytest.approx(0.2)


def test_unanswered_audits_are_missing_at_random_within_pairs_drawn_alike_only():
    # One stratum drawn at two probabilities (two Neyman units): at 1/2, p1 answered
    # (relevant) and p2 still waiting, u not drawn; at 1, p3 and p4 answered (not relevant).
    # Each class's response rate scales its own probability: p1 stands for 1 / (1/2 * 1/2)
    # = 4 pairs, p3 and p4 for 1 each, so the share of relevant is 4 / 6 and p2 and u are
    # predicted at 2/3 (one rate for the stratum, 3/4, would give 1/2). All ranks are 4-10.
    def at(d, human, pi, drawn=True):
        return PooledLabel("q", d, 1, human, "label 1, round 1", drawn, pi)

    pool = [at("p1", 1, 0.5), at("p2", None, 0.5), at("u", None, 0.5, drawn=False)]
    pool += [at("p3", 0, 1.0), at("p4", 0, 1.0)]
    found = one_query_p_at_10(pool, ["a", "f1", "f2", "p1", "p2", "p3", "p4", "u"])
    # a and p1 relevant, p2 and u at 2/3: (2 + 4/3) / 10.
    assert found.base["P@10"]["s"] == pytest.approx((2 + 4 / 3) / 10)


def test_a_stratum_the_audit_missed_is_collapsed_with_its_same_label_sibling():
    # "label 1, round 1": b and c audited (pi = 1/2), both overturned (human 0). "label 1,
    # round 2": d, same machine label, not drawn. Kept as it was, d would count relevant
    # with no error and no variance (P@10 = a + d = 0.2). Collapsed with round 1, d is
    # predicted at the union's rate of relevance, 0: P@10 = a alone = 0.1; the residuals are
    # 0, so nothing is added.
    def at(d, human, stratum, drawn=True):
        return PooledLabel("q", d, 1, human, stratum, drawn, 0.5)

    pool = [at("b", 0, "label 1, round 1"), at("c", 0, "label 1, round 1")]
    pool += [at("d", None, "label 1, round 2", drawn=False)]
    found = one_query_p_at_10(pool, ["a", "b", "c", "d"])
    assert found.base["P@10"]["s"] == pytest.approx(0.1)
    assert found.by_system["s"]["P@10"].estimate == pytest.approx(0.1)
    assert (
        "stratum 'label 1, round 2' (1 pair) has no human label: collapsed with 'label 1, "
        "round 1' (the same binary machine label), whose audited pairs speak for both"
    ) in found.notes
    # No same-label sibling with a human label: the stratum stays, and one note says so with
    # the value it moves (its whole range).
    alone = [at("b", 0, "label 0, round 1"), at("d", None, "label 1, round 2", drawn=False)]
    found = one_query_p_at_10([replace_machine(alone[0], 0), alone[1]], ["a", "b", "c", "d"])
    assert found.base["P@10"]["s"] == pytest.approx(0.2)  # a and d, d at its machine label
    assert any(n.startswith("stratum 'label 1, round 2' moves s P@10: no human label checks")
               for n in found.notes)  # fmt: skip
    assert not any("not seen by this sample" in n for n in found.notes)


def replace_machine(label: PooledLabel, machine: int) -> PooledLabel:
    from dataclasses import replace

    return replace(label, machine=machine)


def test_a_weighting_class_with_no_answer_joins_the_nearest_class_that_has_one():
    # Two jobs' draws make near-equal probabilities: p1 answered at 1/2; p2 and p3 drawn at
    # 0.51 and unanswered. Alone, the 0.51 class has no respondent and its pairs stand for
    # nobody; joined with the 1/2 class, p1 stands for the group's drawn pairs' weight,
    # 1 / 0.5 + 2 / 0.51 = 5.92 (not 6, the count rate 1 of 3 at p1's own 1/2).
    def at(d, human, pi):
        return PooledLabel("q", d, 1, human, "label 1, round 1", True, pi)

    pool = [at("p1", 1, 0.5), at("p2", None, 0.51), at("p3", None, 0.51)]
    found = one_query_p_at_10(pool, ["a", "p1", "p2", "p3"])
    assert found.sample.inv_pi == [pytest.approx(2 + 2 / 0.51)]
