"""A proportional audit (the default allocation) puts every stratum at the job's audit share:
the sync and a debate ending draw exactly the pairs the uniform draw at that share drew
before strata existed, each audit item carrying the share as its inclusion probability and
each escalated item 1; the job stores the share for every stratum it has."""

from assess.models import ReviewItem
from assess.review.agreement import audit_draw
from assess.review.services import review_item_for_debate, review_items_sync
from debates.models import Debate


def _uniform(job, share):
    return {
        d.pk
        for d in job.debates.filter(status=Debate.Status.AGREED)
        if audit_draw(job.pk, d.pair_id) < share
    }


def test_the_sync_draws_the_uniform_sample_in_every_stratum(make_review_job):
    # The draw hashes job and pair ids, so they are fixed (job 6701, pairs 6701..6762): a
    # quarter of the 60 agreed labels draws 15. With ids from the sequences (which depend on
    # the tests run before) the count left 6..24 in about one test order in 230.
    review = make_review_job(escalated=2, agreed=60, audit_share=0.25, sync=False, pk=6701)
    job = review.job
    Debate.objects.filter(pk__in=[d.pk for d in review.agreed[30:]]).update(
        final_label=0, consensus_round=2
    )
    expected = _uniform(job, 0.25)
    assert len(expected) == 15

    assert review_items_sync(job=job) == len(expected) + 2

    job.refresh_from_db()
    assert job.audit_allocation == "proportional"
    assert job.audit_inclusion == {"label 0, round 2": 0.25, "label 1, round 1": 0.25}
    audits = ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT)
    assert set(audits.values_list("debate_id", flat=True)) == expected
    assert set(audits.values_list("inclusion", flat=True)) == {0.25}
    escalated = ReviewItem.objects.filter(kind=ReviewItem.Kind.ESCALATED)
    assert list(escalated.values_list("inclusion", flat=True)) == [1.0, 1.0]


def test_a_debate_ending_is_drawn_as_the_sync_draws_it(make_review_job):
    review = make_review_job(escalated=1, agreed=60, audit_share=0.25, sync=False)
    job = review.job
    expected = _uniform(job, 0.25)

    made = {
        d.pk for d in [*review.escalated, *review.agreed] if review_item_for_debate(debate_id=d.pk)
    }

    assert made == expected | {review.escalated[0].pk}
    inclusion = dict(ReviewItem.objects.values_list("debate_id", "inclusion"))
    assert inclusion == {pk: 0.25 for pk in expected} | {review.escalated[0].pk: 1.0}
    assert review_items_sync(job=job) == 0
