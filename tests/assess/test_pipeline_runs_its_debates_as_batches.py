"""``pipeline --batch``: the main job's debates go round by round through the agents' server's
Batch API and the pipeline goes on to refine and re-benchmark, with the labels the direct
path gets from the same scripted model."""

import pytest

from assess.pipeline import pipeline_run
from debates.models import BatchRequest, DebateJob
from tests.fixtures.batch import MODEL
from tests.fixtures.jobs import pipeline_spec


@pytest.mark.django_db
def test_the_pipeline_debates_in_batches_and_refines(energy, batch_api, tmp_path):
    agent = {"backend": "openai", "model": MODEL, "base_url": batch_api.url, "context_window": 8192}
    lines: list[str] = []

    report = pipeline_run(
        dataset=energy,
        echo=lines.append,
        spec=pipeline_spec(
            retrievers=["bm25"],
            depth=3,
            agent=agent,
            rounds=2,
            out_dir=tmp_path,
            batch=True,
            batch_poll_seconds=0,
        ),
    )

    job = DebateJob.objects.get()
    assert job.batch and job.status == "finished"
    assert report.counts["pairs"] == report.counts["agreed"] + report.counts["escalated"]
    assert report.counts["failed"] == 0
    assert BatchRequest.objects.filter(job=job).exclude(status="answered").count() == 0
    assert any("batch" in line for line in lines)
    assert report.refined_rows > 0
