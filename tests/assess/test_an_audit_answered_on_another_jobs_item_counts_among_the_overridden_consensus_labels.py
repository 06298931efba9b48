"""A second job's audit item takes the label a person gave the pair on the first job's
escalation (assess.review.answered). When that label contradicts the second job's consensus,
the job's audit counts a wrong label, and the refined set's final label is the person's, not
the consensus: that is a human label overriding the agents' consensus. The refinement
compared the label with the consensus of the review that gave it, the first job's escalated
debate (no consensus), so the datasheet said "error rate 1.000 (1 of 1)" beside "Human labels
that overrode the agents' consensus: 0"."""

import uuid

import pytest

from assess.models import LabelProvenance, ReviewItem
from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from assess.refined.export_rows import disagreement_rows
from assess.refined.refine import qrels_refine, refinement_get
from assess.review.services import judgment_record, review_items_sync

pytestmark = pytest.mark.django_db


def test_the_overridden_consensus_counts_the_audit_that_took_a_persons_label(
    make_two_jobs_on_one_pool, annotators
):
    # Three pairs: the first job escalated them all, the second agreed on 1 and audits all.
    first, second = make_two_jobs_on_one_pool(slug="taken", pk=8401, pairs=3, audit_share=1.0)
    (alice,) = annotators(1)
    escalation = ReviewItem.objects.filter(debate__job=first).order_by("pk")[0]
    judgment_record(item=escalation, annotator=alice, label=0, client_id=uuid.uuid4())
    review_items_sync(job=second)
    assert ReviewItem.objects.get(debate__job=second, answered_by=escalation).kind == "audit"

    report = qrels_refine(pool=first.pool, name="taken-refined", allow_partial=True)

    assert report.summary.overrides_consensus == 1
    overridden = LabelProvenance.objects.get(qrel_set=report.qrel_set, source="human")
    assert (overridden.label, overridden.consensus_label, overridden.machine_label) == (0, None, 1)
    assert overridden.overrides_consensus
    (row,) = disagreement_rows(qrel_set=report.qrel_set)
    assert "human overrode consensus" in row[4]
    text = datasheet_render(
        sheet=benchmark_datasheet(refinement=refinement_get(qrel_set=report.qrel_set))
    )
    assert "- Human labels that overrode the agents' consensus: 1 (pool pairs whose" in text
    assert "error rate of consensus labels 1.000 (1 of 1)" in text
