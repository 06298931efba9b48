"""``u`` undoes the annotator's last judgment within 15 minutes: the judgment is kept but
marked undone, the pair's count goes down, and the pair comes back to them with a fresh
lease; too late, taken by someone else, or nothing to undo is refused."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import Judgment, ReviewItem
from assess.review.services import (
    JudgingConflict,
    JudgingError,
    judgment_record,
    judgment_undo,
    review_item_claim,
)


def _judge(user, label, now):
    item = review_item_claim(annotator=user, now=now)
    judgment_record(item=item, annotator=user, label=label, client_id=uuid.uuid4(), now=now)
    return item


def test_undo_marks_the_last_judgment_and_leases_its_pair_to_the_annotator_again(
    make_review_job, annotators
):
    make_review_job(escalated=3)
    (alice,) = annotators(1)
    start = timezone.now()
    _judge(alice, 1, start)
    second = _judge(alice, 0, start)
    third_held = review_item_claim(annotator=alice, now=start)  # the next pair is shown
    undo_at = start + timedelta(minutes=5)
    item = judgment_undo(annotator=alice, now=undo_at)
    assert item.pk == second.pk
    assert (item.judgments_done, item.leased_to, item.claimed_at) == (0, alice, undo_at)
    assert item.lease_expires_at == undo_at + timedelta(minutes=15)
    undone = Judgment.objects.get(item=second)
    assert (undone.label, undone.undone_at) == (0, undo_at)
    # The pair shown meanwhile went back to the queue.
    third = ReviewItem.objects.get(pk=third_held.pk)
    assert (third.leased_to, third.lease_expires_at) == (None, None)
    assert review_item_claim(annotator=alice, now=undo_at).pk == second.pk


def test_undo_after_fifteen_minutes_is_refused(make_review_job, annotators):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    start = timezone.now()
    _judge(alice, 1, start)
    late = Judgment.objects.get().created + timedelta(minutes=15, seconds=1)
    with pytest.raises(JudgingError, match="Nothing to undo"):
        judgment_undo(annotator=alice, now=late)
    assert Judgment.objects.get().undone_at is None


def test_undo_is_refused_once_another_annotator_holds_the_pair(make_review_job, annotators):
    make_review_job(escalated=1, judgments_per_pair=2)
    alice, bob = annotators(2)
    start = timezone.now()
    item = _judge(alice, 1, start)
    assert review_item_claim(annotator=bob, now=start).pk == item.pk
    with pytest.raises(JudgingConflict, match="another annotator is judging this pair"):
        judgment_undo(annotator=alice, now=start + timedelta(minutes=1))
    assert ReviewItem.objects.get(pk=item.pk).judgments_done == 1


def test_nothing_to_undo_is_said_plainly(make_review_job, annotators):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    with pytest.raises(JudgingError, match="Nothing to undo"):
        judgment_undo(annotator=alice)
