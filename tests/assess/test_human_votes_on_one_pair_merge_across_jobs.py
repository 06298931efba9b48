"""A pair's human votes merge across every job that sent it to humans (rule 2 of
assess.refined.labels), without a database: two conflicting votes from two jobs are a human
tie for an admin to settle, never one of them kept; a third vote decides by majority; an
annotator counts once (their latest vote); an adjudication is final; a review of the same
pair on another pool adds its votes but never its consensus; a reused consensus says so."""

from datetime import UTC, datetime

from assess.refined.labels import (
    Adjudication,
    DebateEvidence,
    HumanJudgment,
    PairEvidence,
    resolve_final_label,
)

T1, T2, T3, T4 = (datetime(2026, 1, day, tzinfo=UTC) for day in (1, 2, 3, 4))


def escalated(debate_id, *votes, needed=1, **extra):
    return DebateEvidence(
        debate_id=debate_id,
        job_id=debate_id,
        status="escalated",
        escalation_reason="disagreement",
        finished=T1,
        review_kind="escalated",
        judgments_needed=needed,
        judgments=votes,
        **extra,
    )


def resolve(*debates):
    return resolve_final_label(PairEvidence(query_id="q", doc_id="d", debates=debates))


def test_two_conflicting_votes_from_two_jobs_are_a_tie_not_the_later_one():
    final = resolve(
        escalated(1, HumanJudgment("ann", 1, T1)), escalated(2, HumanJudgment("bob", 0, T2))
    )
    assert (final.label, final.source, final.reason) == (None, "unresolved", "human tie")
    assert final.annotators == ("ann", "bob")
    assert [(j.annotator, j.label) for j in final.judgments] == [("ann", 1), ("bob", 0)]


def test_a_third_vote_in_either_job_decides_by_majority():
    final = resolve(
        escalated(1, HumanJudgment("ann", 1, T1)),
        escalated(2, HumanJudgment("bob", 0, T2), HumanJudgment("cat", 0, T3), needed=2),
    )
    assert (final.label, final.source, final.decided_at) == (0, "human", T3)
    assert (final.annotators, final.job_id) == (("ann", "bob", "cat"), 2)


def test_an_annotator_who_voted_in_both_jobs_counts_once_with_the_latest_vote():
    final = resolve(
        escalated(1, HumanJudgment("ann", 1, T1)),
        escalated(2, HumanJudgment("ann", 0, T3), HumanJudgment("bob", 0, T2), needed=2),
    )
    assert (final.label, final.source) == (0, "human")
    assert [(j.annotator, j.label) for j in final.judgments] == [("ann", 0), ("bob", 0)]


def test_an_adjudication_in_one_job_is_final_over_later_votes_in_another():
    decided = escalated(
        1,
        HumanJudgment("ann", 1, T1),
        HumanJudgment("bob", 0, T1),
        needed=2,
        adjudication=Adjudication("root", 1, T2),
    )
    later = escalated(2, HumanJudgment("cat", 0, T3), HumanJudgment("dan", 0, T4), needed=2)
    final = resolve(decided, later)
    assert (final.label, final.source, final.adjudicator, final.job_id) == (
        1,
        "adjudicated",
        "root",
        1,
    )


def test_an_incomplete_review_adds_its_votes_once_another_is_complete():
    complete = escalated(1, HumanJudgment("ann", 0, T1))
    incomplete = escalated(2, HumanJudgment("bob", 1, T2), needed=3)
    assert resolve(complete, incomplete).reason == "human tie"
    assert resolve(incomplete).reason == "human review incomplete"


def test_votes_of_another_scale_are_left_out():
    graded = escalated(2, HumanJudgment("bob", 2, T2), graded=True)
    final = resolve(escalated(1, HumanJudgment("ann", 0, T1)), graded)
    assert (final.label, final.graded, final.annotators) == (2, True, ("bob",))


def test_another_pools_review_counts_its_votes_never_its_consensus():
    own = DebateEvidence(5, 1, "agreed", final_label=1, consensus_round=1, finished=T1)
    elsewhere_voted = DebateEvidence(
        8,
        4,
        "agreed",
        final_label=1,
        consensus_round=1,
        finished=T2,
        review_kind="audit",
        judgments=(HumanJudgment("ann", 0, T3),),
        votes_only=True,
    )
    final = resolve(own, elsewhere_voted)
    assert (final.label, final.source, final.job_id) == (0, "human", 4)
    unvoted = DebateEvidence(9, 4, "agreed", final_label=0, finished=T4, votes_only=True)
    assert (resolve(own, unvoted).label, resolve(own, unvoted).job_id) == (1, 1)
    assert resolve(unvoted).reason == "not debated"


def test_a_reused_consensus_keeps_its_provenance_and_says_it_was_reused():
    reused = DebateEvidence(
        12,
        7,
        "agreed",
        final_label=1,
        consensus_round=2,
        models=("m-a", "m-b"),
        prompt_version="dream-v2",
        finished=T2,
        settled_by="reused",
        reused_from=(3, 5),
    )
    final = resolve(reused)
    assert (final.label, final.source, final.consensus_round, final.models) == (
        1,
        "consensus",
        2,
        ("m-a", "m-b"),
    )
    assert final.reused == "reused by job 7 from job 3 (debate 5)"
    gone = resolve(DebateEvidence(12, 7, "agreed", final_label=1, settled_by="reused"))
    assert gone.reused == "reused by job 7"
    assert resolve(DebateEvidence(1, 1, "agreed", final_label=1)).reused == ""
