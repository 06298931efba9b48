"""Recall per class, balanced accuracy, coverage and escalation rate on a hand-worked table."""

import random

import pytest

from debates.assessment import (
    ESCALATED,
    FAILED,
    assessor_scores,
    gold_label,
    stratified_sample,
)

# 5 relevant pairs: 3 labelled 1, 1 labelled 0, 1 escalated.
# 5 irrelevant pairs: 2 labelled 0, 1 labelled 1, 1 escalated, 1 failed.
ROWS = [
    (1, 1),
    (1, 1),
    (1, 1),
    (1, 0),
    (1, ESCALATED),
    (0, 0),
    (0, 0),
    (0, 1),
    (0, ESCALATED),
    (0, FAILED),
]


def test_on_settled_pairs_escalated_and_failed_pairs_are_left_out():
    scores = assessor_scores(ROWS, calls=27)
    # relevant: 3 right of 4 settled; irrelevant: 2 right of 3 settled.
    assert scores.settled.relevant == 3 / 4
    assert scores.settled.irrelevant == 2 / 3
    assert scores.settled.balanced_accuracy == pytest.approx((3 / 4 + 2 / 3) / 2)  # 0.7083
    assert (scores.pairs, scores.gold_relevant, scores.gold_irrelevant) == (10, 5, 5)
    assert (scores.settled_count, scores.escalated, scores.failed) == (7, 2, 1)
    assert (scores.coverage, scores.escalation_rate, scores.calls_per_pair) == (0.7, 0.2, 2.7)


def test_with_humans_assumed_correct_escalated_pairs_count_right_and_failed_ones_wrong():
    scores = assessor_scores(ROWS)
    # relevant: (3 + 1 escalated) of 5; irrelevant: (2 + 1 escalated) of 5, the failed one wrong.
    assert scores.with_humans.relevant == 4 / 5
    assert scores.with_humans.irrelevant == 3 / 5
    assert scores.with_humans.balanced_accuracy == pytest.approx(0.7)


def test_a_class_without_settled_pairs_has_no_recall_and_no_balanced_accuracy():
    scores = assessor_scores([(1, 1), (0, ESCALATED)])
    assert (scores.settled.relevant, scores.settled.irrelevant) == (1.0, None)
    assert scores.settled.balanced_accuracy is None
    assert scores.with_humans.balanced_accuracy == 1.0


@pytest.mark.parametrize(("gold", "outcome"), [(2, 1), (1, 2), (1, "unparsed"), (True, 1)])
def test_anything_but_binary_gold_and_known_outcomes_is_refused(gold, outcome):
    with pytest.raises(ValueError, match="must be"):
        assessor_scores([(gold, outcome)])


@pytest.mark.parametrize(("grade", "label"), [(2, 1), (1, 1), (0, 0), (-1, 0), (None, 0)])
def test_a_positive_grade_is_relevant_and_anything_else_irrelevant(grade, label):
    assert gold_label(grade) == label


def test_a_stratified_sample_takes_half_of_each_class_reproducibly():
    relevant, irrelevant = list(range(10)), list(range(100, 120))
    first = stratified_sample(relevant, irrelevant, size=7, rng=random.Random(0))
    again = stratified_sample(relevant, irrelevant, size=7, rng=random.Random(0))
    assert first == again
    assert (len(first[0]), len(first[1])) == (3, 4)
    assert first[0] == sorted(first[0]) and set(first[0]) <= set(relevant)


def test_a_short_class_gives_all_it_has_and_the_other_fills_up():
    rel, irr = stratified_sample([1, 2], list(range(100, 120)), size=10, rng=random.Random(1))
    assert rel == [1, 2]
    assert len(irr) == 8
