"""Each refined-metric interval rests on n_b, the human labels that bear on its value: with
fewer than 5 it is the value's whole range, said in a note, and with 5 or more its
half-width is the Student t quantile on n_b - 1 degrees of freedom times its standard error
(assess.evaluation.intervals; no database). Numbers worked by hand."""

import math

import pytest

from assess.evaluation.interval_comparisons import (
    difference_interval,
    kendall_tau_interval,
    range_only,
    range_only_differences,
    unmeasured_differences,
)
from assess.evaluation.interval_missing import difference_notes
from assess.evaluation.interval_range import interval_quantile, sample_bears_on
from assess.evaluation.intervals import PooledLabel, refined_intervals

DOCS = [f"d{i}" for i in range(10)]
SHARE = 0.8  # every pair's inclusion probability


def p_at_10(humans, *, runs=None, docs=DOCS):
    """P@10 intervals of system "s" ranking d0..d9 on one query (or of ``runs``), every
    document of ``docs`` pooled with machine label 1 in one stratum; the first
    len(``humans``) drawn and judged as given, the others not drawn; every pair of best rank
    5 (one model cell)."""
    pool = [
        PooledLabel(
            "q", d, 1, humans[i] if i < len(humans) else None, "label 1", i < len(humans), SHARE
        )  # fmt: skip
        for i, d in enumerate(docs)
    ]
    return refined_intervals(
        runs=runs or {"s": {"q": DOCS}},
        fixed={"q": {"x": 1}},
        pool=pool,
        queries=["q"],
        measures=("P@10",),
        best_rank={("q", d): 5 for d in docs},
    )


def test_six_audited_labels_give_the_t_quantile_on_five_degrees_of_freedom():
    found = p_at_10([1, 1, 1, 0, 0, 0])
    got = found.by_system["s"]["P@10"]
    # By hand: the cell's model m = 3/6 = 0.5 (shrunk towards the stratum's own 0.5), so each
    # residual is +-0.5 and they sum to 0: the estimate is the prediction, 3 known relevant
    # + 4 unaudited at 0.5, over 10. Each pair's slope on P@10 is 1/10; its design weight
    # (1 - pi) / pi^2 = 0.2 / 0.64 = 0.3125. The variance floor v = p(1 - p) at p = 0.5
    # (the Jeffreys 95% point lies beyond 1/2) is 0.25, as is each e_i^2: variance
    # 6 * 0.3125 * 0.01 * 0.25 = 0.0046875.
    assert got.estimate == pytest.approx((3 + 4 * 0.5) / 10)
    se = math.sqrt(6 * 0.3125 * 0.01 * 0.25)
    t_975_5 = 2.570582  # Student t, 97.5% point, 5 degrees of freedom (tables: 2.5706)
    assert got.n_bearing == 6
    assert got.high - got.estimate == pytest.approx(t_975_5 * se, rel=1e-6)
    assert got.estimate - got.low == pytest.approx(t_975_5 * se, rel=1e-6)
    # Not 1.96 standard errors: the interval is wider than the normal one by 2.5706 / 1.96.
    assert got.high - got.low > 2 * 1.96 * se * 1.3
    assert not any("too few human labels" in note for note in found.notes)


def test_four_audited_labels_give_the_whole_range_and_say_why():
    found = p_at_10([1, 1, 0, 0])
    got = found.by_system["s"]["P@10"]
    # 2 known relevant of 10; the 6 unaudited pairs all relevant or all not: [0.2, 0.8].
    assert (got.low, got.high) == pytest.approx((0.2, 0.8))
    assert got.estimate == pytest.approx((2 + 6 * 0.5) / 10)
    assert got.n_bearing == 4
    assert any(
        "s P@10: too few human labels (audited or escalated) bear on this run's value "
        "(n_b = 4; at least 5 needed)" in note
        for note in found.notes
    ), found.notes
    assert ("P@10", "s") in found.unseen


def test_a_difference_four_audited_labels_bear_on_is_only_settled_by_its_range():
    # s ranks d0..d9, t ranks d0..d5 and e0..e3; audited: d0..d7 (1, 0, 1, 0, ...), e0 and
    # e1 (both relevant); d8, d9, e2, e3 not drawn. Each system has 8 audited labels bearing
    # on it, but the difference only the 4 in one top 10 and not the other: d6, d7, e0, e1.
    docs = [*DOCS[:8], "e0", "e1", *DOCS[8:], "e2", "e3"]
    runs = {"s": {"q": DOCS}, "t": {"q": [*DOCS[:6], "e0", "e1", "e2", "e3"]}}
    found = p_at_10([1, 0, 1, 0, 1, 0, 1, 0, 1, 1], runs=runs, docs=docs)
    assert found.by_system["s"]["P@10"].n_bearing == 8
    assert found.by_system["t"]["P@10"].n_bearing == 8
    diff = difference_interval(found, "s", "t", "P@10")
    assert diff.n_bearing == 4
    assert range_only(found, "s", "t", "P@10")
    # s: 4 known relevant + d8, d9 open = [0.4, 0.6]; t: 5 + e2, e3 = [0.5, 0.7]; so s - t
    # lies in [0.4 - 0.7, 0.6 - 0.5] = [-0.3, 0.1]: the whole range, the order not settled.
    assert (diff.low, diff.high) == pytest.approx((-0.3, 0.1))
    # Named with its n_b, not among the differences no human label measures (whose note says
    # every audited pair moves both systems alike: false here).
    assert unmeasured_differences(found, "P@10") == []
    unmeasured, few = range_only_differences(found, "P@10")
    assert (unmeasured, few) == ([], [("s - t P@10", "4")])
    assert difference_notes(unmeasured, few, minimum=5) == [
        "s - t P@10 (n_b = 4): too few human labels (audited or escalated) bear on this "
        "difference (at least 5 needed): its interval is every value the pairs without a "
        "human label allow, so it does not settle the order"
    ]


