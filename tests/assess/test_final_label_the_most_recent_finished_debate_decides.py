"""When several debate jobs cover a pair, the most recently finished debate (agreed or
escalated) decides; an unfinished newer job does not hide an older consensus."""

from datetime import UTC, datetime

from assess.refined.labels import DebateEvidence, PairEvidence, resolve_final_label

EARLY = datetime(2026, 1, 1, tzinfo=UTC)
LATE = datetime(2026, 2, 1, tzinfo=UTC)


def resolve(*debates):
    return resolve_final_label(PairEvidence(query_id="q", doc_id="d", debates=debates))


def test_a_newer_job_s_consensus_replaces_an_older_one():
    old = DebateEvidence(1, 1, "agreed", final_label=0, consensus_round=1, finished=EARLY)
    new = DebateEvidence(2, 2, "agreed", final_label=1, consensus_round=2, finished=LATE)
    final = resolve(new, old)
    assert (final.label, final.job_id, final.consensus_round) == (1, 2, 2)


def test_a_newer_escalation_leaves_the_pair_awaiting_a_human():
    old = DebateEvidence(1, 1, "agreed", final_label=0, consensus_round=1, finished=EARLY)
    new = DebateEvidence(2, 2, "escalated", escalation_reason="disagreement", finished=LATE)
    final = resolve(old, new)
    assert (final.label, final.reason, final.job_id) == (None, "escalated, awaiting human", 2)


def test_a_pending_or_failed_newer_debate_does_not_hide_an_older_consensus():
    old = DebateEvidence(1, 1, "agreed", final_label=1, consensus_round=1, finished=EARLY)
    pending = DebateEvidence(2, 2, "pending")
    failed = DebateEvidence(3, 3, "failed", finished=LATE)
    final = resolve(old, pending, failed)
    assert (final.label, final.source, final.job_id) == (1, "consensus", 1)


def test_equal_finish_times_go_to_the_later_debate():
    a = DebateEvidence(4, 1, "agreed", final_label=0, consensus_round=1, finished=EARLY)
    b = DebateEvidence(9, 2, "agreed", final_label=1, consensus_round=1, finished=EARLY)
    assert resolve(a, b).label == 1
