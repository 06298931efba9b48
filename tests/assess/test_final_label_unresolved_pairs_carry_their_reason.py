"""Pairs without a final label say why: not debated, pending, failed, escalated awaiting a
human, human review incomplete, or a human tie without adjudication."""

from datetime import UTC, datetime

import pytest

from assess.refined.labels import DebateEvidence, HumanJudgment, PairEvidence, resolve_final_label

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def resolve(*debates):
    return resolve_final_label(PairEvidence(query_id="q", doc_id="d", debates=debates))


def debate(status, **extra):
    finished = T0 if status in ("agreed", "escalated", "failed") else None
    return DebateEvidence(debate_id=5, job_id=2, status=status, finished=finished, **extra)


@pytest.mark.parametrize(
    ("debates", "reason"),
    [
        ((), "not debated"),
        ((debate("pending"),), "pending"),
        ((debate("running"),), "pending"),
        ((debate("failed"),), "failed"),
        ((debate("escalated", escalation_reason="unparsed"),), "escalated, awaiting human"),
        (
            (debate("escalated", review_kind="escalated"),),
            "escalated, awaiting human",
        ),
        (
            (
                debate(
                    "escalated",
                    review_kind="escalated",
                    judgments_needed=2,
                    judgments=(HumanJudgment("ann", 1, T0),),
                ),
            ),
            "human review incomplete",
        ),
        (
            (
                debate(
                    "escalated",
                    review_kind="escalated",
                    judgments_needed=2,
                    judgments=(HumanJudgment("ann", 1, T0), HumanJudgment("bob", 0, T0)),
                ),
            ),
            "human tie",
        ),
        (
            (
                debate(
                    "agreed",
                    final_label=1,
                    consensus_round=1,
                    review_kind="audit",
                    judgments_needed=2,
                    judgments=(HumanJudgment("ann", 1, T0), HumanJudgment("bob", 0, T0)),
                ),
            ),
            "human tie",
        ),
    ],
    ids=[
        "no debate",
        "pending",
        "running",
        "failed",
        "escalated without review",
        "escalated, no judgment yet",
        "1 of 2 judgments",
        "1-1 tie",
        "audit tie",
    ],
)
def test_an_unresolved_pair_has_no_label_and_names_its_reason(debates, reason):
    final = resolve(*debates)
    assert (final.label, final.source, final.reason) == (None, "unresolved", reason)
    assert not final.resolved


def test_an_incomplete_audit_leaves_the_consensus_standing():
    audit = debate(
        "agreed",
        final_label=0,
        consensus_round=2,
        review_kind="audit",
        judgments_needed=2,
        judgments=(HumanJudgment("ann", 1, T0),),
    )
    final = resolve(audit)
    assert (final.label, final.source, final.consensus_round) == (0, "consensus", 2)
