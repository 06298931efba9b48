"""At a pilot of a tenth of the share a small job's Neyman pilot often draws no pair (40
agreed labels at a share of 0.2: each in the pilot with probability 0.02, none in 44% of
jobs). Once the debates are over such a pilot is in, the next review sync draws the second
phase by the ranks and the strata's prior error rates, and the words say so; while the job
runs, the pilot waits for agreed labels to draw (assess.review.audit)."""

import pytest

from assess.models import ReviewItem
from assess.review.agreement import audit_draw
from assess.review.audit import audit_phase, audit_pilot_done, audit_pilot_waiting
from assess.review.services import review_items_sync
from corpora.models import Document, Pair, Query
from debates.models import Debate, DebateJob

PAIRS = range(9001, 9041)


def _job_whose_pilot_draws_nothing(make_finished_job) -> DebateJob:
    # The draws hash (job id, pair id): a job id under which no pair's draw is below the
    # pilot's 0.02, so the pilot draws nothing whatever the tests run before.
    pk = next(p for p in range(9001, 9400) if min(audit_draw(p, i) for i in PAIRS) >= 0.02)
    job = make_finished_job(slug="zero", pk=pk, audit_share=0.2, audit_allocation="neyman")
    for i, pair_id in enumerate(PAIRS):
        q = Query.objects.create(dataset=job.pool.dataset, query_id=f"q{i}", text="q")
        d = Document.objects.create(dataset=job.pool.dataset, doc_id=f"d{i}", title="t", text="x")
        pair = Pair.objects.create(pk=pair_id, pool=job.pool, query=q, document=d)
        Debate.objects.create(
            job=job, pair=pair, status=Debate.Status.AGREED, final_label=i % 2,
            consensus_round=1,
        )  # fmt: skip
    return job


@pytest.mark.django_db
def test_a_finished_jobs_empty_pilot_is_in_and_the_next_sync_draws_the_second_phase(
    make_finished_job,
):
    job = _job_whose_pilot_draws_nothing(make_finished_job)

    assert review_items_sync(job=job) == 0  # the pilot: nothing drawn
    assert audit_pilot_done(job=job) and audit_phase(job=job) == "pilot"
    assert audit_pilot_waiting(job=job) == (
        "The Neyman audit's pilot drew no pair (it audits each agreed label with probability "
        "0.02); its second phase (the audits placed where the debate errs most) is drawn at "
        "the next review sync: within a minute with Celery beat running, or now with "
        "./dream manage review_sync"
    )

    drawn = review_items_sync(job=job)

    job.refresh_from_db()
    # Two strata of 20 (label 0 and 1, round 1), no rank: one unit each, both at the prior
    # error SD, so the whole share goes to both alike: 0.2 each, about 8 pairs in all.
    assert job.audit_inclusion == pytest.approx(
        {"label 0, round 1, below 10": 0.2, "label 1, round 1, below 10": 0.2}
    )
    expected = sum(1 for i in PAIRS if audit_draw(job.pk, i) < 0.2)
    assert drawn == expected == ReviewItem.objects.filter(debate__job=job).count() > 0
    assert audit_phase(job=job) == "second"
    assert audit_pilot_waiting(job=job).startswith(
        "The Neyman audit's second phase is drawn, and nothing more will be drawn unless the "
        f"share is raised; {expected} of its {expected} audit items wait for judgments: "
    )


@pytest.mark.django_db
def test_a_running_jobs_empty_pilot_waits_for_agreed_labels_to_draw(make_finished_job):
    job = _job_whose_pilot_draws_nothing(make_finished_job)
    DebateJob.objects.filter(pk=job.pk).update(status=DebateJob.Status.RUNNING)
    job.refresh_from_db()

    review_items_sync(job=job)
    review_items_sync(job=job)

    assert not audit_pilot_done(job=job)
    assert ReviewItem.objects.filter(debate__job=job).count() == 0
    assert audit_phase(job=job) == "pilot"
    assert audit_pilot_waiting(job=job) == (
        "The Neyman audit's pilot has drawn no pair yet: it draws from the agreed labels as "
        "the debates end"
    )
