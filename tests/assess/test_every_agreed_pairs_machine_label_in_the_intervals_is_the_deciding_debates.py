"""The intervals correct a machine label with the human sample: every pooled pair has one
machine label, fixed whether or not the pair is drawn, and the residuals of the drawn pairs
(human less predicted) stand for the undrawn ones of their cell (GREG: Sarndal, Swensson
and Wretman 1992). The machine label of a pair is the one the refined qrels would give it
without a human answer: the consensus of its newest settled debate on the pool
(assess.refined.labels, rule 3).

When two jobs with different settings debated a pool, a pair whose human answer came from
the older job's audit is described by that review (its job, debate and consensus, in the
provenance and the exports). The intervals must still take its machine label from the
debate that decides the pair: were it the older job's consensus for the drawn pairs and the
newer one's for the rest, the machine label would depend on the draw, and the model cells
would mix two debaters' errors."""

import uuid

import pytest

from assess.evaluation.refined_intervals import pooled_labels
from assess.models import LabelProvenance, ReviewItem
from assess.refined.refine import qrels_refine
from assess.review.agreement import audit_draw
from assess.review.services import judgment_record, review_items_sync
from debates.models import Debate, DebateJob

pytestmark = pytest.mark.django_db


def test_a_pair_the_older_job_audited_keeps_the_newer_debates_machine_label(
    make_review_job, annotators
):
    # Job 1 agreed on 0 everywhere and audits at 0.5; job 2, newer, agreed on 1 and audits
    # at 0.3. People say 1 for every pair they see.
    review = make_review_job(escalated=0, agreed=40, audit_share=0.5, agreed_label=0)
    first = review.job
    second = DebateJob.objects.create(
        pool=first.pool,
        agent_a=first.agent_a,
        agent_b=first.agent_b,
        rounds=2,
        prompt_version="newer",
        status=DebateJob.Status.FINISHED,
        audit_share=0.3,
    )
    for debate in review.agreed:
        Debate.objects.create(
            job=second, pair=debate.pair, status="agreed", final_label=1, consensus_round=1
        )
    (alice,) = annotators(1)
    for item in ReviewItem.objects.filter(debate__job=first):
        judgment_record(item=item, annotator=alice, label=1, client_id=uuid.uuid4())
    review_items_sync(job=second)  # its audits of pairs job 1 audited take those answers
    for item in ReviewItem.objects.filter(debate__job=second, answered_by__isnull=True):
        judgment_record(item=item, annotator=alice, label=1, client_id=uuid.uuid4())
    by_first = {
        d.pair.document.doc_id for d in review.agreed if audit_draw(first.pk, d.pair_id) < 0.5
    }
    assert 0 < len(by_first) < 40

    refined = qrels_refine(pool=first.pool, name="two-debaters", allow_partial=True).qrel_set

    # The provenance describes the review that gave the human label: job 1's, consensus 0.
    rows = LabelProvenance.objects.filter(qrel_set=refined, document__doc_id__in=by_first)
    assert set(rows.values_list("job_id", "consensus_label", "label")) == {(first.pk, 0, 1)}
    labels, counts = pooled_labels(refined=refined)
    # The intervals: every pair carries job 2's consensus, in job 2's stratum.
    assert {(p.machine, p.stratum) for p in labels} == {(1, "label 1, round 1")}
    assert counts["agreed"] == 40
