"""n_b, the human labels an interval rests on, counts neither pairs drawn with certainty (they
add nothing to the variance) nor, for nDCG@10 and R@100, pairs that only move the
normalisation (outside the top k the value reads): on so few the interval is the whole range
(assess.evaluation.interval_range.sample_bears_on; no database)."""

from assess.evaluation.intervals import PooledLabel, refined_intervals

DOCS = [f"d{i}" for i in range(10)]
MEASURES = ("nDCG@10", "P@10", "R@100")


def test_pairs_audited_with_certainty_do_not_count():
    # One query, s ranks d0..d9: d0..d4 audited at pi = 1, d5..d7 at pi = 0.5, d8, d9 open.
    pool = [PooledLabel("q", d, 1, [1, 0, 1, 0, 1][i], "sure", True, 1.0) for i, d in
            enumerate(DOCS[:5])]  # fmt: skip
    pool += [PooledLabel("q", d, 1, [1, 0, 1][i], "half", True, 0.5) for i, d in
             enumerate(DOCS[5:8])]  # fmt: skip
    pool += [PooledLabel("q", d, 1, None, "half", False, 0.5) for d in DOCS[8:]]
    found = refined_intervals(
        runs={"s": {"q": DOCS}},
        fixed={"q": {"x": 1}},
        pool=pool,
        queries=["q"],
        measures=MEASURES,
        best_rank={("q", d): 5 for d in DOCS},
    )
    # Only d5..d7 have a design weight; before, nDCG@10 and R@100 counted the 5 sure pairs
    # through their couples (n_b = 8) and gave a t interval resting on 3 labels.
    for measure in MEASURES:
        got = found.by_system["s"][measure]
        assert got.n_bearing is not None and got.n_bearing <= 3, (measure, got)
        assert (got.low, got.high) == found.ranges[measure]["s"], measure
        assert (measure, "s") in found.unseen


def test_pairs_that_only_move_the_normalisation_do_not_count():
    # s's top 10 on q1 holds no audited pair; on q2 it ranks f0 (known relevant) .. f9 and
    # none of the 8 audited pairs e0..e7, which move its nDCG@10 and R@100 only through the
    # ideal DCG and the relevant count.
    extra = [f"e{i}" for i in range(8)]
    ranked = [f"f{i}" for i in range(10)]
    pool = [PooledLabel("q1", d, 1, None, "one", False, 0.5) for d in DOCS]
    pool += [PooledLabel("q2", e, 1, i % 2, "one", True, 0.5) for i, e in enumerate(extra)]
    pool += [PooledLabel("q2", f, 1, None, "one", False, 0.5) for f in ranked[1:]]
    best = {("q1", d): 5 for d in DOCS} | {("q2", d): 5 for d in extra + ranked}
    found = refined_intervals(
        runs={"s": {"q1": DOCS, "q2": ranked}},
        fixed={"q1": {"x": 1}, "q2": {"f0": 1}},
        pool=pool,
        queries=["q1", "q2"],
        measures=MEASURES,
        best_rank=best,
    )
    for measure in MEASURES:
        got = found.by_system["s"][measure]
        # Before: P@10 n_b = 0 but nDCG@10 n_b = 8 with the interval [0.58, 0.68].
        assert got.n_bearing == 0, (measure, got)
        assert (got.low, got.high) == found.ranges[measure]["s"], measure
    assert any("no audited pair of the human sample falls where" in n for n in found.notes)
