"""nDCG@10 uses the grades as gains (trec_eval's linear gain); the labelled variant
"nDCG@10 (exp. gain)" uses 2^grade - 1. Worked by hand on one query with grades a = 2,
b = 1, c = 0 and the ranking c, b, a (discount 1/log2(rank + 1)):

- linear: DCG = 0 + 1/log2(3) + 2/log2(4) = 0.630930 + 1 = 1.630930; ideal a, b, c =
  2 + 1/log2(3) = 2.630930; nDCG = 0.619906.
- exponential: gains a 3, b 1, c 0: DCG = 1/log2(3) + 3/2 = 2.130930; ideal 3 + 0.630930
  = 3.630930; nDCG = 0.586883.

On binary grades the two are equal (2^1 - 1 = 1).
"""

import math

import pytest

from assess.evaluation.metrics import NDCG10, NDCG10_EXP, evaluate_run, exp_gains, measures_at

RUN = {"q": {"c": 3.0, "b": 2.0, "a": 1.0}}
D2 = 1 / math.log2(3)


def test_linear_and_exponential_gains_give_the_hand_worked_values():
    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    scores, _ = evaluate_run(qrels, RUN, measures=measures_at(exp_gain_grades={0, 1, 2}))
    assert scores[NDCG10] == pytest.approx((D2 + 1) / (2 + D2))
    assert scores[NDCG10] == pytest.approx(0.619906, abs=1e-6)
    assert scores[NDCG10_EXP] == pytest.approx((D2 + 1.5) / (3 + D2))
    assert scores[NDCG10_EXP] == pytest.approx(0.586883, abs=1e-6)


def test_the_gains_are_two_to_the_grade_minus_one_and_zero_below_one():
    assert exp_gains([3, -1, 0, 1, 2, 4]) == {-1: 0, 0: 0, 1: 1, 2: 3, 3: 7, 4: 15}


def test_on_binary_grades_the_two_are_equal():
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    scores, _ = evaluate_run(qrels, RUN, measures=measures_at(exp_gain_grades={0, 1}))
    assert scores[NDCG10_EXP] == pytest.approx(scores[NDCG10])
    assert scores[NDCG10] == pytest.approx((1 + 0.5) / (1 + D2))