def test_five_bearing_labels_give_the_t_quantile_on_four_degrees_of_freedom():
    found = p_at_10([1, 1, 1, 0, 0])
    got = found.by_system["s"]["P@10"]
    # By hand: the cell's model m = 3/5 = 0.6, the estimate (3 + 5 * 0.6) / 10 = 0.6. Each
    # slope 1/10, design weight 0.2 / 0.64 = 0.3125. The model's sum 5 * 0.25 (v = 0.25, as
    # above) = 1.25 exceeds the residuals' 3 * 0.4^2 + 2 * 0.6^2 = 1.2: variance
    # 0.3125 * 0.01 * 1.25 = 0.00390625, se = 0.0625.
    t_975_4 = 2.776445  # Student t, 97.5% point, 4 degrees of freedom (tables: 2.7764)
    assert got.n_bearing == 5
    assert got.estimate == pytest.approx(0.6)
    assert got.high - got.estimate == pytest.approx(t_975_4 * 0.0625, rel=1e-6)
    assert got.estimate - got.low == pytest.approx(t_975_4 * 0.0625, rel=1e-6)
    assert interval_quantile(5) == pytest.approx(t_975_4, rel=1e-6)
    assert ("P@10", "s") not in found.unseen
    # One label fewer and the interval is the whole range (the test above with n_b = 4).
    assert p_at_10([1, 1, 0, 0]).by_system["s"]["P@10"].n_bearing == 4


def test_the_count_is_the_effective_number_of_variance_terms():
    # Pairs 0 and 2 move the value; pair 1 has no slope, pair 3 was drawn with certainty
    # (design weight 0). Terms t_i = weight * slope^2: 0.02 and 0.08, so
    # (0.1)^2 / (0.02^2 + 0.08^2) = 0.01 / 0.0068 = 1.47: n_b = 1, not the 2 pairs counted
    # before (Kish's effective size: one term carries four fifths of the variance).
    assert sample_bears_on([0.1, 0.0, -0.2, 0.3], [2.0, 2.0, 2.0, 0.0]) == 1
    # Equal terms: the count.
    assert sample_bears_on([0.1, -0.1, 0.1, 0.0], [2.0, 2.0, 2.0, 0.0]) == 3
    # A couple's second-order term makes both its pairs bear on the value: terms 0.05^2,
    # 0.05^2 and 0.1^2, (0.015)^2 / (2 * 0.0025^2 + 0.01^2) = 0.000225 / 0.0001125 = 2
    # (the 3 pairs counted before, reworked).
    assert sample_bears_on([0.0, 0.0, 0.1], [1.0, 1.0, 1.0], [0.05], [(0, 1)]) == 2
    # ... but not when one member was drawn with certainty: the couple adds no variance.
    assert sample_bears_on([0.0, 0.0, 0.1], [0.0, 1.0, 1.0], [0.05], [(0, 1)]) == 1
    # A per-pair variance weighs the terms; ``reached`` caps the count at pairs read.
    assert sample_bears_on([0.1, 0.1, 0.1], [1.0, 1.0, 1.0], variance=[1.0, 1.0, 4.0]) == 2
    assert sample_bears_on([0.1] * 6, [1.0] * 6, reached=[True, False] * 3) == 3
    assert interval_quantile(6) == pytest.approx(2.570582, rel=1e-6)
    assert interval_quantile(1000) == pytest.approx(1.96, abs=0.003)


def test_the_tau_interval_leaves_open_a_pair_four_audited_labels_bear_on():
    docs = [*DOCS[:8], "e0", "e1", *DOCS[8:], "e2", "e3"]
    runs = {"s": {"q": DOCS}, "t": {"q": [*DOCS[:6], "e0", "e1", "e2", "e3"]}}
    found = p_at_10([1, 0, 1, 0, 1, 0, 1, 0, 1, 1], runs=runs, docs=docs)
    tau = kendall_tau_interval(found, {"s": 0.9, "t": 0.1}, measure="P@10")
    assert tau is not None
    assert (tau[1], tau[2]) == (-1.0, 1.0)
