"""Two undos of the same judgment arriving together (a retry racing the first request, or two
tabs pressing u) undo it once and lower the pair's count once; the count never goes below
zero. Real PostgreSQL, one thread per request: a third transaction holds the pair's row lock
until both undos wait for it, so both have started before either can change anything."""

import threading
import time
import uuid

import pytest
from django.db import connection, transaction

from assess.models import Judgment, ReviewItem
from assess.review.services import judgment_record, judgment_undo


def _waiting_for_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def _race(item_pk: int, undo) -> list[BaseException]:
    """Run ``undo()`` in two threads while another thread holds the item's row lock; release
    it once both undos wait on it. Returns the errors the threads raised."""
    locked, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def hold():
        try:
            with transaction.atomic():
                ReviewItem.objects.select_for_update().get(pk=item_pk)
                locked.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    def run():
        try:
            undo()
        except BaseException as exc:  # reported by the test, not swallowed
            errors.append(exc)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert locked.wait(timeout=30)
    undos = [threading.Thread(target=run) for _ in range(2)]
    for thread in undos:
        thread.start()
    deadline = time.monotonic() + 30
    while _waiting_for_a_lock() < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    waiting = _waiting_for_a_lock()
    release.set()
    holder.join(timeout=30)
    for thread in undos:
        thread.join(timeout=30)
    assert waiting == 2, "both undos should have been waiting for the pair's lock"
    return errors


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("named", [True, False], ids=["same undo id", "newest judgment"])
def test_two_concurrent_undos_of_one_judgment_lower_the_count_once(
    make_review_job, annotators, named
):
    make_review_job(escalated=1, judgments_per_pair=2)
    alice, bob = annotators(2)
    item = ReviewItem.objects.get()
    alice_id = uuid.uuid4()
    judgment_record(item=item, annotator=bob, label=0, client_id=uuid.uuid4())
    judgment_record(item=item, annotator=alice, label=1, client_id=alice_id)
    assert ReviewItem.objects.get().judgments_done == 2

    errors = _race(
        item.pk, lambda: judgment_undo(annotator=alice, client_id=alice_id if named else None)
    )

    assert errors == []
    assert ReviewItem.objects.get().judgments_done == 1
    assert sorted(
        (j.annotator.username, j.undone_at is not None) for j in Judgment.objects.all()
    ) == [("ann1", True), ("ann2", False)]


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_undos_of_a_pairs_only_judgment_leave_the_count_at_zero(
    make_review_job, annotators
):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    item = ReviewItem.objects.get()
    client_id = uuid.uuid4()
    judgment_record(item=item, annotator=alice, label=1, client_id=client_id)

    errors = _race(item.pk, lambda: judgment_undo(annotator=alice, client_id=client_id))

    assert errors == []
    stored = ReviewItem.objects.get()
    assert (stored.judgments_done, stored.leased_to_id) == (0, alice.pk)
    assert Judgment.objects.filter(undone_at__isnull=False).count() == 1
