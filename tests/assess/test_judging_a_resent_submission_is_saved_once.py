"""Each submission carries a client-made UUID: sending it again (a retry after a lost
answer, a re-send after logging in) returns the stored judgment and saves nothing new."""

import threading
import uuid

import pytest
from django.db import connection

from assess.models import Judgment, ReviewItem
from assess.review.services import JudgingError, judgment_record, review_item_claim


def test_the_same_client_id_twice_gives_one_judgment(make_review_job, annotators):
    make_review_job(escalated=2)
    (alice,) = annotators(1)
    item = review_item_claim(annotator=alice)
    client_id = uuid.uuid4()
    first = judgment_record(
        item=item, annotator=alice, label=1, client_id=client_id, note=" why ", seconds=12.5
    )
    again = judgment_record(item=item, annotator=alice, label=0, client_id=str(client_id))
    assert first.created is True
    assert again.created is False
    assert again.judgment.pk == first.judgment.pk
    assert Judgment.objects.count() == 1
    stored = Judgment.objects.get()
    assert (stored.label, stored.note, stored.seconds_on_task) == (1, "why", 12.5)
    assert ReviewItem.objects.get(pk=item.pk).judgments_done == 1


def test_a_client_id_used_for_another_pair_is_refused(make_review_job, annotators):
    make_review_job(escalated=2)
    (alice,) = annotators(1)
    client_id = uuid.uuid4()
    first = review_item_claim(annotator=alice)
    judgment_record(item=first, annotator=alice, label=1, client_id=client_id)
    second = review_item_claim(annotator=alice)
    with pytest.raises(JudgingError, match="already used for another pair"):
        judgment_record(item=second, annotator=alice, label=1, client_id=client_id)
    assert Judgment.objects.count() == 1


@pytest.mark.parametrize("label", [2, -1, True, "1"])
def test_a_label_other_than_zero_or_one_is_refused(make_review_job, annotators, label):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    item = review_item_claim(annotator=alice)
    with pytest.raises(JudgingError, match="label must be 1"):
        judgment_record(item=item, annotator=alice, label=label, client_id=uuid.uuid4())
    assert Judgment.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_two_copies_sent_at_the_same_moment_save_one_judgment(make_review_job, annotators):
    make_review_job(escalated=1)
    (alice,) = annotators(1)
    item = review_item_claim(annotator=alice)
    client_id = uuid.uuid4()
    barrier = threading.Barrier(2)
    outcomes, errors = [], []

    def send():
        try:
            barrier.wait(timeout=30)
            outcomes.append(
                judgment_record(item=item, annotator=alice, label=1, client_id=client_id).created
            )
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert sorted(outcomes) == [False, True]
    assert Judgment.objects.count() == 1
    assert ReviewItem.objects.get(pk=item.pk).judgments_done == 1
