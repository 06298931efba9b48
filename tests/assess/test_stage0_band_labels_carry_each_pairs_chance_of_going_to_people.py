"""The review gives stage 0 its human labels of pooled pairs with the probability each pair
went to people (1 for an escalation, its audit stratum's for an audit) and the smallest such
probability over the job's settled pairs (its ``floor``); a job with a human budget, whose
review goes by impact rather than by chance, has floor 0."""

import pytest

from assess.models import Judgment, ReviewItem
from assess.review.agreement import audit_draw
from assess.review.band_labels import dataset_band_labels
from debates.models import Debate, DebateJob

# The pilot's draws are worked by hand at half the share (tests/fixtures/jobs.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("pilot_at_half_the_share")]


def _judge_all(job, annotator, label_of) -> None:
    for item in ReviewItem.objects.filter(debate__job=job):
        Judgment.objects.create(
            item=item, annotator=annotator, label=label_of(item), client_id=f"{item.pk:032x}"
        )
        ReviewItem.objects.filter(pk=item.pk).update(judgments_done=1)


def test_escalations_carry_one_and_audits_their_strata_share(make_review_job, annotators):
    from assess.review.services import review_items_sync

    review = make_review_job(escalated=2, agreed=60, audit_share=0.25, sync=False)
    job = review.job
    # Two strata: "label 1, round 1" (30 pairs) and "label 0, round 2" (30 pairs).
    Debate.objects.filter(pk__in=[d.pk for d in review.agreed[30:]]).update(
        final_label=0, consensus_round=2
    )
    review_items_sync(job=job)
    (annotator,) = annotators(1)
    _judge_all(job, annotator, lambda item: 1 if item.kind == "escalated" else 0)
    audited = {d.pk for d in review.agreed if audit_draw(job.pk, d.pair_id) < 0.25}

    given = dataset_band_labels(dataset=job.pool.dataset)

    expected = {(d.pair.query_id, d.pair.document_id): (1, 1.0, 0.25) for d in review.escalated} | {
        (d.pair.query_id, d.pair.document_id): (0, 0.25, 0.25)
        for d in review.agreed
        if d.pk in audited
    }
    assert given == expected
    assert len(given) == 2 + len(audited)

    DebateJob.objects.filter(pk=job.pk).update(human_budget=500)
    assert {row[2] for row in dataset_band_labels(dataset=job.pool.dataset).values()} == {0.0}


def test_a_job_of_escalations_only_sends_every_pair_so_its_floor_is_one(
    make_review_job, annotators
):
    review = make_review_job(escalated=3, agreed=0)
    (annotator,) = annotators(1)
    _judge_all(review.job, annotator, lambda item: 0)
    given = dataset_band_labels(dataset=review.job.pool.dataset)
    assert sorted(given.values()) == [(0, 1.0, 1.0)] * 3


def test_a_neyman_audit_carries_its_units_probability_not_its_strata_pilot(
    make_review_job, annotators
):
    from assess.review.services import review_items_sync

    review = make_review_job(escalated=2, agreed=60, audit_share=0.2, sync=False)
    job = review.job
    # Neyman, its agreed pairs unranked ("below 10"), that unit raised to 0.5 before: its
    # audits went to people with probability 0.5, not the pilot's 0.1.
    DebateJob.objects.filter(pk=job.pk).update(
        audit_allocation="neyman", audit_inclusion={"label 1, round 1, below 10": 0.5}
    )
    job.refresh_from_db()
    review_items_sync(job=job)
    (annotator,) = annotators(1)
    _judge_all(job, annotator, lambda item: 1)
    audited = {d.pk for d in review.agreed if audit_draw(job.pk, d.pair_id) < 0.5}

    given = dataset_band_labels(dataset=job.pool.dataset)

    expected = {(d.pair.query_id, d.pair.document_id): (1, 1.0, 0.5) for d in review.escalated}
    pairs = [(d.pair.query_id, d.pair.document_id) for d in review.agreed if d.pk in audited]
    expected |= dict.fromkeys(pairs, (1, 0.5, 0.5))
    assert given == expected


def test_a_pair_settled_again_by_a_newer_job_is_in_the_sample_only_through_that_job(
    make_review_job, annotators
):
    from assess.review.services import review_items_sync

    # Job 1 escalated three pairs and people judged them; job 2 re-debated the same pairs
    # and agreed on them, auditing none (share 0.01: every draw here is above it). Each
    # pair's chance of a label is job 2's (the newest job that settled it), so a label of
    # job 1 would enter the sample with 1 - 0.01 more chance than the rest: none is kept.
    review = make_review_job(escalated=3, agreed=0)
    (annotator,) = annotators(1)
    _judge_all(review.job, annotator, lambda item: 1)
    first = review.job
    # The draws hash (job id, pair id), and ids depend on the tests run before: the second
    # job's id is chosen so that no pair's draw falls under its share, whatever ran first.
    pairs = [debate.pair_id for debate in review.escalated]
    free_id = next(i for i in range(10_000, 20_000) if min(audit_draw(i, p) for p in pairs) >= 0.01)
    second = DebateJob.objects.create(
        pk=free_id, pool=first.pool, agent_a=first.agent_a, agent_b=first.agent_b, rounds=2,
        prompt_version="newer", status=DebateJob.Status.FINISHED, audit_share=0.01,
    )  # fmt: skip
    for debate in review.escalated:
        Debate.objects.create(
            job=second, pair=debate.pair, status=Debate.Status.AGREED, final_label=0,
            consensus_round=1,
        )  # fmt: skip
        assert audit_draw(second.pk, debate.pair_id) >= 0.01
    review_items_sync(job=second)

    assert dataset_band_labels(dataset=first.pool.dataset) == {}
