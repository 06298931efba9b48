"""A stratum whose pairs no human label reaches is first merged with the strata of the same
binary machine label (grade >= the relevance level), whose audited pairs then speak for it;
one still without a human label gives every value its pairs move the whole range, with a
note naming it (assess.evaluation.intervals; no database). Numbers worked by hand."""

import pytest

from assess.evaluation.intervals import PooledLabel, refined_intervals

TOP = [f"d{i}" for i in range(10)]


def intervals(pool, ranking=TOP):
    docs = {label.doc_id for label in pool}
    return refined_intervals(
        runs={"s": {"q": ranking}},
        fixed={"q": {"x": 1}},
        pool=pool,
        queries=["q"],
        measures=("P@10", "nDCG@10"),
        best_rank={("q", d): 5 for d in docs},
    )


def audited_label_1():
    """d0..d5, machine label 1, all drawn (share 0.5): humans say 1, 1, 1, 0, 0, 0."""
    return [
        PooledLabel("q", f"d{i}", 1, h, "label 1, round 1", True, 0.5)
        for i, h in enumerate([1, 1, 1, 0, 0, 0])
    ]


def test_a_grade_stratum_the_audit_missed_joins_the_stratum_of_its_binary_label():
    # d6..d9: machine grade 3, none drawn. Merged by grade (the old rule) they kept grade 3,
    # relevant, with no error and no variance; merged by the binary label they join label 1,
    # whose audit found half its labels wrong.
    pool = audited_label_1() + [
        PooledLabel("q", f"d{i}", 3, None, "label 3, round 1", False, 0.5) for i in range(6, 10)
    ]
    found = intervals(pool)
    assert any(
        "stratum 'label 3, round 1' (4 pairs) has no human label: collapsed with "
        "'label 1, round 1' (the same binary machine label)" in note
        for note in found.notes
    ), found.notes
    got = found.by_system["s"]["P@10"]
    # 3 audited relevant + 4 unaudited at the model's 0.5 (residuals +-0.5 sum to 0).
    assert got.estimate == pytest.approx((3 + 4 * 0.5) / 10)
    assert got.n_bearing == 6
    assert got.low < 0.5 < got.high


def test_a_stratum_with_no_human_label_at_all_gives_its_values_their_whole_range():
    # d6..d9: machine label 0, none drawn, and no stratum of binary label 0 has a human label:
    # their machine labels (not relevant) would enter unchecked. P@10 lies in [3/10, 7/10].
    pool = audited_label_1() + [
        PooledLabel("q", f"d{i}", 0, None, "label 0, round 1", False, 0.5) for i in range(6, 10)
    ]
    found = intervals(pool)
    got = found.by_system["s"]["P@10"]
    assert (got.low, got.high) == pytest.approx((0.3, 0.7))
    assert ("P@10", "s") in found.unseen and ("nDCG@10", "s") in found.unseen
    note = next(n for n in found.notes if "no human label checks" in n)
    assert "stratum 'label 0, round 1' moves s P@10, s nDCG@10" in note


def test_a_p_at_10_the_unchecked_pairs_stay_out_of_is_not_widened():
    # The label-0 pairs lie below the top 10 (ranks 11-14): P@10 never reads them, so its
    # interval is the GREG one; nDCG@10 reads them through its ideal DCG: whole range.
    pool = audited_label_1() + [
        PooledLabel("q", f"u{i}", 0, None, "label 0, round 1", False, 0.5) for i in range(4)
    ]
    ranking = [*TOP[:6], "y1", "y2", "y3", "y4", "u0", "u1", "u2", "u3"]
    found = intervals(pool, ranking)
    assert ("P@10", "s") not in found.unseen
    assert ("nDCG@10", "s") in found.unseen
