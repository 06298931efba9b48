"""Refining a pool merges the human votes every job of the dataset gathered on a pair: two
jobs on the pool whose annotators disagree leave the pair a human tie in the refined set's
provenance, both votes listed (before, the later vote was kept and the other dropped
without a word); a third vote from a job on another pool of the dataset settles it by
majority."""

from assess.models import Judgment, LabelProvenance, ReviewItem
from assess.refined.refine import qrels_refine
from assess.review.services import review_items_sync
from corpora.models import Pair, Pool
from debates.models import Debate, DebateJob
from tests.fixtures.annot import EMBEDDED


def twin_job(pair):
    job = DebateJob.objects.create(
        pool=pair.pool,
        agent_a=EMBEDDED,
        agent_b=EMBEDDED,
        rounds=2,
        prompt_version="test",
        status=DebateJob.Status.FINISHED,
        gold_share=0.0,  # no known-answer pairs mixed in
    )
    Debate.objects.create(job=job, pair=pair, status="escalated", escalation_reason="disagreement")
    review_items_sync(job=job)
    return job


def vote(job, annotator, label):
    item = ReviewItem.objects.get(debate__job=job)
    Judgment.objects.create(
        item=item, annotator=annotator, label=label, client_id=f"{item.pk:032x}"
    )
    ReviewItem.objects.filter(pk=item.pk).update(judgments_done=1)


def provenance(name):
    return LabelProvenance.objects.get(qrel_set__name=name)


def test_conflicting_votes_of_two_jobs_are_a_tie_and_a_third_job_settles_it(
    make_review_job, annotators
):
    built = make_review_job(escalated=1)
    pair = built.escalated[0].pair
    ann1, ann2, ann3 = annotators(3)
    vote(built.job, ann1, 1)
    vote(twin_job(pair), ann2, 0)

    qrels_refine(pool=pair.pool, name="tied", allow_partial=True)

    tied = provenance("tied")
    assert (tied.label, tied.source, tied.reason) == (None, "unresolved", "human tie")
    assert tied.annotators == ["ann1", "ann2"]
    assert [(j["annotator"], j["label"]) for j in tied.judgments] == [("ann1", 1), ("ann2", 0)]

    other = Pool.objects.create(dataset=pair.pool.dataset, qrel_set=pair.pool.qrel_set, name="p2")
    elsewhere = twin_job(Pair.objects.create(pool=other, query=pair.query, document=pair.document))
    vote(elsewhere, ann3, 0)
    qrels_refine(pool=pair.pool, name="settled")

    settled = provenance("settled")
    assert (settled.label, settled.source, settled.applied) == (0, "human", True)
    assert settled.annotators == ["ann1", "ann2", "ann3"]
    assert settled.job_id == elsewhere.pk  # the review that completed the answer last
