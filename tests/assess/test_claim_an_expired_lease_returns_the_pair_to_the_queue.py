"""A claimed pair is leased for 15 minutes; once the lease expires another annotator can
claim it, and the first annotator's late answer is refused while the new lease lives."""

from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import ReviewItem
from assess.review.services import JudgingConflict, judgment_record, review_item_claim


def test_a_lease_lasts_fifteen_minutes_by_default(make_review_job, annotators):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    now = timezone.now()
    item = review_item_claim(annotator=alice, now=now)
    assert item.leased_to == alice
    assert item.claimed_at == now
    assert item.lease_expires_at == now + timedelta(minutes=15)


def test_a_leased_pair_is_not_given_to_anyone_else_until_its_lease_expires(
    make_review_job, annotators
):
    make_review_job(escalated=1)
    alice, bob = annotators(2)
    now = timezone.now()
    first = review_item_claim(annotator=alice, now=now)
    assert review_item_claim(annotator=bob, now=now + timedelta(minutes=14, seconds=59)) is None
    later = now + timedelta(minutes=15, seconds=1)
    second = review_item_claim(annotator=bob, now=later)
    assert second.pk == first.pk
    assert second.leased_to == bob
    assert second.lease_expires_at == later + timedelta(minutes=15)


def test_the_first_annotators_late_answer_is_refused_while_the_new_lease_lives(
    make_review_job, annotators
):
    make_review_job(escalated=1)
    alice, bob = annotators(2)
    now = timezone.now()
    item = review_item_claim(annotator=alice, now=now)
    review_item_claim(annotator=bob, now=now + timedelta(minutes=16))
    with pytest.raises(JudgingConflict, match="another annotator is judging it now"):
        judgment_record(
            item=item,
            annotator=alice,
            label=1,
            client_id="00000000-0000-4000-8000-000000000001",
            now=now + timedelta(minutes=17),
        )
    item.refresh_from_db()
    assert (item.judgments_done, item.leased_to) == (0, bob)
    assert item.judgments.count() == 0


def test_an_expired_lease_nobody_took_still_accepts_the_answer(make_review_job, annotators):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    now = timezone.now()
    item = review_item_claim(annotator=alice, now=now)
    recorded = judgment_record(
        item=item,
        annotator=alice,
        label=0,
        client_id="00000000-0000-4000-8000-000000000002",
        now=now + timedelta(hours=1),
    )
    assert recorded.created
    item = ReviewItem.objects.get(pk=item.pk)
    assert (item.judgments_done, item.leased_to, item.lease_expires_at) == (1, None, None)
