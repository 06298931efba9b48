"""The review gives stage 0 its human labels of pooled pairs with the probability each pair
went to people (1 for an escalation, its audit stratum's for an audit) and the smallest such
probability over the job's settled pairs (its ``floor``); a job with a human budget, whose
review goes by impact rather than by chance, has floor 0."""

import pytest

from assess.models import Judgment, ReviewItem
from assess.review.agreement import audit_draw
from assess.review.band_labels import dataset_band_labels
from debates.models import Debate, DebateJob

pytestmark = pytest.mark.django_db


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
