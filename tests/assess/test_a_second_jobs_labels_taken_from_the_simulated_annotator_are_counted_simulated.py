"""A second job on a pool takes the human answers people gave in the first job (a reused
escalation, an audit item answered by the first job's item, as here: assess.review.answered). When
those answers are the simulated annotator's, the second job's labels are simulated too: its
SIMULATED line (job page, API, `debate_job ID progress`) and the benchmark zip's datasheet
counted only the judgments given on the job's own items, so they said nothing of the
simulated human labels the second job took."""

import uuid

import pytest

from assess.models import Judgment, ReviewItem
from assess.models.simulated import SIMULATED_ANNOTATOR
from assess.review.services import review_items_sync
from assess.review.simulated_marks import (
    job_simulated_labels,
    simulated_items_count,
    simulated_judgments_count,
)
from core.roles import Role, user_ensure


@pytest.mark.django_db
def test_the_answers_a_second_job_takes_from_the_simulated_annotator_are_counted(
    make_two_jobs_on_one_pool,
):
    first, second = make_two_jobs_on_one_pool(
        slug="taken",
        pk=8201,
        pairs=3,
        second_label=0,
        audit_share=1.0,  # every agreed label audited
    )
    simulated, _created, _password = user_ensure(username=SIMULATED_ANNOTATOR, role=Role.ANNOTATOR)
    for item in ReviewItem.objects.filter(debate__job=first):
        Judgment.objects.create(item=item, annotator=simulated, label=1, client_id=uuid.uuid4())
        ReviewItem.objects.filter(pk=item.pk).update(judgments_done=item.judgments_needed)

    review_items_sync(job=second)

    taken = ReviewItem.objects.filter(debate__job=second, answered_by__isnull=False)
    assert taken.count() == 3
    assert not Judgment.objects.filter(item__debate__job=second).exists()
    assert job_simulated_labels(job=second)["human"] == 3
    assert simulated_judgments_count(jobs=[second.pk]) == 3
    # The first and second jobs together: each judgment once.
    assert simulated_judgments_count(jobs=[first.pk, second.pk]) == 3
    # The calibration panel's count of audited pairs with simulated human labels, too.
    audits = ReviewItem.objects.filter(debate__job=second, kind=ReviewItem.Kind.AUDIT)
    assert simulated_items_count(items=audits) == 3
