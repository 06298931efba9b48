"""Twenty annotators claim at once from a queue of ten escalated pairs: ten distinct claims,
ten "queue empty", no pair twice (one SQL statement with FOR UPDATE SKIP LOCKED)."""

import threading

import pytest
from django.db import connection

from assess.models import ReviewItem
from assess.review.services import review_item_claim


@pytest.mark.django_db(transaction=True)
def test_twenty_threads_claiming_ten_pairs_get_ten_distinct_pairs_and_ten_empty_answers(
    make_review_job, annotators
):
    make_review_job(escalated=10)
    users = annotators(20)
    assert ReviewItem.objects.count() == 10
    barrier = threading.Barrier(20)
    results: dict[str, int | None] = {}
    errors: list[BaseException] = []

    def claim(user):
        try:
            barrier.wait(timeout=30)
            item = review_item_claim(annotator=user)
            results[user.username] = item.pk if item else None
        except BaseException as exc:  # reported below, not swallowed
            errors.append(exc)
        finally:
            connection.close()  # each thread has its own connection

    threads = [threading.Thread(target=claim, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    assert len(results) == 20
    claimed = [pk for pk in results.values() if pk is not None]
    assert len(claimed) == 10
    assert len(set(claimed)) == 10
    assert sum(1 for pk in results.values() if pk is None) == 10
    holders = dict(ReviewItem.objects.values_list("pk", "leased_to__username"))
    assert {pk: name for name, pk in results.items() if pk is not None} == holders
