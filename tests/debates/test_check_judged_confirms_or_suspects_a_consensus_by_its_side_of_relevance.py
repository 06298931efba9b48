"""A check-judged job compares a finished debate's consensus with the original grade on the
side of relevance (grade >= 1): the same side confirms (the outcome unchanged), the other
side escalates as "suspect_original" with no final label; an escalated debate, or a pair
without an original grade, is left as it is. Pure."""

import pytest

from debates.check_judged import SUSPECT_ORIGINAL, check_judged_outcome, contradicts_original
from debates.engine import DebateOutcome


def outcome(status: str, label: int | None, round_: int | None, reason: str | None = None):
    return DebateOutcome(
        status=status,
        final_label=label,
        consensus_round=round_,
        escalation_reason=reason,
        turns=(),
        chunk_truncated=False,
        calls=4,
        prompt_tokens=100,
        completion_tokens=20,
        latency_ms=5.0,
    )


@pytest.mark.parametrize(
    ("label", "original", "contradicts"),
    [
        (1, 0, True),
        (0, 1, True),
        (0, 2, True),  # graded qrels: 2 is relevant
        (1, 2, False),
        (2, 1, False),  # a graded consensus on the same side
        (0, 0, False),
        (0, -1, False),  # a negative grade is not relevant
        (1, -1, True),
    ],
)
def test_a_contradiction_is_a_different_side_of_relevance(label, original, contradicts):
    assert contradicts_original(label, original) is contradicts


def test_an_agreed_consensus_against_the_original_escalates_as_suspect():
    agreed = outcome("agreed", 1, 2)
    suspect = check_judged_outcome(agreed, original=0)
    assert (suspect.status, suspect.final_label, suspect.consensus_round) == (
        "escalated",
        None,
        None,
    )
    assert suspect.escalation_reason == SUSPECT_ORIGINAL == "suspect_original"
    assert (suspect.calls, suspect.prompt_tokens) == (4, 100)  # the cost is kept


def test_an_agreed_consensus_on_the_originals_side_is_a_confirmation_left_as_it_is():
    agreed = outcome("agreed", 0, 1)
    assert check_judged_outcome(agreed, original=0) is agreed
    assert check_judged_outcome(agreed, original=-1) is agreed


def test_an_escalation_or_a_pair_without_an_original_grade_is_left_as_it_is():
    escalated = outcome("escalated", None, None, "disagreement")
    assert check_judged_outcome(escalated, original=1) is escalated
    agreed = outcome("agreed", 1, 1)
    assert check_judged_outcome(agreed, original=None) is agreed
