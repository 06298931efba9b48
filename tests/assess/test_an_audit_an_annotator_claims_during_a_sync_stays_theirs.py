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
from corpora.models import Document, Pair, Query
from debates.models import Debate, DebateJob

pytestmark = pytest.mark.django_db


def test_an_item_claimed_while_the_sync_runs_is_left_to_its_annotator(
    make_finished_job, annotators, monkeypatch
):
    first = make_finished_job(slug="claimed", pk=8201)
    second = DebateJob.objects.create(
        pk=8202,
        pool=first.pool,
        agent_a=first.agent_a,
        agent_b=first.agent_b,
        rounds=2,
        prompt_version="test",
        status=DebateJob.Status.FINISHED,
        audit_share=1.0,
    )
    dataset = first.pool.dataset
    for i in range(3):
        query = Query.objects.create(dataset=dataset, query_id=f"q{i}", text="q")
        document = Document.objects.create(dataset=dataset, doc_id=f"d{i}", title="t", text="x")
        pair = Pair.objects.create(pool=first.pool, query=query, document=document)
        Debate.objects.create(job=first, pair=pair, status=Debate.Status.ESCALATED)
        Debate.objects.create(
            job=second, pair=pair, status=Debate.Status.AGREED, final_label=1, consensus_round=1
        )
    review_items_sync(job=first)
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
