"""A sync lets an audit item that nobody has touched take the answer people gave its pair on
another job's item (assess.review.answered.review_answers_refresh). Between the sync reading
which items are untouched and writing, an annotator may claim one of them: that item is
theirs now, and the sync must leave it to them, not take it over under their lease so that
their judgment is refused. The write checks again, in its own statement, that the item is
still untouched."""

import uuid

import pytest

from assess.models import ReviewItem
from assess.review import answered
from assess.review.human_labels import review_final_labels
from assess.review.services import judgment_record, review_item_claim, review_items_sync

pytestmark = pytest.mark.django_db


def test_an_item_claimed_while_the_sync_runs_is_left_to_its_annotator(
    make_two_jobs_on_one_pool, annotators, monkeypatch
):
    first, second = make_two_jobs_on_one_pool(slug="claimed", pk=8201, pairs=3, audit_share=1.0)
    review_items_sync(job=second)  # every pair audited; nobody answered yet
    audits = ReviewItem.objects.filter(debate__job=second)
    assert audits.count() == 3 and not audits.filter(answered_by__isnull=False).exists()
    alice, bob = annotators(2)
    for item in ReviewItem.objects.filter(debate__job=first):
        judgment_record(item=item, annotator=alice, label=0, client_id=uuid.uuid4())

    # Bob claims one of the second job's audits just after the sync has read the untouched
    # items, while it looks up the answers.
    claimed: list[ReviewItem] = []
    lookup = answered.answered_items

    def claim_then_look_up(**kwargs):
        if not claimed:
            item = review_item_claim(annotator=bob)
            assert item is not None and item.debate.job_id == second.pk
            claimed.append(item)
        return lookup(**kwargs)

    monkeypatch.setattr(answered, "answered_items", claim_then_look_up)
    review_items_sync(job=second)

    (mine,) = claimed
    mine.refresh_from_db()
    assert (mine.answered_by_id, mine.judgments_needed, mine.leased_to_id) == (None, 1, bob.pk)
    others = audits.exclude(pk=mine.pk)
    assert set(others.values_list("judgments_needed", flat=True)) == {0}
    assert not others.filter(answered_by__isnull=True).exists()
    judgment_record(item=mine, annotator=bob, label=1, client_id=uuid.uuid4())
    labels = review_final_labels(job=second)
    assert labels[mine.debate_id] == (1, "human")
    assert sorted(label for label, _ in labels.values()) == [0, 0, 1]
