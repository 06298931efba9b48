"""Final-label precedence, without a database: adjudication > majority of human judgments >
debate consensus; an audit's human label overrides the consensus and both are kept."""

from datetime import UTC, datetime

from assess.refined.labels import (
    Adjudication,
    DebateEvidence,
    HumanJudgment,
    PairEvidence,
    resolve_final_label,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)
T1 = datetime(2026, 1, 2, tzinfo=UTC)
T2 = datetime(2026, 1, 3, tzinfo=UTC)
MODELS = ("model-a", "model-b")


def agreed(label, *, round=1, **extra):
    return DebateEvidence(
        debate_id=7,
        job_id=3,
        status="agreed",
        final_label=label,
        consensus_round=round,
        models=MODELS,
        prompt_version="dream-v1",
        finished=T0,
        **extra,
    )


def pair(*debates, grade=None):
    return PairEvidence(query_id="q1", doc_id="d1", original_grade=grade, debates=debates)


def test_an_agreed_debate_gives_the_consensus_label_with_its_round_job_and_models():
    final = resolve_final_label(pair(agreed(1, round=2)))
    assert (final.label, final.source, final.consensus_round) == (1, "consensus", 2)
    assert (final.job_id, final.debate_id, final.models) == (3, 7, MODELS)
    assert (final.prompt_version, final.decided_at, final.annotators) == ("dream-v1", T0, ())


def test_an_audit_whose_annotator_disagrees_overrides_the_consensus_and_keeps_both():
    audit = agreed(1, review_kind="audit", judgments=(HumanJudgment("bob", 0, T1),))
    final = resolve_final_label(pair(audit))
    assert (final.label, final.source, final.annotators) == (0, "human", ("bob",))
    assert (final.consensus_label, final.consensus_round) == (1, 1)
    assert final.overrides_consensus
    assert final.decided_at == T1


def test_two_of_three_annotators_decide_by_majority():
    item = DebateEvidence(
        debate_id=9,
        job_id=3,
        status="escalated",
        escalation_reason="disagreement",
        finished=T0,
        review_kind="escalated",
        judgments_needed=3,
        judgments=(
            HumanJudgment("ann", 1, T0),
            HumanJudgment("bob", 0, T1),
            HumanJudgment("cat", 1, T2),
        ),
    )
    final = resolve_final_label(pair(item))
    assert (final.label, final.source) == (1, "human")
    assert final.annotators == ("ann", "bob", "cat")
    assert final.decided_at == T2  # the last judgment completed the decision


def test_an_adjudication_beats_the_annotators_and_the_consensus():
    item = agreed(
        1,
        review_kind="audit",
        judgments_needed=2,
        judgments=(HumanJudgment("ann", 1, T0), HumanJudgment("bob", 0, T1)),
        adjudication=Adjudication("root", 0, T2),
    )
    final = resolve_final_label(pair(item))
    assert (final.label, final.source, final.adjudicator) == (0, "adjudicated", "root")
    assert final.decided_at == T2


def test_a_human_label_on_an_older_job_beats_the_consensus_of_a_newer_job():
    older = DebateEvidence(
        debate_id=1,
        job_id=1,
        status="escalated",
        finished=T0,
        review_kind="escalated",
        judgments=(HumanJudgment("ann", 0, T1),),
    )
    newer = DebateEvidence(debate_id=2, job_id=2, status="agreed", final_label=1, finished=T2)
    final = resolve_final_label(pair(older, newer))
    assert (final.label, final.source, final.job_id) == (0, "human", 1)


def test_a_re_assessed_judged_pair_reports_its_disagreement_with_the_original_grade():
    final = resolve_final_label(pair(agreed(0), grade=2))
    assert (final.label, final.original_grade) == (0, 2)
    assert final.disagrees_with_original
    assert not resolve_final_label(pair(agreed(1), grade=2)).disagrees_with_original


def test_the_sources_people_decide_are_the_provenance_choices_for_humans_and_adjudication():
    """The override rule, the intervals and the disagreements export read one tuple of
    sources as people's; it must name exactly those two provenance choices."""
    from assess.models import LabelProvenance
    from assess.models.overrides import HUMAN_SOURCES

    choices = {value for value, _ in LabelProvenance.Source.choices}
    assert set(HUMAN_SOURCES) <= choices
    assert set(HUMAN_SOURCES) == {
        LabelProvenance.Source.HUMAN.value,
        LabelProvenance.Source.ADJUDICATED.value,
    }
