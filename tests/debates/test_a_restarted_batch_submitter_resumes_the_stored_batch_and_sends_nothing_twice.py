"""A batch submitter stopped at any point resumes from the database: stopped after the batch
was created, the next process polls the stored batch (no request uploaded twice, no output
imported twice); stopped between upload and creation, its requests are due again once the
row is stale (a live submitter is waited for meanwhile); stopped right after the server
created the batch, the batch is found by its input file and adopted, not sent again."""

from datetime import timedelta

import pytest
from django.utils import timezone

from debates.models import BatchRequest, BatchSubmission, DebateJob
from debates.services.batch_api import (
    STALE_SECONDS,
    batch_api_client,
    batch_submission_import,
    batch_submit_step,
)
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.batch import MODEL

pytestmark = pytest.mark.django_db


def _launch(pool, url) -> DebateJob:
    agent = {"backend": "openai", "model": MODEL, "base_url": url, "context_window": 8192}
    return debate_job_launch(
        spec=JobSpec(pool=pool, agent_a=agent, rounds=2, max_tokens=384, batch=True)
    )


def _steps_to_the_end(job_id: int) -> list[str]:
    """Steps, each by a new process (a fresh job object), until the job stops running."""
    said = []
    for _ in range(60):
        job = DebateJob.objects.get(pk=job_id)
        if job.status != DebateJob.Status.RUNNING:
            return said
        said.append(batch_submit_step(job=job))
    raise AssertionError(f"job {job_id} still running after 60 steps: {said[-3:]}")


def _stale(row: BatchSubmission) -> None:
    BatchSubmission.objects.filter(pk=row.pk).update(
        updated=timezone.now() - timedelta(seconds=STALE_SECONDS + 1)
    )


def test_a_process_stopped_after_the_batch_was_created_resumes_polling_it(scifact_pool, batch_api):
    job = _launch(scifact_pool(5), batch_api.url)
    said = batch_submit_step(job=job)
    first = BatchSubmission.objects.get(job=job)
    assert said == f"submitted batch {first.batch_id} (10 requests)"
    assert set(BatchRequest.objects.filter(job=job).values_list("batch_ref", flat=True)) == {
        first.batch_id
    }

    said = _steps_to_the_end(job.pk)  # the process stopped here; new ones go on
    assert said[0] == f"batch {first.batch_id}: in_progress"
    assert DebateJob.objects.get(pk=job.pk).status == "finished"

    sent = batch_api.uploaded_custom_ids()
    assert len(sent) == len(set(sent)) == BatchRequest.objects.filter(job=job).count()
    rows = BatchSubmission.objects.filter(job=job)
    assert [("POST", "/v1/batches")] * rows.count() == [
        r for r in batch_api.requests if r == ("POST", "/v1/batches")
    ]
    # Each output file was downloaded once and each reply stored once.
    downloads = [path for method, path in batch_api.requests if path.endswith("/content")]
    assert sorted(downloads) == sorted(f"/v1/files/{r.output_file_id}/content" for r in rows)
    assert sum(r.replies for r in rows) == BatchRequest.objects.filter(job=job).count()
    assert all(r.imported and r.status == "completed" for r in rows)


def test_an_ended_batch_is_imported_once_when_two_processes_saw_it_open(scifact_pool, batch_api):
    job = _launch(scifact_pool(2), batch_api.url)
    batch_submit_step(job=job)
    stale = BatchSubmission.objects.get(job=job)  # a second process loaded it, then waited
    while "completed" not in batch_submit_step(job=DebateJob.objects.get(pk=job.pk)):
        pass
    answered = list(BatchRequest.objects.filter(job=job).values_list("pk", "status", "response"))
    fresh = DebateJob.objects.get(pk=job.pk)
    client = batch_api_client(job=fresh)
    stale.output_file_id = BatchSubmission.objects.get(pk=stale.pk).output_file_id

    said = batch_submission_import(job=fresh, submission=stale, client=client)
    assert said == f"batch {stale.batch_id} was imported before"
    assert list(BatchRequest.objects.filter(job=job).values_list("pk", "status", "response")) == (
        answered
    )


def test_a_process_stopped_between_upload_and_creation_sends_its_requests_again(
    scifact_pool, batch_api
):
    job = _launch(scifact_pool(3), batch_api.url)
    client = batch_api_client(job=job)

    def stopped(**kwargs):
        raise KeyboardInterrupt  # the process ends between upload and creation

    client.batches.create = stopped
    with pytest.raises(KeyboardInterrupt):
        batch_submit_step(job=job, client=client)
    row = BatchSubmission.objects.get(job=job)
    assert (row.status, row.batch_id, row.request_count) == ("exporting", "", 6)
    assert BatchRequest.objects.filter(job=job, status="sent").count() == 6

    # Fresh, the row may be a live submitter's: the next process waits for it.
    said = batch_submit_step(job=DebateJob.objects.get(pk=job.pk))
    assert said.startswith(f"submission {row.pk} is being exported by another process")
    _stale(row)
    said = batch_submit_step(job=DebateJob.objects.get(pk=job.pk))
    created = BatchSubmission.objects.get(job=job, status="validating")
    assert said == (
        f"submission {row.pk} was never created: its 6 request(s) are due again; "
        f"submitted batch {created.batch_id} (6 requests)"
    )
    row.refresh_from_db()
    assert (row.status, row.returned, row.imported) == ("abandoned", 6, True)
    assert BatchRequest.objects.filter(job=job, failures=0).count() == 6
    _steps_to_the_end(job.pk)
    assert DebateJob.objects.get(pk=job.pk).status == "finished"
    # Only the file of the batch never created was uploaded a second time.
    sent = batch_api.uploaded_custom_ids()
    assert len(sent) == BatchRequest.objects.filter(job=job).count() + 6


def test_a_process_stopped_right_after_creation_adopts_the_batch_the_server_made(
    scifact_pool, batch_api, monkeypatch
):
    import debates.services.batch_api as batch_api_module

    job = _launch(scifact_pool(3), batch_api.url)

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt  # the batch exists on the server; its id was never stored

    monkeypatch.setattr(batch_api_module, "_created", stopped)
    with pytest.raises(KeyboardInterrupt):
        batch_submit_step(job=job)
    monkeypatch.undo()
    row = BatchSubmission.objects.get(job=job)
    assert (row.status, row.batch_id) == ("exporting", "")
    (made,) = batch_api.batches

    _stale(row)
    said = batch_submit_step(job=DebateJob.objects.get(pk=job.pk))
    assert said == (
        f"adopted batch {made}, created before the last process stopped; batch {made}: in_progress"
    )
    row.refresh_from_db()
    assert row.batch_id == made
    assert set(BatchRequest.objects.filter(job=job).values_list("batch_ref", flat=True)) == {made}
    _steps_to_the_end(job.pk)
    assert DebateJob.objects.get(pk=job.pk).status == "finished"
    sent = batch_api.uploaded_custom_ids()
    assert len(sent) == len(set(sent)) == BatchRequest.objects.filter(job=job).count()
