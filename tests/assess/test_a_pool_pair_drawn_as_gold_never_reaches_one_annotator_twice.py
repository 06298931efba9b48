"""A gold pair that is also a pair of the pool (the draw takes none, but a pool extended
after the draw can gain one, and gold drawn before that rule may be one): one annotator still
meets that query and chunk once in the job, as a debate's pair or as the gold pair,
whichever comes first, while other annotators may still judge the debate's pair. The queue
count leaves out what the annotator will not be given."""

import pytest

from assess.models import GoldPair, ReviewItem
from assess.review import gold
from assess.review.selectors import judging_status
from assess.review.services import judgment_record, review_item_claim
from debates.models import DebateJob

SHARE = 0.5


def _twin_job(make_review_job):
    """A job over q001/d001..q006/d006 whose one gold pair is q001/d001, a pool pair: made
    directly, as a pool extended after the draw leaves it (the draw is marked done, so it
    adds nothing), and the job's only gold pair, so that every annotator meets the twin at
    their first gold place."""
    built = make_review_job(escalated=6, gold_share=SHARE)
    first = built.escalated[0].pair
    twin = GoldPair.objects.create(
        job=built.job,
        query=first.query,
        document=first.document,
        label=1,
        basis=gold.POSITIVE,
        draw_key=gold.gold_draw_key(built.job.pk, "q001", "d001"),
    )
    DebateJob.objects.filter(pk=built.job.pk).update(gold_drawn_at_share=SHARE)
    built.job.refresh_from_db()
    return built, twin


def _judge_all(annotator):
    """Claim and judge until nothing is left; the (query, document) pks of the items given."""
    given = []
    while (item := review_item_claim(annotator=annotator)) is not None:
        pair = item.gold if item.gold_id else item.debate.pair
        given.append((pair.query_id, pair.document_id))
        judgment_record(
            item=item,
            annotator=annotator,
            label=1,
            # 32 hex digits whatever the id: four decimal digits broke at user id 10,000.
            client_id=f"{annotator.pk:016x}{len(given):016x}",
        )
    return given


@pytest.mark.parametrize("gold_first", [True, False], ids=["gold first", "debate first"])
def test_an_annotator_meets_a_pool_pair_drawn_as_gold_once(
    make_review_job, annotator_at_first_place, gold_first
):
    built, twin = _twin_job(make_review_job)
    # The queue serves q001/d001 first; an annotator whose first place is a gold place gets
    # the gold twin first, another the debate's pair first.
    ann = annotator_at_first_place(built.job, SHARE, gold=gold_first)
    given = _judge_all(ann)
    assert given.count((twin.query_id, twin.document_id)) == 1
    assert len(given) == len(set(given))
    twin_item = ReviewItem.objects.get(debate=built.escalated[0])
    judged_twin_as_gold = ReviewItem.objects.filter(gold=twin, assigned_to=ann).exists()
    assert judged_twin_as_gold == gold_first
    assert twin_item.judgments.filter(annotator=ann).exists() != gold_first
    # Nothing is left for them: the count does not hold the pair they will never be given.
    assert judging_status(annotator=ann).queue == 0


def test_another_annotator_still_judges_the_debates_pair(make_review_job, annotator_at_first_place):
    built, twin = _twin_job(make_review_job)
    gold_first = annotator_at_first_place(built.job, SHARE, gold=True)
    debate_first = annotator_at_first_place(built.job, SHARE, gold=False)
    _judge_all(gold_first)
    twin_item = ReviewItem.objects.get(debate=built.escalated[0])
    assert twin_item.judgments.count() == 0  # waits for someone who did not see it as gold
    assert judging_status(annotator=debate_first).queue >= 1
    given = _judge_all(debate_first)
    assert (twin.query_id, twin.document_id) in given
    assert twin_item.judgments.get().annotator == debate_first
