"""``POST /api/v1/jobs`` takes ``audit_allocation`` (proportional or neyman) and refuses
another with a 422 naming the field; a job's detail gives its allocation and its audit strata
(agreed labels, inclusion probability, judged and wrong audited pairs)."""

import uuid

import pytest

from assess.models import ReviewItem
from assess.review.services import judgment_record
from debates.models import DebateJob


@pytest.fixture(autouse=True)
def _no_run(settings):
    # The job is only stored here: its debates are queued after a commit that never comes.
    settings.CELERY_TASK_ALWAYS_EAGER = False


def test_a_job_is_launched_with_the_neyman_allocation(api_as, tiny_dataset):
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1, "audit_allocation": "neyman"}
    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 202, answer.content
    assert answer.json()["audit_allocation"] == "neyman"
    assert DebateJob.objects.get().audit_allocation == "neyman"


def test_an_unknown_allocation_is_a_422_naming_the_field(api_as, tiny_dataset):
    body = {"pool": tiny_dataset.pools.get().pk, "audit_allocation": "stratified"}
    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 422
    assert answer.json()["detail"] == (
        "audit_allocation: Input should be 'proportional' or 'neyman'"
    )
    assert DebateJob.objects.count() == 0


def test_the_job_detail_gives_each_stratum(api_as, make_review_job, annotators):
    # Job and pair ids fixed (6501, pairs 6501..6541): the draw hashes them, and a quarter of
    # these 40 agreed labels is 8 audits, two of them judged below whatever ran before.
    review = make_review_job(escalated=1, agreed=40, audit_share=0.25, pk=6501)
    (alice,) = annotators(1)
    audits = ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT).order_by("pk")
    assert audits.count() == 8
    first, second = audits[:2]
    judgment_record(item=first, annotator=alice, label=0, client_id=uuid.uuid4())  # wrong
    judgment_record(item=second, annotator=alice, label=1, client_id=uuid.uuid4())

    answer = api_as("researcher").get(f"/api/v1/jobs/{review.job.pk}")

    assert answer.status_code == 200
    body = answer.json()
    assert (body["audit_share"], body["audit_allocation"]) == (0.25, "proportional")
    assert body["audit_strata"] == {
        "label 1, round 1": {"size": 40, "inclusion": 0.25, "judged": 2, "wrong": 1}
    }
