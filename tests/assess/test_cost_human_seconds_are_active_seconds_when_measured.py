"""The human cost of a label counts each judgment's active seconds (page visible, input within
the idle cut-off) when the judging page measured them, and its wall seconds on task when it
did not: the cost by source (assess.refined.selectors.refined_costs) and the labels JSONL's
``human_seconds`` agree.

Hand-worked: pair 1 judged in 300 wall seconds of which 30 active (20 by heartbeats + 10 with
the answer), pair 2 posted without the script in 120 wall seconds (not measured). Human
seconds: 30 + 120 = 150; at 36 per hour, 150 / 3600 * 36 = 1.5."""

import io
import json
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import ReviewItem
from assess.refined.exports import export_stream
from assess.refined.refine import qrels_refine
from assess.refined.selectors import refined_costs
from assess.review.active_time import review_item_active_add
from assess.review.services import judgment_record, review_item_claim


@pytest.fixture(name="judged_set")
def judged_set_fixture(make_review_job, annotators, settings):
    settings.DREAM_HUMAN_PRICE_PER_HOUR = "36"
    review = make_review_job(escalated=2)
    (alice,) = annotators(1)
    first = review_item_claim(annotator=alice)
    assert first.debate_id == review.escalated[0].pk
    # Shown 300 s ago (the server never counts more active time than the pair was held).
    ReviewItem.objects.filter(pk=first.pk).update(
        claimed_at=timezone.now() - timedelta(seconds=300)
    )
    first.refresh_from_db()
    review_item_active_add(item=first, annotator=alice, seconds=20.0)
    judgment_record(
        item=first, annotator=alice, label=1, client_id=uuid.uuid4(), seconds=300, active_seconds=10
    )
    second = ReviewItem.objects.get(debate=review.escalated[1])
    judgment_record(item=second, annotator=alice, label=0, client_id=uuid.uuid4(), seconds=120)
    refined = qrels_refine(pool=review.job.pool, name="timed", allow_partial=True).qrel_set
    return review, refined


def test_the_human_cost_counts_active_seconds_when_measured(judged_set):
    _, refined = judged_set
    human = refined_costs(qrel_set=refined)["human"]
    assert (human.labels, human.human_seconds) == (2, 150.0)
    assert human.human_money == pytest.approx(1.5)


def test_the_labels_jsonl_gives_the_same_human_seconds(judged_set):
    review, refined = judged_set
    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=refined)
    seconds = {
        line["debate"]: line["human_seconds"]
        for line in map(json.loads, out.getvalue().splitlines())
        if line["source"] == "human"
    }
    assert seconds == {review.escalated[0].pk: 30.0, review.escalated[1].pk: 120.0}
