"""The claim is one SQL statement whose inner SELECT locks the chosen row with
``FOR UPDATE SKIP LOCKED`` (PostgreSQL): while another transaction holds the first pair's row
lock, a claim takes the next pair at once instead of waiting (plain ``FOR UPDATE`` would wait
for the lock; a 2-second lock_timeout turns such a wait into an error here, not a hang). "Without
waiting" follows from the holder keeping its lock until the claim has returned: a claim that
waited for that lock could only have ended in the lock_timeout's error."""

import threading

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from assess.models import ReviewItem
from assess.review.services import review_item_claim


@pytest.mark.django_db(transaction=True)
def test_a_claim_skips_the_pair_another_transaction_holds_locked_without_waiting(
    make_review_job, annotators
):
    review = make_review_job(escalated=2)
    (alice,) = annotators(1)
    first, second = (d.review for d in review.escalated)
    locked, release = threading.Event(), threading.Event()
    held_until_released: list[bool] = []

    def hold_the_first_pair():
        try:
            with transaction.atomic():
                ReviewItem.objects.select_for_update().get(pk=first.pk)
                locked.set()
                held_until_released.append(release.wait(timeout=120))
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_first_pair)
    holder.start()
    try:
        assert locked.wait(timeout=30)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")
        item = review_item_claim(annotator=alice)
    finally:
        release.set()
        holder.join(timeout=120)
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    assert item.pk == second.pk
    # The first pair stayed locked for the whole claim (released by us, not by the holder's
    # own timeout), so the claim returned without waiting for it: no lock_timeout error.
    assert held_until_released == [True]
    assert ReviewItem.objects.get(pk=second.pk).leased_to_id == alice.pk
    # Once the lock is gone the first pair is free for the next annotator.
    assert ReviewItem.objects.get(pk=first.pk).leased_to_id is None


def test_the_claim_is_one_update_statement_with_for_update_skip_locked(make_review_job, annotators):
    make_review_job(escalated=2)
    (alice,) = annotators(1)
    with CaptureQueriesContext(connection) as queries:
        item = review_item_claim(annotator=alice)
    assert item is not None
    sql = [" ".join(q["sql"].split()) for q in queries.captured_queries]
    locking = [s for s in sql if "FOR UPDATE" in s.upper()]
    writes = [s for s in sql if s.upper().startswith(("UPDATE", "INSERT", "DELETE"))]
    assert len(locking) == 1
    assert writes == locking
    claim = locking[0]
    assert claim.startswith("UPDATE assess_reviewitem SET leased_to_id = ")
    assert "WHERE id = ( SELECT r.id FROM assess_reviewitem r" in claim
    # Highest impact first, then oldest (the human budget's order).
    assert claim.endswith(
        "ORDER BY r.impact DESC, r.created, r.id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id"
    )
