"""Every escalated debate gets one review item (syncing twice creates nothing new; a debate
ending escalated queues its item, a claim creates none); the queue is served oldest first,
escalated pairs and audits alike (items are created in debate order), so audits are not
starved by escalations."""

from assess.models import ReviewItem
from assess.review.services import review_item_claim, review_items_sync
from debates.models import Debate
from debates.signals import debate_ended


def test_syncing_twice_creates_one_item_per_escalated_debate(make_review_job):
    review = make_review_job(escalated=3, agreed=2, judgments_per_pair=2, sync=False)
    assert review_items_sync(job=review.job) == 3
    assert review_items_sync(job=review.job) == 0
    items = ReviewItem.objects.order_by("debate_id")
    assert [(i.debate_id, i.kind, i.judgments_needed, i.judgments_done) for i in items] == [
        (d.pk, "escalated", 2, 0) for d in review.escalated
    ]


def test_a_debate_that_ends_escalated_is_queued_then_and_a_claim_creates_nothing(
    make_review_job, annotators
):
    review = make_review_job(escalated=1, sync=False)
    (alice,) = annotators(1)
    assert review_item_claim(annotator=alice) is None  # reading the queue writes no item
    assert ReviewItem.objects.count() == 0
    debate = review.escalated[0]
    debate_ended.send_robust(
        sender=Debate, debate_id=debate.pk, job_id=debate.job_id, status="escalated"
    )
    assert ReviewItem.objects.count() == 1
    item = review_item_claim(annotator=alice)
    assert item.debate_id == debate.pk


def test_items_made_in_one_sync_are_served_in_debate_order(make_review_job, annotators):
    review = make_review_job(escalated=2, agreed=2, audit_share=1.0)
    alice, bob, carol, dave = annotators(4)
    assert ReviewItem.objects.filter(kind="audit").count() == 2
    claimed = [review_item_claim(annotator=u).debate for u in (alice, bob, carol, dave)]
    assert [d.status for d in claimed] == [
        Debate.Status.ESCALATED,
        Debate.Status.ESCALATED,
        Debate.Status.AGREED,
        Debate.Status.AGREED,
    ]
    assert [d.pk for d in claimed] == [d.pk for d in review.escalated + review.agreed]


def test_an_audit_of_an_earlier_debate_comes_before_a_later_escalation(make_review_job, annotators):
    review = make_review_job(escalated=2, agreed=2, audit_share=1.0, sync=False)
    first_escalated, second_escalated = review.escalated
    # Debates in pair order: escalated, agreed, escalated, agreed.
    Debate.objects.filter(pk=second_escalated.pk).update(
        status=Debate.Status.AGREED, final_label=1, escalation_reason=""
    )
    Debate.objects.filter(pk=review.agreed[0].pk).update(
        status=Debate.Status.ESCALATED, final_label=None, escalation_reason="disagreement"
    )
    assert review_items_sync(job=review.job) == 4
    users = annotators(4)
    claimed = [review_item_claim(annotator=u) for u in users]
    assert [(i.debate_id, i.kind) for i in claimed] == [
        (first_escalated.pk, "escalated"),
        (second_escalated.pk, "audit"),
        (review.agreed[0].pk, "escalated"),
        (review.agreed[1].pk, "audit"),
    ]


def test_the_periodic_task_syncs_every_job_cancelled_ones_too(make_review_job):
    from assess.tasks import sync_review_items
    from debates.models import DebateJob

    live = make_review_job(escalated=2, slug="live", sync=False)
    cancelled = make_review_job(escalated=3, slug="gone", sync=False)
    DebateJob.objects.filter(pk=cancelled.job.pk).update(status=DebateJob.Status.CANCELLED)
    assert sync_review_items.apply().get() == 5
    assert sync_review_items.apply().get() == 0
    jobs = ReviewItem.objects.values_list("debate__job_id", flat=True)
    assert sorted(jobs) == [live.job.pk] * 2 + [cancelled.job.pk] * 3
