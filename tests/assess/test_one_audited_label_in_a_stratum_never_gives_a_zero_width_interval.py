"""A stratum whose audit answered one pair cannot measure its own error: the pair's label
is its model's whole estimate, so its residual is 0 whatever the other pairs are. Such a
stratum joins its same-label sibling before the model and the variance are computed
(collapsed strata, as for one unit per stratum), and a value the sample then gives no
variance for spans its whole range instead of a zero-width interval (no database)."""

import pytest

from assess.evaluation.intervals import PooledLabel, refined_intervals
from core.proportions import collapse_targets

# q1-d1 agreed relevant, not audited: its query's R@100 is 1 if it is relevant, else 0 (no
# other relevant document). q2's two pairs are audited and both relevant (R@100 = 1).
LONE = [
    PooledLabel("q1", "d1", 1, None, "label 1, round 1", False, 0.5),
    PooledLabel("q2", "d1", 1, 1, "label 1, round 1", True, 0.5),
    PooledLabel("q2", "d2", 0, 1, "label 0, round 1", True, 0.5),
]
RUNS = {"s": {"q1": ["d1"], "q2": ["d1", "d2"]}}


def _intervals(pool):
    return refined_intervals(
        runs=RUNS, fixed={}, pool=pool, queries=["q1", "q2"], measures=("R@100",)
    )


def test_one_label_per_stratum_and_no_sibling_gives_the_whole_range():
    # Each stratum's one audited label is its model: q1-d1 is predicted relevant for sure,
    # the estimate is 1, the top of the range [(0 + 1) / 2, 1], and no audited pair's label
    # moves it alone (q2 holds another relevant pair): the variance is 0. A zero-width
    # [1, 1] would claim the unaudited q1-d1 is surely relevant; one label cannot say that.
    found = _intervals(LONE)
    interval = found.by_system["s"]["R@100"]
    assert found.ranges["R@100"]["s"] == pytest.approx((0.5, 1.0))
    assert (interval.low, interval.high) == pytest.approx((0.5, 1.0))
    assert ("R@100", "s") in found.unseen
    # Two audited labels bear on it, fewer than 5: that is the reason the note gives, before
    # its variance of 0 (either gives the whole range).
    assert found.notes == [
        "s R@100: too few human labels (audited or escalated) bear on this run's value "
        "(n_b = 2; at least 5 needed): "
        "the interval is every value the pairs without a human label allow"
    ]


def test_a_stratum_with_one_audited_label_joins_its_same_label_sibling():
    # A second "label 1" stratum with four audited pairs, two of them relevant (outside
    # the runs' top 100, so they move no value): the lone stratum joins it, and q1-d1 is
    # predicted at the union's share of relevant (3 of 5), not at its own one label.
    pool = [
        *LONE,
        *(
            PooledLabel("q2", f"e{i}", 1, int(i < 2), "label 1, round 2", True, 0.5)
            for i in range(4)
        ),
    ]
    found = _intervals(pool)
    assert (
        "stratum 'label 1, round 1' (2 pairs) has 1 human label: collapsed with 'label 1, "
        "round 2' (the same binary machine label), whose audited pairs speak for both"
    ) in found.notes
    interval = found.by_system["s"]["R@100"]
    low, high = found.ranges["R@100"]["s"]
    assert interval.estimate < high - 0.05
    assert interval.high - interval.low > 0.05


def test_strata_with_one_label_join_the_most_answered_of_their_label_and_no_further():
    answered = {"a": 1, "b": 1, "c": 0, "d": 5, "e": 1}
    labels = {"a": {1}, "b": {1}, "c": {1}, "d": {0}, "e": {0}}
    # Label 1: a, b and c join b (1 answer, the larger name); b stays. Label 0: e joins d.
    assert collapse_targets(answered, labels, minimum=2) == {"a": "b", "c": "b", "e": "d"}
    # The default joins only the strata with no answer, as the audit error rate does.
    assert collapse_targets(answered, labels) == {"c": "b"}
