"""A difference between two systems whose GREG variance is 0 (the audited pairs move both
systems alike) is certain only when the pairs without a human label cannot move it either:
otherwise it spans every value those pairs allow, is not settled, and a note names it; an
exact tie (or an exactly known difference) stays zero-width and unnamed (no database)."""

import pytest

from assess.evaluation.interval_comparisons import (
    difference_interval,
    kendall_tau_interval,
    pair_comparisons,
    unmeasured_differences,
)
from assess.evaluation.interval_missing import unmeasured_difference_note
from assess.evaluation.interval_range import QueryLabels, system_footprint, undetermined_queries
from assess.evaluation.intervals import PooledLabel, refined_intervals

STRATUM = "label 1, round 1"
# q1: d1 audited relevant, d2 audited not relevant (the stratum's model: relevant with
# probability 1/2), d3 agreed relevant and not audited (its human label is unknown).
POOL = [
    PooledLabel("q1", "d1", 1, 1, STRATUM, True, 0.5),
    PooledLabel("q1", "d2", 1, 0, STRATUM, True, 0.5),
    PooledLabel("q1", "d3", 1, None, STRATUM, False, 0.5),
]


# Four more audited pairs e0-e3 (not relevant, relevant, ...) for a world in which each
# system has enough audited labels bearing on it (5 at least) for intervals of its own.
SHARED = [PooledLabel("q1", f"e{i}", 1, i % 2, STRATUM, True, 0.5) for i in range(4)]


def _intervals(runs, measures=("P@10",), fixed=None, pool=POOL):
    return refined_intervals(
        runs=runs, fixed=fixed or {}, pool=pool, queries=["q1"], measures=measures
    )


def test_a_zero_variance_difference_the_unaudited_pairs_move_is_their_whole_range():
    # a and b share d1 and d2 in their top 10 (equal P@10 slopes: the variance of a - b is
    # 0); only a ranks d3. a - b is 0.1 when d3 is relevant and 0 when not: the GREG
    # estimate 0.05 (d3 predicted at 1/2) with zero width would cover neither and settle
    # the pair. Its whole range [0, 0.1] (a's [0.1, 0.2] less b's 0.1) holds both.
    found = _intervals({"a": {"q1": ["d1", "d2", "d3"]}, "b": {"q1": ["d1", "d2", "x"]}})
    diff = difference_interval(found, "a", "b", "P@10")
    assert (diff.low, diff.high) == pytest.approx((0.0, 0.1))
    assert diff.low <= diff.estimate <= diff.high
    [pair] = pair_comparisons(found, "P@10")
    assert not pair.settled
    # Here a and b have two audited labels each, too few: their own notes say so, and the
    # difference is not named again. With e0-e3 in both top 10s (six each, all moving a and
    # b alike) the difference alone is named.
    assert unmeasured_differences(found, "P@10") == []
    shared = [f"e{i}" for i in range(4)]
    runs = {"a": {"q1": ["d1", "d2", "d3", *shared]}, "b": {"q1": ["d1", "d2", "x", *shared]}}
    found = _intervals(runs, pool=POOL + SHARED)
    assert found.by_system["a"]["P@10"].n_bearing == 6
    assert difference_interval(found, "a", "b", "P@10").n_bearing == 0
    assert unmeasured_differences(found, "P@10") == ["a - b P@10"]
    note = unmeasured_difference_note(["a - b P@10"])
    assert note.startswith("a - b P@10: the human sample gives no measure of the error")


def test_the_tau_interval_leaves_such_a_pair_open():
    # a - b is the pair above, ordered b over a before. Settled wrongly (a above b by 0.05),
    # it would make tau -1 with certainty; d3 not relevant ties the two, so tau is open.
    found = _intervals({"a": {"q1": ["d1", "d2", "d3"]}, "b": {"q1": ["d1", "d2", "x"]}})
    tau = kendall_tau_interval(found, {"a": 0.1, "b": 0.2}, measure="P@10")
    assert tau is not None
    _, low, high = tau
    assert (low, high) == pytest.approx((-1.0, 1.0))


@pytest.mark.parametrize("measure", ["P@10", "nDCG@10", "R@100"])
def test_identical_top_lists_are_an_exact_tie_left_zero_width_and_unnamed(measure):
    runs = {"a": {"q1": ["d1", "d2", "d3"]}, "b": {"q1": ["d1", "d2", "d3"]}}
    found = _intervals(runs, measures=(measure,))
    diff = difference_interval(found, "a", "b", measure)
    assert (diff.estimate, diff.low, diff.high) == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)
    assert unmeasured_differences(found, measure) == []


