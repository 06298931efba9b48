"""A pair wanting several judgments goes to several annotators, never twice to one; an
undone judgment makes the pair available to its annotator again."""

from assess.models import ReviewItem
from assess.review.services import judgment_record, judgment_undo, review_item_claim


def _judge(item, user, label, n):
    return judgment_record(
        item=item, annotator=user, label=label, client_id=f"00000000-0000-4000-8000-{n:012d}"
    )


def test_a_pair_needing_two_judgments_goes_to_two_different_annotators(make_review_job, annotators):
    make_review_job(escalated=1, judgments_per_pair=2)
    alice, bob, carol = annotators(3)
    item = review_item_claim(annotator=alice)
    assert item.judgments_needed == 2
    _judge(item, alice, 1, 1)
    assert review_item_claim(annotator=alice) is None  # judged by her already
    again = review_item_claim(annotator=bob)
    assert again.pk == item.pk
    _judge(again, bob, 0, 2)
    assert review_item_claim(annotator=carol) is None  # complete: two judgments
    item.refresh_from_db()
    assert item.judgments_done == 2
    assert sorted(item.judgments.values_list("annotator__username", "label")) == [
        ("ann1", 1),
        ("ann2", 0),
    ]


def test_after_undo_the_same_annotator_may_judge_the_pair_again(make_review_job, annotators):
    make_review_job(escalated=1, judgments_per_pair=2)
    (alice,) = annotators(1)
    item = review_item_claim(annotator=alice)
    _judge(item, alice, 1, 3)
    judgment_undo(annotator=alice)
    held = review_item_claim(annotator=alice)
    assert held.pk == item.pk
    _judge(held, alice, 0, 4)
    assert ReviewItem.objects.get(pk=item.pk).judgments_done == 1
    rows = item.judgments.order_by("created").values_list("label", "undone_at")
    assert [(label, undone is not None) for label, undone in rows] == [(1, True), (0, False)]
