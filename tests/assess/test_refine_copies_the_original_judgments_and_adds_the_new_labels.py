"""A refined qrel set holds every original judgment unchanged (negative and zero grades
included) plus one row per new final label: consensus, human majority, human override."""

import pytest

from assess.models import LabelProvenance
from assess.refined.refine import qrels_refine
from corpora.models import QrelSet
from corpora.services import qrels_rows
from tests.fixtures.refine import settle_all


@pytest.mark.django_db
def test_the_refined_set_is_the_original_plus_the_four_new_labels(holes):
    settle_all(holes)
    report = qrels_refine(pool=holes.pool, name="test-dream")
    refined = QrelSet.objects.get(dataset=holes.dataset, name="test-dream")
    assert refined.origin == "refined"
    assert list(qrels_rows(qrel_set=refined)) == [
        ("q1", "d1", 1),
        ("q1", "d2", 0),
        ("q1", "d3", 1),
        ("q1", "d5", 0),
        ("q2", "d3", 1),
        ("q2", "d4", 1),
        ("q2", "d5", -1),
        ("q2", "d6", 0),
    ]
    # The original set is untouched.
    assert list(qrels_rows(qrel_set=holes.test)) == [
        ("q1", "d1", 1),
        ("q1", "d2", 0),
        ("q2", "d4", 1),
        ("q2", "d5", -1),
    ]
    r = report.refinement
    assert (r.pairs, r.unresolved, r.original_rows) == (4, 0, 4)
    assert (r.new_relevant, r.new_nonrelevant, r.kept_original) == (2, 2, 0)
    assert r.counts["by_source"] == {"consensus": 2, "human": 2}
    assert r.counts["overrides_consensus"] == 1
    assert report.unresolved == []


@pytest.mark.django_db
def test_every_new_label_records_its_source_round_job_models_and_annotators(holes):
    settle_all(holes)
    qrels_refine(pool=holes.pool, name="test-dream")
    rows = {
        (p.query.query_id, p.document.doc_id): p
        for p in LabelProvenance.objects.select_related("query", "document", "qrel")
    }
    assert set(rows) == {("q1", "d3"), ("q1", "d5"), ("q2", "d3"), ("q2", "d6")}
    consensus = rows[("q1", "d5")]
    assert (consensus.label, consensus.source, consensus.consensus_round) == (0, "consensus", 2)
    assert consensus.job_id == holes.job.pk
    assert consensus.debate_id == holes.debate("q1", "d5").pk
    assert consensus.agent_models == ["SmolLM2-135M-Instruct-Q4_1"] * 2
    assert consensus.prompt_version == "dream-v1"
    assert consensus.annotators == []
    assert consensus.qrel.relevance == 0 and consensus.applied
    escalated = rows[("q2", "d3")]
    assert (escalated.label, escalated.source, escalated.annotators) == (1, "human", ["alice"])
    assert (escalated.debate_status, escalated.review_kind) == ("escalated", "escalated")
    assert escalated.consensus_label is None
    audit = rows[("q2", "d6")]
    assert (audit.label, audit.source, audit.annotators) == (0, "human", ["bob"])
    # Human beats consensus, and both are kept.
    assert (audit.consensus_label, audit.consensus_round) == (1, 1)
    assert audit.overrides_consensus
    assert audit.decided_at is not None and audit.decided_at > audit.debated_at
