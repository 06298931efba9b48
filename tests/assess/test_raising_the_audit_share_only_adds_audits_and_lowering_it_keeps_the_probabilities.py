"""Raising a job's audit share keeps every audit drawn before, adds the pairs the larger share
draws and raises the inclusion probability of every audit item of the stratum to it: the
sample stays one with known probabilities. Lowering the share takes nothing back and keeps
the stratum's probability: a debate that ends later is drawn at it."""

from assess.models import ReviewItem
from assess.review.agreement import audit_draw
from assess.review.services import review_item_for_debate, review_items_sync
from debates.models import Debate
from debates.services.human import debate_job_audit_share_set

STRATUM = "label 1, round 1"


def test_a_raised_share_adds_audits_and_a_lowered_one_keeps_the_probability(make_review_job):
    review = make_review_job(escalated=0, agreed=80, audit_share=0.1, sync=True)
    job = review.job
    before = set(ReviewItem.objects.values_list("debate_id", flat=True))
    # A pair the raised share draws and the lowered one would not: it ends after the changes.
    late = next(d for d in review.agreed if 0.1 <= audit_draw(job.pk, d.pair_id) < 0.3)
    ReviewItem.objects.filter(debate=late).delete()  # as if it ended after the changes
    Debate.objects.filter(pk=late.pk).update(status=Debate.Status.RUNNING)

    debate_job_audit_share_set(job=job, share=0.3)
    review_items_sync(job=job)  # what the change's receiver runs after the commit

    after = set(ReviewItem.objects.values_list("debate_id", flat=True))
    drawn = {d.pk for d in review.agreed if audit_draw(job.pk, d.pair_id) < 0.3} - {late.pk}
    assert before < after == drawn
    assert set(ReviewItem.objects.values_list("inclusion", flat=True)) == {0.3}
    job.refresh_from_db()
    assert job.audit_inclusion == {STRATUM: 0.3}

    debate_job_audit_share_set(job=job, share=0.05)
    assert review_items_sync(job=job) == 0
    job.refresh_from_db()
    assert (job.audit_share, job.audit_inclusion) == (0.05, {STRATUM: 0.3})
    assert set(ReviewItem.objects.values_list("debate_id", flat=True)) == after

    Debate.objects.filter(pk=late.pk).update(status=Debate.Status.AGREED)
    assert review_item_for_debate(debate_id=late.pk) is True
    assert ReviewItem.objects.get(debate=late).inclusion == 0.3
