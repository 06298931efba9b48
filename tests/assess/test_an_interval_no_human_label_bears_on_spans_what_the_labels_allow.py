"""A system whose top k holds none of the sample's human labels: nothing checks the machine
labels its value rests on, and the GREG variance (a sum over the sampled pairs) is 0. Its
interval is every value the pairs without a human label allow, never a zero-width one that
looks certain, and the notes say why (no database)."""

import re

import pytest

from assess.evaluation.interval_comparisons import difference_interval, labels_for_half_width
from assess.evaluation.intervals import PooledLabel, refined_intervals

# q1: fixed d1 relevant; pooled d2, d3 agreed relevant, never drawn; d4 agreed relevant and
# audited (human 1); d6-d10 agreed relevant and audited, all overturned (human 0); d5
# escalated and judged 0. System "seen" ranks d4 and d5, then d2, then d6-d10: six audited
# labels bear on its P@10 (d5, drawn with certainty, says nothing of the others), enough for
# an interval of its own (n_b = 5 at least, below). System "unseen" ranks only d1, d2, d3:
# no sampled pair in its top 10. The overturned pairs are relevant to neither, so the
# ranges below do not depend on them.
FIXED = {"q1": {"d1": 1}}
POOL = [
    PooledLabel("q1", "d2", 1, None, "label 1, round 1", False, 0.5),
    PooledLabel("q1", "d3", 1, None, "label 1, round 1", False, 0.5),
    PooledLabel("q1", "d4", 1, 1, "label 1, round 1", True, 0.5),
    PooledLabel("q1", "d5", None, 0, "escalated", True, 1.0),
    *(PooledLabel("q1", f"d{i}", 1, 0, "label 1, round 1", True, 0.5) for i in range(6, 11)),
]
RUNS = {
    "seen": {"q1": ["d4", "d5", "d2", *(f"d{i}" for i in range(6, 11))]},
    "unseen": {"q1": ["d1", "d2", "d3"]},
}


def intervals():
    return refined_intervals(runs=RUNS, fixed=FIXED, pool=POOL, queries=["q1"])


def test_the_unseen_systems_interval_is_every_value_its_unjudged_pairs_allow():
    found = intervals()
    # P@10 of "unseen": d1 relevant, d2 and d3 unknown: 1/10 to 3/10.
    p10 = found.by_system["unseen"]["P@10"]
    assert (p10.low, p10.high) == pytest.approx((0.1, 0.3))
    assert found.ranges["P@10"]["unseen"] == pytest.approx((0.1, 0.3))
    assert any(
        note.startswith("unseen nDCG@10, unseen P@10, unseen R@100: no audited pair of the "
                        "human sample falls")
        for note in found.notes
    )  # fmt: skip
    # nDCG@10 too: the audited d4 is in its ideal DCG, so d4's label moves "unseen"'s value,
    # but only through the normalisation: nothing checks the labels of its top 10, so n_b = 0
    # and the interval is the whole range. Relevant known d1 and d4: d2 and d3 relevant give
    # (1 + 1/log2 3 + 1/2) / (1 + 1/log2 3 + 1/2 + 1/log2 5) = 2.13093 / 2.56161 = 0.83187;
    # neither, 1 / (1 + 1/log2 3) = 0.61315.
    ndcg = found.by_system["unseen"]["nDCG@10"]
    assert found.ranges["nDCG@10"]["unseen"] == pytest.approx((0.61315, 0.83187), abs=1e-5)
    assert ndcg.n_bearing == 0
    assert (ndcg.low, ndcg.high) == pytest.approx((0.61315, 0.83187), abs=1e-5)


def test_a_system_the_sample_reaches_keeps_its_own_interval():
    found = intervals()
    p10 = found.by_system["seen"]["P@10"]
    # "seen" ranks d4 (human 1) and d5 (human 0) and d2 unknown: 0.1 to 0.2, and its
    # interval is the estimator's, inside that range.
    assert found.ranges["P@10"]["seen"] == pytest.approx((0.1, 0.2))
    assert 0.1 <= p10.low <= p10.estimate <= p10.high <= 0.2
    # Six audited labels, each of slope 1/10 and design weight (1 - 0.5) / 0.25 = 2, but in
    # two model cells of variance v = 0.21227 (five) and 0.25 (one): terms 0.02 v, and Kish's
    # effective size (5 * 0.21227 + 0.25)^2 / (5 * 0.21227^2 + 0.25^2) = 1.71958 / 0.28778
    # = 5.975, floored: n_b = 5, still enough for an interval of its own.
    assert p10.n_bearing == 5
    # No note gives its P@10 the whole range (its nDCG@10 and R@100 get it: d4's term, at
    # rank 1, outweighs the others', n_b = 1 and 3).
    assert not any(
        re.search(r"(^|, )seen P@10", note)
        and "every value the pairs without a human label" in note
        for note in found.notes
    )
    assert found.by_system["seen"]["nDCG@10"].n_bearing == 1


