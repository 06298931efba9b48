"""A correction is a human (or adjudicated) label on the other side of relevance than the
pair's original grade: the refined qrels take its grade; a consensus never corrects, nor does
a human label on the original's side. The re-benchmark splits a refined set into its
corrections and its filled holes, worked here by hand. Pure."""

from assess.evaluation.effects import (
    BOTH,
    CORRECTIONS,
    HOLES,
    ORIGINAL,
    effects_compute,
    qrels_split,
)
from assess.refined.labels import (
    ADJUDICATED,
    CONSENSUS,
    HUMAN,
    FinalLabel,
    refined_rows,
    summarise,
)


def label(doc: str, value: int, source: str, original: int | None, *, graded=False):
    return FinalLabel("q", doc, value, source, original_grade=original, graded=graded)


LABELS = [
    label("d1", 1, HUMAN, 0),  # a correction: 0 -> relevant
    label("d2", 0, ADJUDICATED, 2),  # a correction: 2 -> 0
    label("d3", 0, CONSENSUS, 1),  # a consensus never corrects: 1 kept
    label("d4", 2, HUMAN, 1, graded=True),  # same side: 1 kept
    label("d5", 1, HUMAN, None),  # a filled hole
]


def test_only_human_verdicts_on_the_other_side_correct_and_take_their_grade():
    assert [f.corrects_original for f in LABELS] == [True, True, False, False, False]
    original = [("q", "d1", 0), ("q", "d2", 2), ("q", "d3", 1), ("q", "d4", 1)]
    assert refined_rows(original, LABELS, relevant_grade=2) == [
        ("q", "d1", 2),  # a binary "relevant" written as the relevant grade
        ("q", "d2", 0),
        ("q", "d3", 1),
        ("q", "d4", 1),
        ("q", "d5", 2),
    ]
    s = summarise(LABELS)
    assert (s.corrections, s.kept_original, s.disagree_with_original, s.new_relevant) == (
        2,
        2,
        3,
        1,
    )


def test_a_refined_set_splits_into_its_corrections_and_its_holes():
    original = {"q1": {"a": 0, "b": 1}, "q2": {"c": 1}}
    refined = {"q1": {"a": 1, "b": 1, "h": 1}, "q2": {"c": 1, "i": 0}}
    split = qrels_split(original, refined)
    assert (split.corrections, split.holes) == (1, 2)
    assert split.corrections_only == {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    assert split.holes_only == {"q1": {"a": 0, "b": 1, "h": 1}, "q2": {"c": 1, "i": 0}}


def test_each_sides_leaderboard_is_worked_by_hand():
    original = {"q1": {"a": 0, "b": 1}, "q2": {"c": 1}}
    refined = {"q1": {"a": 1, "b": 1, "h": 1}, "q2": {"c": 1}}
    runs = {"s": {"q1": {"a": 3.0, "b": 2.0}, "q2": {"c": 1.0}}}
    effects = effects_compute(original, refined, runs)
    # q2 scores 1 everywhere. q1 ranks a, b: original (b relevant) DCG 1/log2 3 = 0.6309,
    # ideal 1: 0.6309; corrections (a, b relevant): 1; holes (b, h relevant): 0.6309 /
    # (1 + 0.6309) = 0.3869; both (a, b, h): (1 + 0.6309) / (1 + 0.6309 + 0.5) = 0.7654.
    means = {side: round(effects.score(side, "s")[0], 4) for side in (ORIGINAL, CORRECTIONS)}
    means |= {side: round(effects.score(side, "s")[0], 4) for side in (HOLES, BOTH)}
    assert means == {ORIGINAL: 0.8155, CORRECTIONS: 1.0, HOLES: 0.6934, BOTH: 0.8827}
