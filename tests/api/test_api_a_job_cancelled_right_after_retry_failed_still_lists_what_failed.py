"""Retry failed only gives the failed debates back as pending with their last error kept; a
cancel before any of them ran again left them pending for good, so the job's failures, its
counts and its page said nothing had failed. Such debates (given back, not asked again) end
failed again when the job is cancelled, with the error and attempts they had when they were
given back; pairs that never failed stay pending."""

import pytest

from debates.llm.base import LLMResult, PermanentLLMError
from debates.llm.scripted import RuleClient
from debates.models import Debate, DebateJob
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.jobs import reply


def _rule(messages):
    # d2 and d3 fail every attempt (3, then the debate is failed); the other two pairs are
    # agreed relevant in round 1.
    user = messages[1]["content"]
    for text, doc in (("solar tax credit", "d2"), ("Wind turbines", "d3")):
        if text in user:
            return PermanentLLMError(f"no answer for {doc}")
    return LLMResult(reply(1), "rule", 100, 10, 5.0, "stop")


@pytest.fixture
def failed_job(small_pool, monkeypatch):
    client = RuleClient(_rule)
    monkeypatch.setattr(
        "debates.services.backends.agent_client_get", lambda *, config, api_key=None: client
    )
    job = debate_job_launch(spec=JobSpec(pool=small_pool, rounds=1))
    debate_job_wait(job=job)
    job.refresh_from_db()
    assert job.status == DebateJob.Status.FINISHED
    return job


def _failures(api, job) -> tuple:
    listed = api.get(f"/api/v1/jobs/{job.pk}/failures").json()
    body = api.get(f"/api/v1/jobs/{job.pk}").json()
    return (
        listed["count"],
        [(f["pair"]["doc_id"], f["attempts"], f["last_error"]) for f in listed["items"]],
        {k: body["counts"][k] for k in ("failed", "pending", "settled", "last_error")},
    )


@pytest.mark.django_db
def test_a_cancel_before_the_retried_pairs_ran_lists_their_earlier_errors_again(
    failed_job, api_as, client_as, django_capture_on_commit_callbacks
):
    admin = api_as("admin")
    failed = [
        ("d2", 3, "PermanentLLMError: no answer for d2"),
        ("d3", 3, "PermanentLLMError: no answer for d3"),
    ]
    counts = {"failed": 2, "pending": 0, "settled": 2, "last_error": failed[1][2]}
    assert _failures(admin, failed_job) == (2, failed, counts)

    with django_capture_on_commit_callbacks(execute=False):  # nothing runs the retried pairs
        assert admin.post(f"/api/v1/jobs/{failed_job.pk}/retry-failed").status_code == 200
    assert _failures(admin, failed_job)[0] == 0  # given back: pending while the job runs
    assert admin.post(f"/api/v1/jobs/{failed_job.pk}/cancel").json()["status"] == "cancelled"

    assert _failures(admin, failed_job) == (2, failed, counts)
    assert Debate.objects.filter(job=failed_job, status="failed").count() == 2
    assert set(failed_job.debates.values_list("pair__document__doc_id", "status")) == {
        ("d1", "agreed"),
        ("d10", "agreed"),
        ("d2", "failed"),
        ("d3", "failed"),
    }
    page = client_as("admin").get(f"/jobs/{failed_job.pk}/").content.decode()
    assert "2 of 4 pairs failed (2 settled, 0 escalated, 0 pending, 0 running)." in page
    assert '<code class="error-text">PermanentLLMError: no answer for d2</code>' in page


@pytest.mark.django_db
def test_a_cancel_leaves_a_pair_that_never_failed_pending(small_pool, api_as):
    job = debate_job_launch(spec=JobSpec(pool=small_pool, rounds=1), start=False)
    DebateJob.objects.filter(pk=job.pk).update(status=DebateJob.Status.RUNNING)
    assert api_as("admin").post(f"/api/v1/jobs/{job.pk}/cancel").status_code == 200
    assert list(Debate.objects.filter(job=job).values_list("status", flat=True)) == ["pending"] * 4
