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


def test_mtc_weighs_a_document_by_its_chance_of_being_relevant():
    # One system pair (A, B), one query; A ranks a b, B ranks c d. Known: a relevant, c not.
    # P(relevant) per run arm, Beta(1, 1): A 2/3, B 1/3. |w_A - w_B|: b = d = 0.631.
    # Expected effect: b = 2/3 * 0.631 = 0.421 before d = 1/3 * 0.631 = 0.210 (their
    # swings tie: only the chance of relevance orders them). The pair stays undecided:
    # known A - B = 1, the unjudged can still move it by -0.631 .. +0.631.
    rankings = {"A": {"q": ["a", "b"]}, "B": {"q": ["c", "d"]}}
    order = pool_order("mtc", rankings, labels={("q", "a"): 1, ("q", "c"): 0})
    assert order == [("q", "b"), ("q", "d")]


def test_mtc_stops_counting_a_system_pair_once_its_order_is_settled():
    # q1: A ranks s r, B ranks z; q2: only C ranks m. Known: r relevant, z not.
    # A - B = 0.631 (r at A's rank 2) plus at most +1 (s): decided, so s's weight for AB
    # stops counting. A - C and B - C stay open (m could be relevant).
    # s: swing |AC| = 1, P = 2/3 (A's arm in q1 found r): 0.667.
    # m: swing |AC| + |BC| = 2, P = 1/2: 1.0, so m goes first. Had AB still counted,
    # s would have swing 2 and lead with 1.333.
    rankings = {"A": {"q1": ["s", "r"]}, "B": {"q1": ["z"]}, "C": {"q2": ["m"]}}
    order = pool_order("mtc", rankings, labels={("q1", "r"): 1, ("q1", "z"): 0})
    assert order == [("q2", "m"), ("q1", "s")]


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


@pytest.mark.parametrize("budget", [0, -1, 2.5, float("inf"), float("nan")])
def test_a_budget_of_zero_a_fractional_count_or_not_a_finite_number_is_refused(budget):
    with pytest.raises(ValueError, match="budget"):
        budget_resolve(budget, pool_size=50)


def test_mtc_with_one_run_judges_in_rank_order_interleaving_queries():
    # One run: no system pair, every effect is 0: the depth order (best rank, then key).
    rankings = {"A": {"q1": ["d9", "d8", "d7"], "q2": ["e2", "e1"]}}
    assert pool_order("mtc", rankings) == [
        ("q1", "d9"), ("q2", "e2"), ("q1", "d8"), ("q2", "e1"), ("q1", "d7")
    ]  # fmt: skip


def test_an_unknown_strategy_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match="depth, rbp, rrf, bandit, mtc"):
        pool_order("random", RANKINGS)
