"""On a graded job's pair several human grades combine by their median: an odd count gives
the middle grade; an even count gives the two middle grades when they are equal and is a
"human tie" (unresolved until an admin adjudicates) when they differ. Binary pairs keep the
majority rule. A graded label goes into refined rows as it is; a binary 1 as the relevant
grade."""

import pytest

from assess.refined.labels import (
    ADJUDICATED,
    CONSENSUS,
    HUMAN,
    HUMAN_TIE,
    UNRESOLVED,
    Adjudication,
    DebateEvidence,
    HumanJudgment,
    PairEvidence,
    final_grade,
    refined_rows,
    resolve_final_label,
)
from assess.review.agreement import median_grade


@pytest.mark.parametrize(
    ("grades", "median"),
    [
        ([2], 2),
        ([2, 0, 1], 1),
        ([2, 2, 0], 2),
        ([0, 2, 2, 2], 2),
        ([1, 1], 1),
        ([1, 2], None),
        ([0, 0, 2, 2], None),
        ([0, 1, 2, 2], None),
        ([], None),
    ],
)
def test_the_median_grade_and_its_ties(grades, median):
    assert median_grade(grades) == median


def pair(grades, *, graded=True, needed=None, adjudication=None, status="escalated", label=None):
    judgments = tuple(HumanJudgment(f"ann{i}", g) for i, g in enumerate(grades, start=1))
    debate = DebateEvidence(
        debate_id=1,
        job_id=1,
        status=status,
        final_label=label,
        consensus_round=1 if status == "agreed" else None,
        review_kind="escalated" if status == "escalated" else "audit",
        judgments_needed=needed or len(grades) or 1,
        judgments=judgments,
        adjudication=adjudication,
        graded=graded,
    )
    return resolve_final_label(PairEvidence("q1", "d1", debates=(debate,)))


def test_three_graders_give_the_middle_grade():
    final = pair([2, 0, 1])
    assert (final.label, final.source, final.graded) == (1, HUMAN, True)


def test_two_graders_one_grade_apart_are_a_tie_until_adjudicated():
    final = pair([1, 2])
    assert (final.label, final.source, final.reason) == (None, UNRESOLVED, HUMAN_TIE)
    decided = pair([1, 2], adjudication=Adjudication("boss", 2))
    assert (decided.label, decided.source) == (2, ADJUDICATED)


def test_an_audit_grade_overrides_the_consensus_grade():
    final = pair([1], status="agreed", label=2)
    assert (final.label, final.consensus_label, final.overrides_consensus) == (1, 2, True)
    agreed = pair([], status="agreed", label=2)
    assert (agreed.label, agreed.source) == (2, CONSENSUS)


def test_binary_pairs_keep_the_majority_rule():
    assert pair([1, 1, 0], graded=False).label == 1
    assert pair([1, 0], graded=False).reason == HUMAN_TIE


def test_graded_labels_are_written_as_they_are_and_binary_ones_as_the_relevant_grade():
    graded_two, binary_one, binary_zero = (
        pair([2]),
        pair([1], graded=False),
        pair([0], graded=False),
    )
    assert final_grade(graded_two, relevant_grade=1) == 2
    assert final_grade(binary_one, relevant_grade=2) == 2
    assert final_grade(binary_zero, relevant_grade=2) == 0
    rows = refined_rows([("q0", "d9", 1)], [binary_one], relevant_grade=2)
    assert rows == [("q0", "d9", 1), ("q1", "d1", 2)]
