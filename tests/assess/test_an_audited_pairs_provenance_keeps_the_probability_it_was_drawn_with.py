"""An audited pair's provenance stores the probability it was drawn with (its audit item's
``inclusion``, raised with its unit's), whatever its Neyman audit unit is named by now: a
pool extended after the draw can move the pair to another unit (its best rank improves), and
the human answer that decides a pair may come from a job on another pool of the dataset,
where the pair has other ranks. The intervals weight each audited pair by it (combined, as
the union of independent draws, with every other job that could draw the pair)."""

import uuid

import pytest

from assess.evaluation.refined_intervals import pooled_labels
from assess.models import LabelProvenance, ReviewItem
from assess.refined.refine import qrels_refine
from assess.review.agreement import audit_draw
from assess.review.services import judgment_record, review_items_sync
from corpora.models import Document, Pair, PairSource, Pool, Query, Run
from debates.models import Debate, DebateJob

# The pilot's draws are worked by hand at half the share (tests/fixtures/jobs.py).
pytestmark = pytest.mark.usefixtures("pilot_at_half_the_share")

BELOW_10, RANK_2 = "label 1, round 1, below 10", "label 1, round 1, rank 2"


def test_a_pool_extended_after_the_draw_leaves_each_audit_at_its_drawn_probability(
    make_review_job, annotators
):
    review = make_review_job(escalated=0, agreed=40, audit_share=0.2, sync=False)
    job = review.job
    # Neyman, its pairs unranked in the pool ("below 10"), that unit raised to 0.5 before.
    DebateJob.objects.filter(pk=job.pk).update(
        audit_allocation="neyman", audit_inclusion={BELOW_10: 0.5}
    )
    job.refresh_from_db()
    review_items_sync(job=job)
    drawn = {d.pk for d in review.agreed if audit_draw(job.pk, d.pair_id) < 0.5}
    items = ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT)
    assert set(items.values_list("debate_id", flat=True)) == drawn
    assert {d.pk for d in review.agreed if audit_draw(job.pk, d.pair_id) < 0.1} < drawn

    # The pool is extended: a new run ranks every pair 2nd, so each is now in unit "rank 2",
    # which the next sync commits at the pilot's 0.1. The items keep the 0.5 they were
    # drawn with (probabilities never fall) and nothing new is drawn.
    late = Run.objects.create(dataset=job.pool.dataset, name="late")
    for pair in Pair.objects.filter(pool=job.pool):
        PairSource.objects.create(pair=pair, run=late, rank=2, score=1.0)
    assert review_items_sync(job=job) == 0
    job.refresh_from_db()
    assert job.audit_inclusion == {BELOW_10: 0.5, RANK_2: 0.1}
    assert set(items.values_list("inclusion", flat=True)) == {0.5}

    (alice,) = annotators(1)
    for item in items:
        judgment_record(item=item, annotator=alice, label=1, client_id=uuid.uuid4())
    refined = qrels_refine(pool=job.pool, name="extended", allow_partial=True).qrel_set

    stored = dict(
        LabelProvenance.objects.filter(qrel_set=refined, debate_id__in=drawn).values_list(
            "debate_id", "inclusion"
        )
    )
    # Every audited pair was drawn with 0.5: it is in the sample exactly when its draw is
    # below 0.5, so 1 / 0.5 is its weight, not 1 / 0.1.
    assert stored == dict.fromkeys(drawn, 0.5)
    labels, _ = pooled_labels(refined=refined)
    assert {p.inclusion for p in labels if p.drawn} == {0.5}


def test_a_human_answer_from_a_job_on_another_pool_keeps_that_jobs_probability(
    make_finished_job, annotators
):
    # One (query, document) in two pools of a dataset: ranked 1st in pool "p" of Neyman job
    # 8001, whose unit "rank 1" was raised to 0.6; ranked 20th in pool "p1" of job 8002.
    job = make_finished_job(slug="two", pk=8001, audit_share=0.2, audit_allocation="neyman")
    dataset = job.pool.dataset
    other_pool = Pool.objects.create(dataset=dataset, qrel_set=job.pool.qrel_set, name="p1")
    fields = {"agent_a": job.agent_a, "agent_b": job.agent_b, "rounds": 2}
    other = DebateJob.objects.create(pk=8002, pool=other_pool, prompt_version="x", **fields)
    query = Query.objects.create(dataset=dataset, query_id="q1", text="q")
    document = Document.objects.create(dataset=dataset, doc_id="d1", title="t", text="x")
    run = Run.objects.create(dataset=dataset, name="bm25")
    # A pair id whose draw in job 8001 lies between the pilot's 0.1 and 0.6.
    pk = next(pk for pk in range(9000, 9100) if 0.1 <= audit_draw(8001, pk) < 0.6)
    here = Pair.objects.create(pk=pk, pool=job.pool, query=query, document=document)
    there = Pair.objects.create(pool=other_pool, query=query, document=document)
    PairSource.objects.create(pair=here, run=run, rank=1, score=2.0)
    PairSource.objects.create(pair=there, run=run, rank=20, score=1.0)
    agreed = {"status": Debate.Status.AGREED, "final_label": 1, "consensus_round": 1}
    Debate.objects.create(job=job, pair=here, **agreed)
    Debate.objects.create(job=other, pair=there, **agreed)
    DebateJob.objects.filter(pk=job.pk).update(audit_inclusion={"label 1, round 1, rank 1": 0.6})
    job.refresh_from_db()
    review_items_sync(job=job)
    (item,) = ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT)
    assert item.inclusion == 0.6
    (alice,) = annotators(1)
    judgment_record(item=item, annotator=alice, label=0, client_id=uuid.uuid4())

    refined = qrels_refine(pool=other_pool, name="elsewhere", allow_partial=True).qrel_set

    (row,) = LabelProvenance.objects.filter(qrel_set=refined)
    # The answer is job 8001's audit, drawn at 0.6 where the pair ranks 1st; not the 0.1 of
    # job 8001's "below 10" unit that pool p1's rank 20 would name. Job 8002 could draw the
    # pair too, at its own share, independently: the sample is the union of the two draws,
    # 1 - (1 - 0.6)(1 - share) (debates.audit_design.inclusion_union).
    union = 1 - (1 - 0.6) * (1 - other.audit_share)
    assert (row.job_id, row.review_kind, row.label) == (8001, "audit", 0)
    assert row.inclusion == pytest.approx(union, abs=1e-12) and other.audit_share == 0.02
