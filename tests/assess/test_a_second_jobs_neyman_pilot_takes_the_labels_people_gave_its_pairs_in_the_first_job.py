"""A second job on a pool whose pairs people already judged in the first job: its Neyman
pilot draws its audit as always (the draw is a hash of job and pair, blind to any label),
but a drawn pair people have answered takes that answer at once instead of waiting for an
annotator, whom the one-pair-one-annotator rule would refuse it anyway
(assess.review.answered). So the pilot finishes, and the Neyman phase follows. A pilot item
that truly waits says so in words: how many items, and how many no annotator may be given."""

import uuid

import pytest

from assess.models import Judgment, ReviewItem
from assess.review.agreement import audit_draw
from assess.review.audit import audit_pilot_done, audit_pilot_waiting, audit_tallies
from assess.review.selectors import job_review_notes
from assess.review.services import review_item_claim, review_items_sync

# The pilot's draws are worked by hand at half the share (tests/fixtures/jobs.py).
pytestmark = pytest.mark.usefixtures("pilot_at_half_the_share")

UNIT = "label 1, round 1, below 10"


def _judge(items, annotator, label):
    for item in items:
        Judgment.objects.create(item=item, annotator=annotator, label=label, client_id=uuid.uuid4())
        ReviewItem.objects.filter(pk=item.pk).update(judgments_done=item.judgments_done + 1)


def _drawn(job, below):
    return {d.pk for d in job.debates.all() if audit_draw(job.pk, d.pair_id) < below}


@pytest.mark.django_db
def test_the_pilot_takes_the_first_jobs_answers_and_the_neyman_phase_follows(
    make_two_jobs_on_one_pool, annotators
):
    first, second = make_two_jobs_on_one_pool(
        slug="second", pk=8001, pairs=40, pair_pks=True, audit_share=0.5, audit_allocation="neyman"
    )
    (annotator,) = annotators(1)
    _judge(ReviewItem.objects.filter(debate__job=first), annotator, 0)  # people: all 0

    review_items_sync(job=second)

    pilot = ReviewItem.objects.filter(debate__job=second, kind=ReviewItem.Kind.AUDIT)
    assert set(pilot.values_list("debate_id", flat=True)) == _drawn(second, 0.25)
    assert pilot.count() == 11
    answers = dict(
        ReviewItem.objects.filter(debate__job=first).values_list("debate__pair_id", "pk")
    )
    for item in pilot.select_related("debate"):
        assert (item.answered_by_id, item.judgments_needed, item.inclusion) == (
            answers[item.debate.pair_id],
            0,
            0.25,
        )
    assert review_item_claim(annotator=annotator) is None  # nobody is asked again
    assert audit_pilot_done(job=second)
    # The pilot is in, but only the next review sync draws the Neyman phase: the words say so.
    assert audit_pilot_waiting(job=second) == (
        "The Neyman audit's pilot is in; its second phase (the audits placed where the "
        "debate errs most) is drawn at the next review sync: within a minute with Celery "
        "beat running, or now with ./dream manage review_sync"
    )
    # The answers are the audit's labels: 11 judged, all contradicting the consensus.
    assert audit_tallies(job=second, by_unit=True) == {UNIT: (11, 11)}

    added = review_items_sync(job=second)  # the Neyman phase: the whole share, one unit
    assert audit_pilot_waiting(job=second) == ""

    second.refresh_from_db()
    assert second.audit_inclusion == {UNIT: pytest.approx(0.5, rel=1e-12)}
    share = second.audit_inclusion[UNIT]  # as stored
    assert set(pilot.values_list("debate_id", flat=True)) == _drawn(second, share)
    assert (pilot.count(), added) == (22, 22 - 11)
    assert not pilot.filter(answered_by__isnull=True).exists()
    assert set(pilot.values_list("inclusion", flat=True)) == {share}


@pytest.mark.django_db
def test_a_pilot_item_nobody_may_be_given_is_said_in_words(make_two_jobs_on_one_pool, annotators):
    first, second = make_two_jobs_on_one_pool(
        slug="second",
        pk=8001,
        pairs=40,
        judgments_per_pair=2,
        pair_pks=True,
        audit_share=0.5,
        audit_allocation="neyman",
    )
    (annotator,) = annotators(1)
    # The one annotator judged every pair once in the first job, which wants two judgments:
    # no answer there, and the rule keeps them from the second job's items of those pairs.
    _judge(ReviewItem.objects.filter(debate__job=first), annotator, 0)

    review_items_sync(job=second)

    pilot = ReviewItem.objects.filter(debate__job=second, kind=ReviewItem.Kind.AUDIT)
    assert pilot.count() == 11 and not pilot.filter(answered_by__isnull=False).exists()
    drawn = set(pilot.values_list("pk", flat=True))
    assert review_item_claim(annotator=annotator) is None
    assert not audit_pilot_done(job=second)
    words = (
        "The Neyman audit waits for 11 of its 11 audit items to be judged: 0 can be given to "
        "an annotator; 11 to none (every annotator has judged its pair on another job's "
        "item): it needs a new annotator or an admin's adjudication"
    )
    assert audit_pilot_waiting(job=second) == words
    assert f"audit: {words}" in job_review_notes(second)

    # A second annotator completes the first job's items: the pilot takes their answers.
    (other,) = annotators(1, prefix="other")
    assert audit_pilot_waiting(job=second).startswith(
        "The Neyman audit waits for 11 of its 11 audit items to be judged: 11 can be given"
    )
    _judge(ReviewItem.objects.filter(debate__job=first), other, 0)
    review_items_sync(job=second)  # the pilot is in, and the Neyman phase drew more
    answered = pilot.filter(answered_by__isnull=False, judgments_needed=0)
    assert (
        drawn
        < set(answered.values_list("pk", flat=True))
        == set(pilot.values_list("pk", flat=True))
    )
    assert audit_pilot_done(job=second) and audit_pilot_waiting(job=second) == ""
