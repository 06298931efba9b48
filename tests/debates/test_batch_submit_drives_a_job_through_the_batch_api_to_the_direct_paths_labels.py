"""``debate_batch JOB submit --wait`` drives a batch-mode job through an OpenAI-compatible
Batch API (export, upload, create, poll, download, import, round after round) to the labels
the direct path gets from the same model, through an expired batch (its unfinished requests
go out again, not counted as failures), a line failing with a 500 (asked again) and a batch
that fails validation (all of it goes out again); one step at a time it says what it did."""

import pytest
from django.core.management import call_command

from debates.models import BatchRequest, BatchSubmission, DebateJob
from debates.services.batch_api import batch_submit_step, batch_submit_wait
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.batch import MODEL, debate_outcomes

pytestmark = pytest.mark.django_db


def _launch(pool, url, *, batch: bool, concurrency: int = 1) -> DebateJob:
    agent = {"backend": "openai", "model": MODEL, "base_url": url, "context_window": 8192}
    spec = JobSpec(
        pool=pool, agent_a=agent, rounds=2, max_tokens=384, concurrency=concurrency, batch=batch
    )
    return debate_job_launch(spec=spec)


# The direct path asks both turns of a round at once (concurrency 2), as a batch does, and
# runs its threads outside a test transaction.
@pytest.mark.django_db(transaction=True)
def test_submit_wait_ends_a_30_pair_job_with_the_direct_paths_labels_through_an_expiry_and_a_500(
    scifact_pool, scripted_server, batch_api
):
    pool = scifact_pool(30)
    direct = _launch(pool, scripted_server, batch=False, concurrency=2)
    debate_job_wait(job=direct)
    job = _launch(pool, batch_api.url, batch=True)
    # The first batch (round 1 of all 30 pairs) expires with half of it run, and its 3rd
    # line fails with a 500 (in the error file).
    batch_api.expire_next, batch_api.fail_line = True, 3
    slept: list[float] = []
    said = batch_submit_wait(job=job, poll_seconds=7, sleep=slept.append)

    job.refresh_from_db()
    assert job.status == "finished"
    assert debate_outcomes(job) == debate_outcomes(direct)
    statuses = [row[0] for row in debate_outcomes(job).values()]
    assert statuses.count("agreed") > 3 and statuses.count("escalated") > 3

    rows = list(BatchSubmission.objects.filter(job=job).order_by("pk"))
    assert [row.status for row in rows[:2]] == ["expired", "completed"]
    assert all(row.imported and row.status == "completed" for row in rows[1:])
    first = rows[0]
    assert first.request_count == 60  # A and B of every pair
    assert (first.replies, first.returned) == (29, 30)
    # The 30 requests the expired batch never ran and the failed line went out in the next
    # batch; no request was sent twice otherwise.
    sent = batch_api.uploaded_custom_ids()
    assert len(sent) == BatchRequest.objects.filter(job=job).count() + 30 + 1
    failed_once = BatchRequest.objects.filter(job=job, failures=1)
    assert failed_once.count() == 1
    assert not BatchRequest.objects.filter(job=job, failures__gt=1).exists()
    assert not BatchRequest.objects.filter(job=job).exclude(status="answered").exists()
    # Every request of a batch carries its id, the one it was last sent in.
    assert set(BatchRequest.objects.filter(job=job).values_list("batch_ref", flat=True)) <= {
        row.batch_id for row in rows
    }

    assert said[0].startswith(f"submitted batch {first.batch_id} (60 requests)")
    assert said[1:3] == [
        f"batch {first.batch_id}: in_progress",
        f"batch {first.batch_id}: finalizing",
    ]
    assert said[3].startswith(
        f"batch {first.batch_id} expired: 29 replies stored, 1 failed line(s) (0 given up), "
        "30 request(s) without a reply due again"
    )
    # The last import ended the last debate, and so the job.
    assert said[-1] == f"job {job.pk} is finished; nothing to submit"
    # Slept after each submission and each poll that found the batch in flight, never after
    # an import: the next round went out at once.
    assert slept == [7] * (len(said) - 1 - len(rows))


def test_a_batch_that_fails_validation_sends_all_its_requests_again(scifact_pool, batch_api):
    job = _launch(scifact_pool(2), batch_api.url, batch=True)
    batch_api.fail_next = True
    assert batch_submit_step(job=job).startswith("submitted batch batch_")
    said = batch_submit_step(job=job)

    failed = BatchSubmission.objects.get(job=job, status="failed")
    assert said == (
        f"batch {failed.batch_id} failed: 0 replies stored, 0 failed line(s) (0 given up), "
        "4 request(s) without a reply due again; 0 debate(s) ended; 4 request(s) due next"
    )
    assert failed.detail == "line 1: invalid_request: scripted validation failure"
    assert BatchRequest.objects.filter(job=job, status="due", failures=0).count() == 4
    batch_submit_wait(job=job, poll_seconds=0, sleep=lambda s: None)
    job.refresh_from_db()
    assert job.status == "finished"


def test_the_command_takes_one_step_or_waits_to_the_end(scifact_pool, batch_api, capsys):
    job = _launch(scifact_pool(2), batch_api.url, batch=True)
    call_command("debate_batch", str(job.pk), "submit")
    batch_id = BatchSubmission.objects.get(job=job).batch_id
    assert capsys.readouterr().out == f"submitted batch {batch_id} (4 requests)\n"
    call_command("debate_batch", str(job.pk), "submit")
    assert capsys.readouterr().out == f"batch {batch_id}: in_progress\n"

    call_command("debate_batch", str(job.pk), "submit", "--wait", "--poll-seconds", "0")
    out = capsys.readouterr().out
    assert f"batch {batch_id} completed: 4 replies stored" in out
    assert f"job {job.pk} is finished; nothing to submit" in out
    assert f"job {job.pk} (finished): 2 pairs" in out  # the summary follows
    call_command("debate_batch", str(job.pk), "submit")
    assert capsys.readouterr().out == f"job {job.pk} is finished; nothing to submit\n"


def test_a_cancelled_job_cancels_its_batch_in_flight(scifact_pool, batch_api):
    from debates.services.jobs import debate_job_cancel

    job = _launch(scifact_pool(2), batch_api.url, batch=True)
    batch_submit_step(job=job)
    debate_job_cancel(job=job)
    row = BatchSubmission.objects.get(job=job)
    assert (
        batch_submit_step(job=job) == f"job {job.pk} is cancelled: batch {row.batch_id} cancelled"
    )
    row.refresh_from_db()
    assert (row.status, row.imported, batch_api.batches[row.batch_id]["status"]) == (
        "cancelling",
        True,
        "cancelling",
    )


def test_a_500_inside_the_output_file_is_asked_again_in_the_next_batch(scifact_pool, batch_api):
    job = _launch(scifact_pool(2), batch_api.url, batch=True)
    batch_api.fail_line, batch_api.fail_in = 2, "output"
    said = batch_submit_wait(job=job, poll_seconds=0, sleep=lambda s: None)

    first = BatchSubmission.objects.filter(job=job).order_by("pk").first()
    assert (first.error_file_id, first.replies, first.returned) == ("", 3, 0)
    assert f"batch {first.batch_id} completed: 3 replies stored, 1 failed line(s)" in said[3]
    retried = BatchRequest.objects.get(job=job, failures=1)
    assert retried.status == "answered" and retried.batch_ref != first.batch_id
    job.refresh_from_db()
    assert job.status == "finished"
