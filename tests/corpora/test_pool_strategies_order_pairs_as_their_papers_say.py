"""The pool strategies' judging orders, worked by hand on two runs and two queries."""

import pytest

from corpora.pool_strategies import StrategyParams, budget_resolve, pool_order

# Run A ranks q1: d1 d2 d3 and q2: e1 e2; run B ranks q1: d2 d4 d1 and q2: e3 e1.
RANKINGS = {
    "A": {"q1": ["d1", "d2", "d3"], "q2": ["e1", "e2"]},
    "B": {"q1": ["d2", "d4", "d1"], "q2": ["e3", "e1"]},
}
ALL_PAIRS = {
    ("q1", "d1"), ("q1", "d2"), ("q1", "d3"), ("q1", "d4"),
    ("q2", "e1"), ("q2", "e2"), ("q2", "e3"),
}  # fmt: skip


def test_depth_judges_rank_by_rank_across_queries():
    # Best rank 1: q1 d1, q1 d2, q2 e1, q2 e3; rank 2: q1 d4, q2 e2; rank 3: q1 d3.
    assert pool_order("depth", RANKINGS) == [
        ("q1", "d1"), ("q1", "d2"), ("q2", "e1"), ("q2", "e3"),
        ("q1", "d4"), ("q2", "e2"), ("q1", "d3"),
    ]  # fmt: skip


def test_rbp_sums_each_runs_weight_and_interleaves_queries_by_position():
    # q1: d2 = 0.2*0.8 (A rank 2) + 0.2 (B rank 1) = 0.36; d1 = 0.2 + 0.2*0.64 = 0.328;
    # d4 = 0.16; d3 = 0.128. q2: e1 = 0.2 + 0.16 = 0.36; e3 = 0.2; e2 = 0.16.
    # First place of each query (q1 d2, q2 e1: tied at 0.36, query order), then second...
    assert pool_order("rbp", RANKINGS) == [
        ("q1", "d2"), ("q2", "e1"), ("q1", "d1"), ("q2", "e3"),
        ("q1", "d4"), ("q2", "e2"), ("q1", "d3"),
    ]  # fmt: skip


def test_rrf_with_a_small_k_puts_the_document_both_runs_rank_first():
    # k = 1: q1 d2 = 1/3 + 1/2 = 0.833; d1 = 1/2 + 1/4 = 0.75; d4 = 1/3; d3 = 1/4.
    order = pool_order("rrf", RANKINGS, params=StrategyParams(rrf_k=1))
    assert [d for q, d in order if q == "q1"] == ["d2", "d1", "d4", "d3"]


def test_known_labels_are_never_returned_and_the_budget_stops_the_order():
    order = pool_order("rbp", RANKINGS, labels={("q1", "d2"): 1}, budget=3)
    assert order == [("q2", "e1"), ("q1", "d1"), ("q2", "e3")]


@pytest.mark.parametrize("strategy", ["depth", "rbp", "rrf", "bandit", "mtc"])
def test_every_strategy_orders_every_candidate_once(strategy):
    order = pool_order(strategy, RANKINGS)
    assert len(order) == len(set(order)) == 7
    assert set(order) == ALL_PAIRS


def test_maxmean_keeps_pulling_the_run_that_finds_relevant_documents():
    truth = {("q1", "d2"): 1, ("q1", "d4"): 1, ("q2", "e3"): 1}
    order = pool_order(
        "bandit",
        RANKINGS,
        oracle=lambda q, d: truth.get((q, d), 0),
        params=StrategyParams(bandit_discount=1.0),
    )
    # All arms start at 1/2; ties go to the higher rank, then query, then run: (q1, A) judges
    # d1 (not relevant, its mean 1/3); (q1, B) judges d2 (relevant: B 2/3; A, which passed
    # d2 while it was pending, learns it too: 1/2); B again: d4 relevant (3/4); B has only
    # d1 left, already judged, so its arm is spent; (q1, A) at 1/2 ties the fresh q2 arms
    # but its next document ranks 3rd, theirs 1st: (q2, A) judges e1 (not relevant, 1/3),
    # (q2, B) judges e3 (relevant, 2/3) then passes e1; (q1, A) d3, then (q2, A) e2.
    assert order == [
        ("q1", "d1"), ("q1", "d2"), ("q1", "d4"),
        ("q2", "e1"), ("q2", "e3"), ("q1", "d3"), ("q2", "e2"),
    ]  # fmt: skip


def test_mtc_judges_first_the_document_that_most_separates_the_runs():
    # One system pair (A, B). DCG weights 1/log2(rank+1): rank 1 = 1, rank 2 = 0.631, 3 = 0.5.
    # |w_A - w_B|: q2 e3 = 1 (B rank 1 only), q1 d4 = q2 e2 = 0.631, q1 d1 = |1 - 0.5| = 0.5,
    # q1 d3 = 0.5, q1 d2 = |0.631 - 1| = 0.369, q2 e1 = 0.369.
    assert pool_order("mtc", RANKINGS)[:3] == [("q2", "e3"), ("q1", "d4"), ("q2", "e2")]


def test_mtc_stops_counting_a_system_pair_once_its_order_is_settled():
    # One query, three runs. DCG weights: rank 1 = 1, rank 2 = 0.631, rank 3 = 0.5.
    # A: r s; B: z; C: w w2 u. Priorities (sum of |w_x - w_y| over the pairs AB, AC, BC):
    # r = 2, w = 2, z = 2, s = 1.262, w2 = 1.262, u = 1. Only r is relevant.
    # r, w, z first (ties in key order). After z, A - B >= 1 whatever s is: AB is decided,
    # so s counts only for AC (0.631) and falls behind w2 (1.262). After w2, A - C >= 1 - 0.5:
    # AC is decided too, s drops to 0 and u (BC, 0.5) goes before it.
    rankings = {"A": {"q": ["r", "s"]}, "B": {"q": ["z"]}, "C": {"q": ["w", "w2", "u"]}}
    order = pool_order("mtc", rankings, oracle=lambda q, d: int(d == "r"))
    assert [d for _, d in order] == ["r", "w", "z", "w2", "u", "s"]


@pytest.mark.parametrize(
    ("budget", "expected"),
    [(None, (50, "")), (0.6, (30, "")), (0.001, (1, "")), (20, (20, "")), (20.0, (20, ""))],
)
def test_a_budget_is_a_count_or_a_share_of_the_pool(budget, expected):
    assert budget_resolve(budget, pool_size=50) == expected


def test_a_budget_larger_than_the_pool_falls_back_to_the_whole_pool_and_says_so():
    assert budget_resolve(80, pool_size=50) == (
        50,
        "budget 80 is more than the pool's 50 pairs: every pair is judged",
    )


@pytest.mark.parametrize("budget", [0, -1, 2.5])
def test_a_budget_of_zero_or_a_fractional_count_is_refused(budget):
    with pytest.raises(ValueError, match="budget"):
        budget_resolve(budget, pool_size=50)


def test_an_unknown_strategy_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match="depth, rbp, rrf, bandit, mtc"):
        pool_order("random", RANKINGS)
