"""ir_measures scores of the toy benchmark (tests/fixtures/metrics.py) equal hand-worked values."""

from __future__ import annotations

import pytest

from assess.evaluation.metrics import evaluate_run
from tests.fixtures.metrics import ALPHA, BETA, D2, ORIGINAL, REFINED


def test_alpha_on_the_original_qrels_scores_the_hand_worked_values():
    """alpha ranks q1 a(2) d(unjudged) b(0); q2 e(1) f(unjudged); q3 i(0) j(unjudged).

    nDCG@10: q1 = 2 / (2 + D2) = 2 / 2.630930 = 0.760188; q2 = 1 / 1 = 1; q3 = 0.
        mean = 1.760188 / 3 = 0.586729.
    R@10 (relevant = grade > 0): q1 1 of {a, c} = 0.5; q2 1 of {e} = 1; q3 0 of {h} = 0;
        mean 0.5.
    P@10 (divides by 10): q1 0.1, q2 0.1, q3 0; mean 0.066667.
    Success@10: 1, 1, 0; mean 0.666667.
    Judged@10 (ir_measures divides by min(10, ranked)): q1 {a, b} of 3 = 0.666667;
        q2 {e} of 2 = 0.5; q3 {i} of 2 = 0.5; mean 0.555556.
    """
    aggregate, per_query = evaluate_run(ORIGINAL, ALPHA)

    assert per_query["q1"]["nDCG@10"] == pytest.approx(2 / (2 + D2))
    assert per_query["q1"]["nDCG@10"] == pytest.approx(0.760188, abs=1e-6)
    assert per_query["q2"]["nDCG@10"] == pytest.approx(1.0)
    assert per_query["q3"]["nDCG@10"] == 0.0
    assert aggregate["nDCG@10"] == pytest.approx(0.586729, abs=1e-6)
    assert [per_query[q]["R@10"] for q in ("q1", "q2", "q3")] == [0.5, 1.0, 0.0]
    assert aggregate["R@10"] == pytest.approx(0.5)
    assert aggregate["R@100"] == pytest.approx(0.5)
    assert aggregate["P@10"] == pytest.approx(0.2 / 3)
    assert aggregate["Success@10"] == pytest.approx(2 / 3)
    assert [per_query[q]["Judged@10"] for q in ("q1", "q2", "q3")] == pytest.approx(
        [2 / 3, 0.5, 0.5]
    )
    assert aggregate["Judged@10"] == pytest.approx(0.555556, abs=1e-6)


def test_alpha_on_the_refined_qrels_gains_from_the_filled_holes():
    """Refined: d, f and j are now relevant and every document alpha ranks is judged.

    nDCG@10: q1 = (2 + D2) / (2 + D2 + D3) = 2.630930 / 3.130930 = 0.840303;
        q2 = (1 + D2) / (1 + D2 + D3) = 1.630930 / 2.130930 = 0.765360;
        q3 = D2 / (1 + D2) = 0.630930 / 1.630930 = 0.386853;  mean 0.664172.
    R@10: q1 2 of {a, c, d} = 0.666667; q2 2 of {e, f, g} = 0.666667; q3 1 of {h, j} = 0.5;
        mean 0.611111.
    Judged@10: 1 on every query.
    """
    aggregate, per_query = evaluate_run(REFINED, ALPHA)

    assert per_query["q1"]["nDCG@10"] == pytest.approx(0.840303, abs=1e-6)
    assert per_query["q2"]["nDCG@10"] == pytest.approx(0.765360, abs=1e-6)
    assert per_query["q3"]["nDCG@10"] == pytest.approx(0.386853, abs=1e-6)
    assert aggregate["nDCG@10"] == pytest.approx(0.664172, abs=1e-6)
    assert aggregate["R@10"] == pytest.approx(0.611111, abs=1e-6)
    assert aggregate["Judged@10"] == 1.0


def test_beta_which_finds_only_holes_is_punished_by_the_original_qrels():
    """beta ranks q1 d(unjudged) c(1); q2 f g (both unjudged); q3 j(unjudged) h(1).

    Original nDCG@10: q1 D2 / (2 + D2) = 0.239812; q2 0; q3 D2 / 1 = 0.630930;
        mean 0.290247.
    Refined nDCG@10: q1 (1 + D2) / 3.130930 = 0.520909; q2 1.630930 / 2.130930 = 0.765360;
        q3 1.630930 / 1.630930 = 1;  mean 0.762090.
    """
    before, _ = evaluate_run(ORIGINAL, BETA)
    after, per_query = evaluate_run(REFINED, BETA)

    assert before["nDCG@10"] == pytest.approx(0.290247, abs=1e-6)
    assert per_query["q1"]["nDCG@10"] == pytest.approx(0.520909, abs=1e-6)
    assert per_query["q3"]["nDCG@10"] == pytest.approx(1.0)
    assert after["nDCG@10"] == pytest.approx(0.762090, abs=1e-6)


def test_a_query_without_a_ranking_scores_zero_and_unjudged_queries_are_ignored():
    """A run that answers only q1 (as alpha) and an extra query q9 the qrels never judged.

    The mean is over the 3 judged queries: nDCG@10 = 0.760188 / 3 = 0.253396; q2 and q3
    score 0 on every measure (trec_eval -c), and q9 is not evaluated.
    """
    run = {"q1": ALPHA["q1"], "q9": {"a": 1.0}}

    aggregate, per_query = evaluate_run(ORIGINAL, run)

    assert sorted(per_query) == ["q1", "q2", "q3"]
    assert per_query["q2"] == dict.fromkeys(per_query["q2"], 0.0)
    assert aggregate["nDCG@10"] == pytest.approx(0.760188 / 3, abs=1e-6)
    assert aggregate["Judged@10"] == pytest.approx((2 / 3) / 3)
