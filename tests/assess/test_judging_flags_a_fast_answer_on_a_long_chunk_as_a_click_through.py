"""A judgment faster than the floor (DREAM_CLICK_THROUGH_SECONDS, 2 s) on a chunk of more than
DREAM_CLICK_THROUGH_WORDS (100) words is flagged as a possible click-through: 1.0 active
second on a 150-word chunk is, on a 50-word chunk or at 5 s it is not; without a measured
active time the wall time decides. Gold items (no debate) are measured on their document."""

import uuid

import pytest

from assess.models import Judgment, ReviewItem

HX = {"HX-Request": "true"}


def _words(n: int) -> str:
    return " ".join(f"word{i}" for i in range(n))


@pytest.mark.parametrize(
    ("words", "seconds", "active", "flagged"),
    [
        (150, "9", "1.0", True),  # 1 active second of 9 on the page: not read
        (50, "1", "1.0", False),  # a short chunk
        (150, "5", "5", False),  # above the floor
        (150, "1.0", None, True),  # not measured: the wall time decides
        (150, "30", None, False),
    ],
)
def test_a_fast_answer_on_a_long_chunk_is_flagged(
    client, make_review_job, annotators, words, seconds, active, flagged
):
    make_review_job(escalated=1, chunk_text=_words(words))
    (alice,) = annotators(1)
    client.force_login(alice)
    item = ReviewItem.objects.get()
    body = {"client_id": str(uuid.uuid4()), "label": "1", "seconds": seconds}
    if active is not None:
        body["active"] = active
    assert client.post(f"/judge/{item.public_id}/submit/", body, headers=HX).status_code == 200
    assert Judgment.objects.get().click_through is flagged


def test_the_floor_and_the_word_count_are_settings(client, make_review_job, annotators, settings):
    settings.DREAM_CLICK_THROUGH_SECONDS = 10.0
    settings.DREAM_CLICK_THROUGH_WORDS = 20
    make_review_job(escalated=1, chunk_text=_words(30))
    (alice,) = annotators(1)
    client.force_login(alice)
    item = ReviewItem.objects.get()
    body = {"client_id": str(uuid.uuid4()), "label": "0", "seconds": "60", "active": "8"}
    client.post(f"/judge/{item.public_id}/submit/", body, headers=HX)
    assert Judgment.objects.get().click_through is True


def test_a_gold_item_is_measured_on_its_gold_pairs_document(make_review_job, annotators):
    from assess.models import GoldPair
    from assess.review.services import judgment_record
    from corpora.models import Document

    review = make_review_job(escalated=1)
    (alice,) = annotators(1)
    debate = review.escalated[0]
    long_doc = Document.objects.create(
        dataset=debate.pair.document.dataset, doc_id="long", text=_words(150)
    )
    gold = GoldPair.objects.create(
        job=review.job,
        query=debate.pair.query,
        document=long_doc,
        label=0,
        basis=GoldPair.Basis.CROSS_QUERY,
        draw_key="0" * 64,
    )
    item = ReviewItem.objects.create(
        gold=gold, assigned_to=alice, kind=ReviewItem.Kind.GOLD, judgments_needed=1
    )
    recorded = judgment_record(
        item=item, annotator=alice, label=0, client_id=uuid.uuid4(), seconds=1.5
    )
    assert recorded.judgment.click_through is True
