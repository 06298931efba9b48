"""Agreed debates go to a human audit when a hash of (job id, pair id) falls under the job's
audit share: the same pairs every time, about the share of them, and none at share 0."""

import hashlib

from assess.models import ReviewItem
from assess.review.agreement import audit_draw, audit_selected
from assess.review.services import review_items_sync


def test_the_draw_is_the_first_64_bits_of_sha256_of_job_and_pair():
    digest = hashlib.sha256(b"7:1234").digest()
    assert audit_draw(7, 1234) == int.from_bytes(digest[:8], "big") / 2**64
    assert 0 <= audit_draw(7, 1234) < 1


def test_about_two_percent_of_ten_thousand_pairs_are_drawn_at_the_default_share():
    drawn = sum(audit_selected(1, pair, 0.02) for pair in range(1, 10_001))
    # Binomial(10000, 0.02): mean 200, sd 14; the draw is deterministic, this is its count.
    assert drawn == sum(audit_draw(1, pair) < 0.02 for pair in range(1, 10_001))
    assert 160 <= drawn <= 240


def test_a_pair_drawn_at_a_small_share_stays_drawn_at_a_larger_one():
    small = {p for p in range(1, 5001) if audit_selected(3, p, 0.02)}
    large = {p for p in range(1, 5001) if audit_selected(3, p, 0.10)}
    assert small < large


def test_syncing_creates_audit_items_for_exactly_the_drawn_agreed_pairs(make_review_job):
    # Job and pair ids fixed (6601, pairs 6601..6660): the draw hashes them, so the sample is
    # the same whatever tests ran before: 12 of the 60.
    review = make_review_job(escalated=0, agreed=60, audit_share=0.25, sync=False, pk=6601)
    job = review.job
    expected = {d.pk for d in review.agreed if audit_selected(job.pk, d.pair_id, 0.25)}
    assert len(expected) == 12
    assert review_items_sync(job=job) == len(expected)
    assert review_items_sync(job=job) == 0
    audits = ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT)
    assert set(audits.values_list("debate_id", flat=True)) == expected


def test_a_share_of_zero_audits_nothing(make_review_job):
    review = make_review_job(escalated=1, agreed=20, audit_share=0.0, sync=False)
    assert review_items_sync(job=review.job) == 1
    assert ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT).count() == 0
