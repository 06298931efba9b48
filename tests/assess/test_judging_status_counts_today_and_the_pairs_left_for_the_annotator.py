"""The judging page's status line: the annotator's live judgments saved today, and the pairs
still waiting for them: open pairs, less those another annotator holds, those they judged,
those an admin decided and those they skipped (the pair they hold counts)."""

import uuid
from datetime import timedelta

from django.utils import timezone

from assess.models import Judgment
from assess.review.selectors import JudgingStatus, judging_status
from assess.review.services import (
    adjudication_record,
    judgment_record,
    judgment_undo,
    review_item_claim,
)


def test_each_unavailable_pair_is_taken_off_the_queue_once(make_review_job, annotators):
    make_review_job(escalated=6, judgments_per_pair=2)
    alice, bob = annotators(2)
    assert judging_status(annotator=alice) == JudgingStatus(0, 6)

    held_by_bob = review_item_claim(annotator=bob)  # 1: held by someone else
    first = review_item_claim(annotator=alice)
    judgment_record(item=first, annotator=alice, label=1, client_id=uuid.uuid4())  # 2: judged
    decided = review_item_claim(annotator=alice)
    adjudication_record(item=decided, admin=bob, label=0)  # 3: decided by an admin
    skipped = review_item_claim(annotator=alice)  # 4: skipped (and released)
    skipped.leased_to = None
    skipped.lease_expires_at = None
    skipped.save()
    mine = review_item_claim(annotator=alice, exclude_ids=[skipped.pk])  # held by her: counts
    assert len({held_by_bob.pk, first.pk, decided.pk, skipped.pk, mine.pk}) == 5
    assert judging_status(annotator=alice, exclude_ids=[skipped.pk]) == JudgingStatus(1, 2)
    # For bob: the decided pair and the one alice holds are gone; the one she judged is not.
    assert judging_status(annotator=bob) == JudgingStatus(0, 4)


def test_an_expired_lease_of_someone_else_does_not_hide_the_pair(make_review_job, annotators):
    make_review_job(escalated=2)
    alice, bob = annotators(2)
    now = timezone.now()
    review_item_claim(annotator=bob, now=now)
    assert judging_status(annotator=alice, now=now).queue == 1
    assert judging_status(annotator=alice, now=now + timedelta(minutes=16)).queue == 2


def test_today_counts_live_judgments_since_midnight(make_review_job, annotators):
    make_review_job(escalated=3)
    (alice,) = annotators(1)
    for label in (1, 0):
        item = review_item_claim(annotator=alice)
        judgment_record(item=item, annotator=alice, label=label, client_id=uuid.uuid4())
    judgment_undo(annotator=alice)
    assert judging_status(annotator=alice).today == 1
    Judgment.objects.update(created=timezone.now() - timedelta(days=2))
    assert judging_status(annotator=alice).today == 0
