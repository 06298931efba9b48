"""Leaderboards on original and refined qrels, rank changes and Kendall's tau between them."""

from __future__ import annotations

import pytest

from assess.evaluation.metrics import (
    PAPER_NDCG10,
    RankChange,
    kendall_tau,
    leaderboard,
    rebenchmark,
)
from tests.fixtures.metrics import ORIGINAL, REFINED, RUNS


def test_the_toy_leaderboards_reorder_the_systems_as_worked_by_hand():
    """nDCG@10 means (see tests/fixtures/metrics.py and the toy-example test):

    original: alpha 0.586729 > gamma 0.493208 > beta 0.290247
    refined:  beta 0.762090 > alpha 0.664172 > gamma 0.290770
    gamma: q1 b(0) a(2) = 2 D2 / 2.630930 = 0.479625 (orig) and / 3.130930 = 0.403030
    (refined); q2 e = 1 (orig) and 1 / 2.130930 = 0.469279 (refined); q3 0.
    Rank changes (before - after): alpha 1 → 2 (-1), beta 3 → 1 (+2), gamma 2 → 3 (-1).
    """
    result = rebenchmark(ORIGINAL, REFINED, RUNS)

    assert [row.system for row in result.before] == ["alpha", "gamma", "beta"]
    assert [row.system for row in result.after] == ["beta", "alpha", "gamma"]
    assert [row.rank for row in result.after] == [1, 2, 3]
    assert [row.scores["nDCG@10"] for row in result.before] == pytest.approx(
        [0.586729, 0.493208, 0.290247], abs=1e-6
    )
    assert [row.scores["nDCG@10"] for row in result.after] == pytest.approx(
        [0.762090, 0.664172, 0.290770], abs=1e-6
    )
    assert result.rank_changes == {
        "alpha": RankChange(before=1, after=2, change=-1),
        "beta": RankChange(before=3, after=1, change=2),
        "gamma": RankChange(before=2, after=3, change=-1),
    }
    assert result.measures[-1] == PAPER_NDCG10
    assert result.queries == ("q1", "q2", "q3")


def test_kendall_tau_of_the_toy_systems_is_minus_one_third():
    """Pairs before → after: (alpha, beta) swaps (discordant), (alpha, gamma) keeps
    alpha ahead (concordant), (beta, gamma) swaps (discordant). No ties, so tau-b = tau =
    (1 - 2) / 3 = -1/3. With 3 systems every permutation has |tau| >= 1/3, so p = 1.
    """
    result = rebenchmark(ORIGINAL, REFINED, RUNS)

    assert result.kendall_tau == pytest.approx(-1 / 3)
    assert result.kendall_p == pytest.approx(1.0)


def test_per_query_deltas_are_refined_minus_original():
    """beta q2: 0 → 0.765361 (+0.765361); gamma q2: 1 → 0.469279 (-0.530721); alpha q3 Judged@10:
    0.5 → 1 (+0.5)."""
    result = rebenchmark(ORIGINAL, REFINED, RUNS)

    assert result.deltas["beta"]["q2"]["nDCG@10"] == pytest.approx(0.765361, abs=1e-6)
    assert result.deltas["gamma"]["q2"]["nDCG@10"] == pytest.approx(-0.530721, abs=1e-6)
    assert result.deltas["alpha"]["q3"]["Judged@10"] == pytest.approx(0.5)
    assert result.holes == pytest.approx({"alpha": 0.1, "beta": 0.4 / 3, "gamma": 0.0})


def test_tau_b_counts_tied_systems_as_tied_rather_than_ordered_by_name():
    """Before: a 0.5, b 0.5 (tied), c 0.1; after: a 0.2, b 0.6, c 0.1.

    Pairs: (a, b) tied before → neither; (a, c) concordant; (b, c) concordant.
    tau-b = (2 - 0) / sqrt((3 - 1) * (3 - 0)) = 2 / sqrt(6) = 0.816497.
    """
    tau, _ = kendall_tau({"a": 0.5, "b": 0.5, "c": 0.1}, {"a": 0.2, "b": 0.6, "c": 0.1})

    assert tau == pytest.approx(0.816497, abs=1e-6)


def test_tau_is_none_for_one_system_or_a_constant_side():
    assert kendall_tau({"a": 0.5}, {"a": 0.7}) == (None, None)
    assert kendall_tau({"a": 0.5, "b": 0.5}, {"a": 0.1, "b": 0.2}) == (None, None)


def test_a_tie_on_ndcg_is_broken_by_system_name():
    rows = leaderboard({"zeta": {"nDCG@10": 0.4}, "eta": {"nDCG@10": 0.4}, "mu": {"nDCG@10": 0.9}})

    assert [(row.rank, row.system) for row in rows] == [(1, "mu"), (2, "eta"), (3, "zeta")]


def test_queries_judged_only_in_the_refined_qrels_are_listed_not_evaluated():
    refined = {**REFINED, "q4": {"k": 1}}

    result = rebenchmark(ORIGINAL, refined, RUNS)

    assert result.refined_only_queries == ("q4",)
    assert result.queries == ("q1", "q2", "q3")
    assert result.after[0].scores["nDCG@10"] == pytest.approx(0.762090, abs=1e-6)


def test_the_rank_change_table_shows_a_tie_as_a_shared_rank_not_a_place_lost():
    """alpha2 ranks exactly as alpha, so they tie on both sides: =1 before (gamma 3rd, beta
    4th) and =2 after (beta 1st, gamma 4th), each losing one place; the leaderboard's own
    ranks break the tie by name (alpha goes 1 -> 2, alpha2 2 -> 3)."""
    from assess.evaluation.tables import rank_change_table

    result = rebenchmark(ORIGINAL, REFINED, {**RUNS, "alpha2": RUNS["alpha"]})
    assert result.rank_changes["alpha2"] == RankChange(before=2, after=3, change=-1)
    rows = {row[0]: row[1:4] for row in rank_change_table(result).rows}
    assert rows == {
        "beta": ("4", "1", "+3"),
        "alpha": ("=1", "=2", "-1"),
        "alpha2": ("=1", "=2", "-1"),
        "gamma": ("3", "4", "-1"),
    }
    assert "=k: tied at k with a system whose nDCG@10 is equal to 4 decimals" in (
        rank_change_table(result).note
    )
