"""Hole@10: share of a run's top 10 that was unjudged originally and is relevant after refining."""

from __future__ import annotations

import pytest

from assess.evaluation.metrics import hole_at_k, holes_per_query
from tests.fixtures.metrics import ALPHA, BETA, GAMMA, ORIGINAL, REFINED


def test_hole_at_10_of_the_toy_systems_equals_the_hand_worked_shares():
    """Holes filled by the refinement: q1 {d}, q2 {f, g}, q3 {j}. Hole@10 divides by 10.

    alpha: q1 {d} 1/10, q2 {f} 1/10, q3 {j} 1/10  → mean 0.1.
    beta:  q1 {d} 1/10, q2 {f, g} 2/10, q3 {j} 1/10 → mean 0.4 / 3 = 0.133333.
    gamma: q1 b, a judged; q2 e judged; q3 z never judged (not a hole), i judged → 0.
    """
    alpha_mean, alpha = hole_at_k(ORIGINAL, REFINED, ALPHA)
    beta_mean, beta = hole_at_k(ORIGINAL, REFINED, BETA)
    gamma_mean, _ = hole_at_k(ORIGINAL, REFINED, GAMMA)

    assert alpha == pytest.approx({"q1": 0.1, "q2": 0.1, "q3": 0.1})
    assert alpha_mean == pytest.approx(0.1)
    assert beta == pytest.approx({"q1": 0.1, "q2": 0.2, "q3": 0.1})
    assert beta_mean == pytest.approx(0.133333, abs=1e-6)
    assert gamma_mean == 0.0


def test_a_document_judged_irrelevant_originally_is_not_a_hole_even_if_refined_relevant():
    """q1 b was judged 0; a refinement that relabels it 1 did not fill a hole: Hole@10 = 0."""
    refined = {"q1": {**ORIGINAL["q1"], "b": 1}}

    mean, per_query = hole_at_k(ORIGINAL, refined, {"q1": {"b": 1.0}})

    assert per_query == {"q1": 0.0}
    assert mean == 0.0


def test_hole_at_k_averages_over_the_queries_the_run_ranks_unless_told_otherwise():
    """beta restricted to q2 ranks 2 holes: 0.2 over the one ranked query; over all three
    toy queries (q1, q3 unranked count 0) it is 0.2 / 3 = 0.066667. With k = 1 only f counts:
    1/1 = 1.0."""
    run = {"q2": BETA["q2"]}

    assert hole_at_k(ORIGINAL, REFINED, run) == (pytest.approx(0.2), {"q2": pytest.approx(0.2)})
    mean, per_query = hole_at_k(ORIGINAL, REFINED, run, queries=["q1", "q2", "q3"])
    assert per_query == {"q1": 0.0, "q2": pytest.approx(0.2), "q3": 0.0}
    assert mean == pytest.approx(0.066667, abs=1e-6)
    assert hole_at_k(ORIGINAL, REFINED, run, k=1)[0] == 1.0


def test_holes_per_query_counts_new_relevant_documents_of_the_refined_qrels():
    """q1 gained d (x is 0, not a hole); q2 gained f and g; q3 gained j."""
    assert holes_per_query(ORIGINAL, REFINED) == {"q1": 1, "q2": 2, "q3": 1}
