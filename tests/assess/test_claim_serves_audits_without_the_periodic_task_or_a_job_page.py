"""Audits reach annotators with no Celery beat and nobody opening a job page: a debate that
ends agreed and is drawn for the audit is queued as it ends (the debate_ended signal), so a
claim serves it, and an older audit is served before an escalation that came later."""

from datetime import timedelta

from django.utils import timezone

from assess.models import ReviewItem
from assess.review.services import review_item_claim, review_items_sync
from debates.models import Debate, DebateJob
from debates.signals import debate_ended


def _ended(debate: Debate, status: str = "agreed") -> None:
    debate_ended.send_robust(
        sender=Debate, debate_id=debate.pk, job_id=debate.job_id, status=status
    )


def test_a_claim_returns_an_audit_of_a_finished_job(make_review_job, annotators):
    review = make_review_job(escalated=0, agreed=2, audit_share=1.0, sync=False)
    (alice,) = annotators(1)
    assert ReviewItem.objects.count() == 0
    for debate in review.agreed:
        _ended(debate)
    item = review_item_claim(annotator=alice)
    assert (item.debate_id, item.kind) == (review.agreed[0].pk, "audit")
    assert sorted(ReviewItem.objects.values_list("debate_id", "kind")) == [
        (d.pk, "audit") for d in review.agreed
    ]


def test_audits_of_a_running_job_join_the_queue_as_its_debates_agree(make_review_job, annotators):
    review = make_review_job(escalated=0, agreed=2, audit_share=1.0, sync=False)
    job = review.job
    DebateJob.objects.filter(pk=job.pk).update(status=DebateJob.Status.RUNNING)
    long_ago = timezone.now() - timedelta(hours=2)
    first, second = review.agreed
    Debate.objects.filter(pk=first.pk).update(finished=long_ago)
    Debate.objects.filter(pk=second.pk).update(
        status=Debate.Status.PENDING, final_label=None, consensus_round=None
    )
    alice, bob = annotators(2)
    _ended(first)
    assert review_item_claim(annotator=alice).debate_id == first.pk
    assert review_item_claim(annotator=bob) is None  # the second debate is still running

    Debate.objects.filter(pk=second.pk).update(
        status=Debate.Status.AGREED, final_label=1, consensus_round=1, finished=timezone.now()
    )
    _ended(second)
    item = review_item_claim(annotator=bob)
    assert (item.debate_id, item.kind) == (second.pk, "audit")


def test_an_older_audit_is_served_before_a_later_escalation(make_review_job, annotators):
    audited = make_review_job(escalated=0, agreed=1, audit_share=1.0, slug="audited")
    escalated = make_review_job(escalated=1, slug="escalated")
    alice, bob = annotators(2)
    first = review_item_claim(annotator=alice)
    second = review_item_claim(annotator=bob)
    assert [(first.debate_id, first.kind), (second.debate_id, second.kind)] == [
        (audited.agreed[0].pk, "audit"),
        (escalated.escalated[0].pk, "escalated"),
    ]


def test_a_sync_limited_to_recent_debates_leaves_older_ones_to_the_full_sync(make_review_job):
    review = make_review_job(escalated=0, agreed=2, audit_share=1.0, sync=False)
    now = timezone.now()
    old, recent = review.agreed
    Debate.objects.filter(pk=old.pk).update(finished=now - timedelta(hours=1))
    Debate.objects.filter(pk=recent.pk).update(finished=now)
    assert review_items_sync(job=review.job, agreed_since=now - timedelta(minutes=5)) == 1
    assert list(ReviewItem.objects.values_list("debate_id", flat=True)) == [recent.pk]
    assert review_items_sync(job=review.job) == 1
    assert ReviewItem.objects.count() == 2
