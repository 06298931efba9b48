"""The intervals' model bands each pooled pair by its best rank over the runs its pool was
built from, so which runs a re-benchmark evaluates does not change the model
(assess.evaluation.intervals, worked by hand; the pool's ranks read from PairSource)."""

import pytest

from assess.evaluation.intervals import PooledLabel, refined_intervals
from assess.evaluation.refined_intervals import pool_best_ranks


def pooled(q, d, human):
    return PooledLabel(q, d, 1, human, "label 1, round 1", human is not None, 0.5)


# Three queries, each with its judged relevant document r at rank 1 of run A and one pooled
# pair at rank 5 of A. Run B put p1 and p2 at rank 1: in the pool they are top-3 pairs.
RUN_A = {q: ["r", "f1", "f2", "f3", p] for q, p in (("q1", "p1"), ("q2", "p2"), ("q3", "p3"))}
RUN_B = {"q1": ["p1"], "q2": ["p2"]}
POOL = [pooled("q1", "p1", 1), pooled("q2", "p2", None), pooled("q3", "p3", 0)]
POOL_RANKS = {("q1", "p1"): 1, ("q2", "p2"): 1, ("q3", "p3"): 5}


def intervals(runs, **options):
    return refined_intervals(
        runs=runs,
        fixed={q: {"r": 1} for q in ("q1", "q2", "q3")},
        pool=POOL,
        queries=["q1", "q2", "q3"],
        measures=("P@10",),
        **options,
    )


def test_the_model_is_the_same_whichever_runs_are_evaluated_given_the_pools_ranks():
    both = intervals({"A": RUN_A, "B": RUN_B})
    alone = intervals({"A": RUN_A}, best_rank=POOL_RANKS)
    # The stratum's audited share is 1/2 (p1 relevant, p3 not). p2 shares the top-3 cell with
    # p1: (1 * 1 + 1 * 1/2) / (1 + 1) = 0.75 (one pseudo-label towards the stratum). A's
    # prediction: q1 (r, p1) 0.2, q2 (r, p2 at 0.75) 0.175, q3 (r) 0.1: mean 0.158333.
    assert both.base["P@10"]["A"] == pytest.approx(0.475 / 3)
    assert alone.base["P@10"]["A"] == pytest.approx(0.475 / 3)
    assert alone.by_system["A"]["P@10"] == both.by_system["A"]["P@10"]


def test_without_the_pools_ranks_the_evaluated_runs_decide_the_bands():
    # A alone ranks all three pairs at 5: one cell, p2 predicted at (2 * 1/2 + 1/2) / 3 = 0.5.
    alone = intervals({"A": RUN_A})
    assert alone.base["P@10"]["A"] == pytest.approx(0.45 / 3)


@pytest.mark.django_db
def test_the_pools_best_ranks_are_read_from_the_runs_that_put_each_pair_in_it(refined):
    # Pool p of tests/fixtures/refine.py: alpha put (q1, d3) and (q2, d6) in it at rank 1,
    # beta (q1, d5) and (q2, d3) at rank 3; a pair from two runs keeps the better rank.
    assert pool_best_ranks(refined=refined.refined) == {
        ("q1", "d3"): 1, ("q2", "d6"): 1, ("q1", "d5"): 3, ("q2", "d3"): 3,
    }  # fmt: skip