def test_an_unaudited_pair_anywhere_in_both_top_tens_cannot_move_a_p_at_10_difference():
    # d3 at rank 3 in a, rank 1 in b: both count it, so a - b is exactly a's fixed relevant
    # f1, 0.1, whatever d3's label. Zero-width at 0.1, settled, unnamed.
    runs = {"a": {"q1": ["d1", "d2", "d3", "f1"]}, "b": {"q1": ["d3", "d2", "d1"]}}
    found = _intervals(runs, fixed={"q1": {"f1": 1}})
    diff = difference_interval(found, "a", "b", "P@10")
    assert (diff.estimate, diff.low, diff.high) == pytest.approx((0.1, 0.1, 0.1))
    [pair] = pair_comparisons(found, "P@10")
    assert pair.settled
    assert unmeasured_differences(found, "P@10") == []


def test_the_shared_ideal_dcg_cancels_only_when_the_dcgs_are_equal():
    # d3 at the same rank in both, so it adds the same gain to both DCGs; but a also ranks
    # the fixed relevant f1: a - b = gain(f1) / ideal DCG, and the ideal DCG grows when d3
    # is relevant, so d3 moves the difference (1/log2(5) / ideal of 3 or of 4).
    labels = {"q1": QueryLabels(frozenset({"d1", "f1"}), frozenset({"d3"}))}
    a = system_footprint("nDCG@10", {"q1": ["d1", "d2", "d3", "f1"]}, labels)
    b = system_footprint("nDCG@10", {"q1": ["d1", "d2", "d3"]}, labels)
    assert undetermined_queries(a, b) == ["q1"]
    # Without f1 the DCGs are equal for every labelling: the ratio's difference is 0.
    b_same = system_footprint("nDCG@10", {"q1": ["d1", "d2", "d3", "z"]}, labels)
    assert undetermined_queries(b, b_same) == []
    # With ten known relevant documents the ideal DCG is fixed: a - b is known.
    ten = {"q1": QueryLabels(frozenset({"f1", *(f"k{i}" for i in range(9))}), frozenset({"d3"}))}
    a10 = system_footprint("nDCG@10", {"q1": ["d1", "d2", "d3", "f1"]}, ten)
    b10 = system_footprint("nDCG@10", {"q1": ["d1", "d2", "d3"]}, ten)
    assert undetermined_queries(a10, b10) == []


@pytest.mark.parametrize("measure", ["P@10", "nDCG@10"])
def test_a_difference_the_unaudited_pairs_cannot_move_is_its_exact_value(measure):
    # d3 (no human label) at rank 2 in both; a ranks the audited relevant d1 first, b the
    # audited not relevant d2. On P@10 a - b is 0.1 whatever d3 is; on nDCG@10 it is
    # 1 / ideal DCG, and the ideal DCG moves with d3, so only P@10 is known here. The GREG
    # estimate of a known difference would have a width (d1's residual moves a only); its
    # exact value has none, and settles the pair.
    runs = {"a": {"q1": ["d1", "d3"]}, "b": {"q1": ["d2", "d3"]}}
    found = _intervals(runs, measures=(measure,))
    diff = difference_interval(found, "a", "b", measure)
    if measure == "P@10":
        assert (diff.estimate, diff.low, diff.high) == pytest.approx((0.1, 0.1, 0.1))
        [pair] = pair_comparisons(found, measure)
        assert pair.settled
        tau = kendall_tau_interval(found, {"a": 0.3, "b": 0.2}, measure=measure)
        assert tau is not None and tau[1:] == pytest.approx((1.0, 1.0))
    else:
        assert diff.high - diff.low > 0.01


def test_the_early_stopping_check_agrees_with_the_list_of_undetermined_queries():
    from assess.evaluation.interval_range import footprints_equal

    rng = __import__("random").Random(3)
    keys = [None, frozenset(), frozenset({"d1"}), (frozenset({("d1", 2)}), 0.5)]
    agreed = 0
    for _ in range(2_000):
        a = {f"q{i}": rng.choice(keys) for i in range(3) if rng.random() < 0.8}
        b = {f"q{i}": rng.choice(keys) for i in range(3) if rng.random() < 0.8}
        known = not undetermined_queries(a, b)
        assert footprints_equal(a, b) == known
        agreed += known
    assert 0 < agreed < 2_000  # both answers were met