def test_a_difference_with_an_unseen_system_spans_what_the_labels_allow():
    # seen - unseen on P@10: the sample measures no error of "unseen", so none of the
    # difference either: its range, seen's lowest less unseen's highest (0.1 - 0.3) to seen's
    # highest less unseen's lowest (0.2 - 0.1). nDCG@10, which the sample reaches for both,
    # keeps the estimator's interval (within its range).
    found = intervals()
    diff = difference_interval(found, "seen", "unseen", "P@10")
    assert (diff.low, diff.high) == pytest.approx((-0.2, 0.1))
    ndcg = difference_interval(found, "seen", "unseen", "nDCG@10")
    (a_low, a_high), (b_low, b_high) = (found.ranges["nDCG@10"][s] for s in ("seen", "unseen"))
    assert a_low - b_high <= ndcg.low and ndcg.high <= a_high - b_low


def test_the_budget_planner_leaves_out_a_system_no_audited_pair_reaches():
    # Six audited labels of a pool of 100 agreed pairs: pi = 0.06. "seen"'s P@10 half-width
    # 0.05 (kept within [0.1, 0.2]) needs pi' = 1 / (1 + (0.94 / 0.06) (0.01 / 0.05)^2) =
    # 1 / 1.62667 = 0.61475: ceil(55.475) = 56 more. "unseen"'s half-width 0.1 is its whole
    # range, which more audits of other pairs would not shrink as (1 - pi) / pi; counted, it
    # would have said 1 / (1 + 15.667 * 0.01) = 0.86455: ceil(80.46) = 81.
    found = intervals()
    assert found.by_system["seen"]["P@10"].half_width == pytest.approx(0.05)
    assert found.by_system["unseen"]["P@10"].half_width == pytest.approx(0.1)
    assert labels_for_half_width(found, measure="P@10", pool_size=100, target=0.01) == 56


def _planned(**systems):
    """SystemIntervals of 10 audited labels over 100 agreed pairs (pi = 0.1) whose nDCG@10
    intervals are ``systems``: name -> (half-width, n_b)."""
    from assess.evaluation.interval_range import Interval
    from assess.evaluation.intervals import SystemIntervals

    by_system = {
        name: {"nDCG@10": Interval(0.5, 0.5 - half, 0.5 + half, 10, bearing)}
        for name, (half, bearing) in systems.items()
    }
    return SystemIntervals(method="ppi", n_human=10, queries=5, by_system=by_system)


def test_a_system_on_too_few_labels_asks_for_the_share_that_gives_it_five():
    # pi = 0.1. "thin" rests on n_b = 2 (its interval the whole range, half-width 0.5):
    # Cochran's rule on that width would ask pi' = 1 / (1 + 9 (0.01 / 0.5)^2) = 0.99641,
    # 90 more of 100. Its n_b grows with the share, so n_b = 5 needs pi' = 0.1 * 5 / 2 =
    # 0.25: ceil(15) = 15 more. "measured" (n_b 8, half-width 0.05) needs
    # 1 / (1 + 9 (0.01 / 0.05)^2) = 1 / 1.36 = 0.73529: ceil(63.53) = 64, the larger.
    assert labels_for_half_width(_planned(thin=(0.5, 2)), pool_size=100) == 15
    both = _planned(thin=(0.5, 2), measured=(0.05, 8))
    assert labels_for_half_width(both, pool_size=100) == 64


def test_a_system_on_one_label_asks_for_at_most_every_pair():
    # n_b = 1 at pi = 0.1 asks pi * 5 = 0.5: 40 more; at pi = 0.3 it would ask 1.5, kept
    # at every pair: 70 more of 100.
    assert labels_for_half_width(_planned(thin=(0.5, 1)), pool_size=100) == 40
    found = _planned(thin=(0.5, 1))
    found.n_human = 30
    assert labels_for_half_width(found, pool_size=100) == 70


def test_the_planner_says_its_figure_is_a_first_step_for_a_system_on_too_few_labels():
    from assess.evaluation.interval_comparisons import first_step_note

    note = first_step_note(_planned(thin=(0.5, 2), measured=(0.05, 8)))
    assert note.startswith("for thin, whose nDCG@10 rests on fewer than 5 labels'")
    assert "first step" in note and "plan again then" in note
    assert first_step_note(_planned(measured=(0.05, 8))) == ""
