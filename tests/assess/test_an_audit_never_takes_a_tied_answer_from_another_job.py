"""An audit item may take people's answer on its pair from another job's item
(assess.review.answered), but only an answer that gives a label: an adjudication, or
judgments whose majority (median grade) decides. A tie (one annotator said 1, the other 0)
is no answer: an audit item that took it would ask nobody, hold no label, and let a Neyman
pilot end without it, so the hardest pairs (where people split) would silently leave the
audit. Such an item keeps asking its own job's people, and an item whose answer turns into a
tie after it was taken is opened again at the next sync."""

import uuid

import pytest

from assess.models import ReviewItem
from assess.review.agreement import audit_draw
from assess.review.audit import audit_pilot_done, audit_pilot_waiting, audit_tallies
from assess.review.services import (
    judgment_record,
    judgment_undo,
    review_item_claim,
    review_items_sync,
)

# The pilot's draws are worked by hand at half the share (tests/fixtures/jobs.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("pilot_at_half_the_share")]


def _pilot(job):
    """The job's audit items, checked to be its Neyman pilot: the pairs drawn below 0.25."""
    pilot = ReviewItem.objects.filter(debate__job=job, kind=ReviewItem.Kind.AUDIT)
    drawn = {d.pk for d in job.debates.all() if audit_draw(job.pk, d.pair_id) < 0.25}
    assert set(pilot.values_list("debate_id", flat=True)) == drawn and len(drawn) == 5
    return pilot


# Two Neyman jobs on one pool of 40 pairs, each pair wanting two judgments.
TWO_JOBS = dict(
    slug="ties", pk=8101, pairs=40, judgments_per_pair=2, pair_pks=True, audit_share=0.5,
    audit_allocation="neyman",
)  # fmt: skip


def _judge(items, annotator, label):
    for item in items:
        judgment_record(item=item, annotator=annotator, label=label, client_id=uuid.uuid4())


def test_a_tied_answer_is_not_taken_and_the_pilot_waits_for_people(
    make_two_jobs_on_one_pool, annotators
):
    first, second = make_two_jobs_on_one_pool(**TWO_JOBS)
    alice, bob = annotators(2)
    items = ReviewItem.objects.filter(debate__job=first)
    _judge(items, alice, 1)
    _judge(items, bob, 0)  # every pair of the first job: 1 against 0, a tie

    review_items_sync(job=second)

    pilot = _pilot(second)
    assert list(pilot.values_list("answered_by", "judgments_needed").distinct()) == [(None, 1)]
    assert audit_tallies(job=second) == {}
    assert not audit_pilot_done(job=second)
    # Both annotators judged every pair in the first job: a new one must come.
    assert audit_pilot_waiting(job=second) == (
        "The Neyman audit waits for 5 of its 5 audit items to be judged: 0 can be given to "
        "an annotator; 5 to none (every annotator has judged its pair on another job's "
        "item): it needs a new annotator or an admin's adjudication"
    )
    (carol,) = annotators(1, prefix="carol")
    claimed = review_item_claim(annotator=carol)
    assert claimed is not None and claimed.debate.job_id == second.pk


def test_an_answer_that_becomes_a_tie_is_given_back_to_people(
    make_two_jobs_on_one_pool, annotators
):
    first, second = make_two_jobs_on_one_pool(**TWO_JOBS)
    alice, bob = annotators(2)
    items = ReviewItem.objects.filter(debate__job=first)
    _judge(items, alice, 0)
    _judge(items, bob, 0)  # decided: 0
    review_items_sync(job=second)
    pilot = _pilot(second)
    assert not pilot.filter(answered_by__isnull=True).exists()
    taken = pilot.select_related("answered_by").first()
    source = taken.answered_by

    # Bob takes back his judgment of that pair and gives 1: the answer is now a tie.
    judgment_undo(annotator=bob, client_id=source.judgments.get(annotator=bob).client_id)
    judgment_record(item=source, annotator=bob, label=1, client_id=uuid.uuid4())
    source.refresh_from_db()
    assert (source.judgments_done, source.judgments_needed) == (2, 2)

    review_items_sync(job=second)

    taken.refresh_from_db()
    assert (taken.answered_by_id, taken.judgments_needed) == (None, 1)
    assert pilot.filter(answered_by__isnull=False).count() == 4
