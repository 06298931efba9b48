"""An annotator holding a live lease gets the same pair back (reload, new login); a skip
gives the pair back to the queue, for others, and not again to the skipper in this session."""

from assess.review.services import review_item_claim, review_item_release


def test_claiming_again_returns_the_pair_already_held(make_review_job, annotators):
    make_review_job(escalated=3)
    (alice,) = annotators(1)
    first = review_item_claim(annotator=alice)
    assert review_item_claim(annotator=alice).pk == first.pk
    assert review_item_claim(annotator=alice).pk == first.pk


def test_a_skipped_pair_goes_to_the_next_annotator_but_not_back_to_the_skipper(
    make_review_job, annotators
):
    review = make_review_job(escalated=2)
    alice, bob = annotators(2)
    first = review_item_claim(annotator=alice)
    assert first.debate_id == review.escalated[0].pk
    assert review_item_release(item=first, annotator=alice) is True
    second = review_item_claim(annotator=alice, exclude_ids=[first.pk])
    assert second.debate_id == review.escalated[1].pk
    assert review_item_claim(annotator=bob).pk == first.pk
    assert review_item_claim(annotator=alice, exclude_ids=[first.pk]).pk == second.pk


def test_releasing_a_pair_held_by_someone_else_does_nothing(make_review_job, annotators):
    make_review_job(escalated=1)
    alice, bob = annotators(2)
    item = review_item_claim(annotator=alice)
    assert review_item_release(item=item, annotator=bob) is False
    item.refresh_from_db()
    assert item.leased_to == alice
