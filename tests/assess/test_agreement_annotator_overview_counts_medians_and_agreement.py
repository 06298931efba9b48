"""The annotator overview: live judgments per annotator (all time and today), undone ones,
the median seconds per judgment, agreement with other annotators on shared pairs and with
adjudicated labels."""

import uuid

from assess.models import Judgment
from assess.review.services import (
    adjudication_record,
    judgment_record,
    judgment_undo,
    review_item_claim,
)
from tests.fixtures.ui import html_tables


def _judge(user, label, seconds):
    item = review_item_claim(annotator=user)
    judgment_record(item=item, annotator=user, label=label, client_id=uuid.uuid4(), seconds=seconds)
    return item


def test_the_overview_table_holds_hand_counted_numbers(make_review_job, annotators, client_as):
    make_review_job(escalated=3, judgments_per_pair=2)
    alice, bob = annotators(2)
    # alice: pairs 1, 2, 3 with 1, 0, 1 in 10, 20, 60 s; then she undoes pair 3 and
    # judges it again with 0 in 30 s. Live: 1, 0, 0 -> median of 10, 20, 30 = 20 s.
    first = _judge(alice, 1, 10)
    _judge(alice, 0, 20)
    _judge(alice, 1, 60)
    judgment_undo(annotator=alice)
    third = review_item_claim(annotator=alice)
    judgment_record(item=third, annotator=alice, label=0, client_id=uuid.uuid4(), seconds=30)
    # bob: pairs 1, 2, 3 with 1, 1, 0 in 5, 7, 40 s -> median 7 s.
    _judge(bob, 1, 5)
    _judge(bob, 1, 7)
    _judge(bob, 0, 40)
    # Agreement with each other: pair 1 yes, pair 2 no, pair 3 yes -> 2 of 3 for both.
    adjudication_record(item=first, admin=alice, label=0)  # both said 1: 0 of 1 agree
    assert Judgment.objects.count() == 7

    tables = html_tables(client_as("researcher").get("/review/annotators/").content.decode())
    # Columns: judgments, today, undone, median active s (not measured: posted without the
    # page's script), median s on page, click-throughs, gold accuracy and recall (no
    # known-answer pairs here), agreement with others, compared, with adjudication.
    assert tables[0][1:] == [
        ["ann1", "3", "3", "1", "–", "20.0", "0", "–", "–", "–", "67%", "3", "0% of 1"],
        ["ann2", "3", "3", "0", "–", "7.0", "0", "–", "–", "–", "67%", "3", "0% of 1"],
    ]


def test_nobody_judged_yet(client_as, db):
    html = client_as("admin").get("/review/annotators/").content.decode()
    assert "No judgments yet." in html
