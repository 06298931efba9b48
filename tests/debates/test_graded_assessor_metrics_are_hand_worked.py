"""evaluate_assessor --scale graded: exact-grade and within-one accuracy, balanced accuracy at
the relevance level and the confusion matrix, on hand-made gold with hand-worked numbers."""

import random

import pytest

from debates.assessment import (
    ESCALATED,
    FAILED,
    gold_grade,
    graded_scores,
    stratified_sample_by_grade,
)

# Twelve pairs on NFCorpus's scale (G = 2): (gold grade, outcome).
ROWS = [
    (0, 0), (0, 0), (0, 1), (0, ESCALATED),
    (1, 1), (1, 2), (1, 0), (1, FAILED),
    (2, 2), (2, 1), (2, 0), (2, ESCALATED),
]  # fmt: skip


def test_the_graded_scores_of_twelve_hand_made_pairs():
    scores = graded_scores(ROWS, max_grade=2, calls=30)

    # Settled: gold 0 -> given 0, 0, 1; gold 1 -> 1, 2, 0; gold 2 -> 2, 1, 0.
    assert scores.confusion == ((2, 1, 0), (1, 1, 1), (1, 1, 1))
    assert (scores.pairs, scores.settled_count, scores.escalated, scores.failed) == (12, 9, 2, 1)
    assert scores.escalated_by_gold == (1, 0, 1)
    assert scores.failed_by_gold == (0, 1, 0)
    assert scores.exact_accuracy == pytest.approx(4 / 9)  # diagonal 2 + 1 + 1
    assert scores.within_one_accuracy == pytest.approx(8 / 9)  # only gold 2 -> 0 is off by 2
    # Relevance level 1: not relevant = gold 0 (2 of 3 given 0), relevant = gold 1-2 (4 of 6
    # given >= 1).
    assert scores.binary.irrelevant == pytest.approx(2 / 3)
    assert scores.binary.relevant == pytest.approx(4 / 6)
    assert scores.binary.balanced_accuracy == pytest.approx(2 / 3)
    assert scores.coverage == pytest.approx(9 / 12)
    assert scores.escalation_rate == pytest.approx(2 / 12)
    assert scores.calls_per_pair == pytest.approx(2.5)


def test_the_relevance_level_moves_the_binary_cut():
    scores = graded_scores(ROWS, max_grade=2, relevance_level=2)

    # Not relevant = gold 0-1: given < 2 in 3 + 2 of 6; relevant = gold 2: given 2 in 1 of 3.
    assert scores.binary.irrelevant == pytest.approx(5 / 6)
    assert scores.binary.relevant == pytest.approx(1 / 3)
    assert scores.binary.balanced_accuracy == pytest.approx(7 / 12)
    assert scores.exact_accuracy == pytest.approx(4 / 9)  # the cut changes no grade


def test_nothing_settled_leaves_the_accuracies_undefined():
    scores = graded_scores([(1, ESCALATED), (2, FAILED)], max_grade=2)
    assert scores.exact_accuracy is None and scores.within_one_accuracy is None
    assert scores.binary.balanced_accuracy is None
    assert scores.coverage == 0.0


@pytest.mark.parametrize(
    ("rows", "level"),
    [([(3, 1)], 1), ([(1, 3)], 1), ([(1, True)], 1), ([(-1, 0)], 1), ([(1, 1)], 3)],
)
def test_grades_outside_the_scale_are_refused(rows, level):
    with pytest.raises(ValueError):
        graded_scores(rows, max_grade=2, relevance_level=level)


def test_gold_grades_come_from_the_qrels_grade():
    assert [gold_grade(g, max_grade=2) for g in (None, -1, 0, 1, 2, 3)] == [0, 0, 0, 1, 2, 2]


def test_the_graded_sample_spreads_evenly_over_the_grades_and_fills_up_from_the_lowest():
    groups = {0: list(range(10)), 1: list(range(100, 110)), 2: [200, 201]}

    drawn = stratified_sample_by_grade(groups, size=10, rng=random.Random(0))

    # 10 over 3 grades: 4, 3, 3; grade 2 has only 2, so grade 0 takes the spare one.
    assert {g: len(items) for g, items in drawn.items()} == {0: 5, 1: 3, 2: 2}
    assert drawn[2] == [200, 201]
    assert all(items == sorted(items) for items in drawn.values())
    assert drawn == stratified_sample_by_grade(groups, size=10, rng=random.Random(0))
    with pytest.raises(ValueError):
        stratified_sample_by_grade(groups, size=2, rng=random.Random(0))
