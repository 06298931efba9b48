"""A batch-mode job's page has a Batch section: its latest submissions (batch id, status,
requests, replies, created and ended, a failed batch's errors, all escaped), its requests
due, sent, answered and failed, and the commands that advance it; other jobs have none."""

import pytest

from debates.models import BatchRequest, BatchSubmission
from debates.services.batch_api import batch_submit_step
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.batch import MODEL
from tests.fixtures.ui import html_tables

pytestmark = pytest.mark.django_db


def _launch(pool, url, *, batch: bool):
    agent = {"backend": "openai", "model": MODEL, "base_url": url, "context_window": 8192}
    return debate_job_launch(
        spec=JobSpec(pool=pool, agent_a=agent, rounds=2, max_tokens=384, batch=batch)
    )


def test_a_batch_jobs_page_shows_its_batches_requests_and_commands(
    client_as, scifact_pool, batch_api
):
    job = _launch(scifact_pool(2), batch_api.url, batch=True)
    batch_submit_step(job=job)
    sent = BatchSubmission.objects.get(job=job)
    BatchSubmission.objects.create(
        job=job,
        batch_id="batch_<b>bold</b>",
        status="failed",
        request_count=3,
        detail="line 1: <script>alert(1)</script>",
        imported=True,
    )
    first = BatchRequest.objects.filter(job=job).order_by("pk").first()
    BatchRequest.objects.filter(pk=first.pk).update(status="due")

    html = client_as("researcher").get(f"/jobs/{job.pk}/").content.decode()
    assert '<section id="job-batch">' in html
    requests = next(t for t in html_tables(html) if t and t[0][0] == "due")
    assert requests == [["due", "1"], ["sent", "3"], ["answered", "0"], ["failed", "0"]]
    submissions = next(t for t in html_tables(html) if t and t[0][0] == "batch")
    assert submissions[0] == [
        "batch",
        "status",
        "requests",
        "replies",
        "due again",
        "created",
        "ended",
    ]
    assert submissions[1][:5] == [
        "batch_<b>bold</b>",
        "failed imported line 1: <script>alert(1)</script>",
        "3",
        "0",
        "0",
    ]
    assert submissions[2][:5] == [sent.batch_id, "validating", "4", "", ""]
    assert "batch_&lt;b&gt;bold&lt;/b&gt;" in html and "<script>alert(1)" not in html
    assert f"./dream manage debate_batch {job.pk} submit --wait" in html
    assert f"./dream manage debate_batch {job.pk} export --out requests.jsonl" in html
    assert "1 batch in flight" in html


def test_a_direct_jobs_page_has_no_batch_section(client_as, scifact_pool, scripted_server):
    job = _launch(scifact_pool(1), scripted_server, batch=False)
    html = client_as("researcher").get(f"/jobs/{job.pk}/").content.decode()
    assert 'id="job-batch"' not in html
