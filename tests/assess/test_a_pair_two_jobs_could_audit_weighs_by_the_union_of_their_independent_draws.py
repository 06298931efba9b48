"""Two jobs on one pool each draw their own audit, and the refined set's human sample is the
union of both (their reviews' votes merge on a pair). Each job draws a pair when the hash of
"job id:pair id" is below its probability, so the two draws are independent and a pair is in
the union with probability 1 - (1 - pi_1)(1 - pi_2), not one job's pi: the provenance and
the intervals carry that, for the pairs either job drew and for those neither did
(debates.audit_design.inclusion_union). A pair only one job debated keeps its job's pi."""

import uuid

import pytest

from assess.evaluation.refined_intervals import pooled_labels
from assess.models import LabelProvenance, ReviewItem
from assess.refined.refine import qrels_refine
from assess.review.agreement import audit_draw
from assess.review.services import judgment_record, review_items_sync
from debates.audit_design import inclusion_union
from debates.models import Debate, DebateJob

BOTH = 1 - (1 - 0.5) * (1 - 0.3)  # 0.65


def test_the_union_of_independent_draws_is_one_minus_the_product_of_the_misses():
    assert inclusion_union([0.5, 0.3]) == pytest.approx(0.65, abs=1e-15)
    assert inclusion_union([0.5, 0.5, 0.5]) == pytest.approx(0.875, abs=1e-15)
    # One job alone keeps its probability exactly; an escalation (1) takes every pair.
    assert inclusion_union([0.1]) == inclusion_union([0.1, 0.0]) == 0.1
    assert inclusion_union([0.2, 1.0]) == 1.0
    assert inclusion_union([]) == 0.0


@pytest.mark.django_db
def test_a_pair_audited_by_two_jobs_weighs_by_the_union_of_their_draws(make_review_job, annotators):
    # Job 1: 40 agreed pairs, audited at 0.5. Job 2: the first 30 of them, audited at 0.3.
    # The draws hash job and pair ids, so the ids are fixed (job 6101 on pairs 6101..6140,
    # job 6102): of the 30 shared pairs both jobs draw 4, the second alone 1, and the first
    # leaves 16 undrawn, the cases the test needs. With ids from the sequences (which depend
    # on the tests run before) one of the first two came out empty in about one order in 60.
    review = make_review_job(escalated=0, agreed=40, audit_share=0.5, pk=6101)
    first = review.job
    second = DebateJob.objects.create(
        pk=6102,
        pool=first.pool,
        agent_a=first.agent_a,
        agent_b=first.agent_b,
        rounds=2,
        prompt_version="test",
        status=DebateJob.Status.FINISHED,
        audit_share=0.3,
    )
    for debate in review.agreed[:30]:
        Debate.objects.create(
            job=second, pair=debate.pair, status="agreed", final_label=1, consensus_round=1
        )
    (alice,) = annotators(1)
    for item in ReviewItem.objects.filter(kind="audit"):
        judgment_record(item=item, annotator=alice, label=1, client_id=uuid.uuid4())
    review_items_sync(job=second)
    drawn = {
        job.pk: {pair for pair in job.debates.values_list("pair_id", flat=True)
                 if audit_draw(job.pk, pair) < job.audit_share}
        for job in (first, second)
    }  # fmt: skip
    items = ReviewItem.objects.filter(kind="audit")
    assert {(i.debate.job_id, i.debate.pair_id) for i in items} == {
        (job, pair) for job, pairs in drawn.items() for pair in pairs
    }
    both = drawn[first.pk] & drawn[second.pk]
    shared = {d.pair_id for d in review.agreed[:30]}
    assert (len(both), len(drawn[second.pk] - drawn[first.pk])) == (4, 1)
    assert len(shared - drawn[first.pk] - both) == 16
    # The second job's audit of a pair the first's people answered takes that answer.
    taken = items.filter(debate__job=second, answered_by__isnull=False)
    assert {i.debate.pair_id for i in taken} == both
    for item in items.filter(debate__job=second, answered_by__isnull=True):
        judgment_record(item=item, annotator=alice, label=1, client_id=uuid.uuid4())

    refined = qrels_refine(pool=first.pool, name="union").qrel_set

    stored = {
        row.document.doc_id: row.inclusion
        for row in LabelProvenance.objects.filter(qrel_set=refined).select_related("document")
    }
    doc_of = {d.pair_id: d.pair.document.doc_id for d in review.agreed}
    for pair, doc in doc_of.items():
        if pair in shared:  # both jobs could draw it, whichever did (or neither)
            assert stored[doc] == pytest.approx(BOTH, abs=1e-12), doc
        else:  # the first job's alone
            assert stored[doc] == 0.5, doc
    labels, counts = pooled_labels(refined=refined)
    inclusion = {p.doc_id: p.inclusion for p in labels}
    assert inclusion == stored
    assert counts["audited"] == len(drawn[first.pk] | drawn[second.pk])
