"""A pipeline run without a broker records when its debate job started, as run_debates and
the job form do (debate_job_start), so the job page shows a start and a finish time; running
the pipeline again reuses the finished job and keeps its first start time."""

import pytest
from django.utils import timezone

from assess.pipeline import pipeline_run
from debates.models import DebateJob
from tests.fixtures.jobs import pipeline_spec

STANCE_RULE = {"backend": "test", "rule": "stance"}


def run(energy, tmp_path) -> list[str]:
    lines: list[str] = []
    pipeline_run(
        dataset=energy,
        echo=lines.append,
        spec=pipeline_spec(
            retrievers=["bm25"], depth=3, agent=STANCE_RULE, rounds=2, out_dir=tmp_path
        ),
    )
    return lines


@pytest.mark.django_db
def test_a_pipeline_run_sets_the_jobs_start_time_before_its_finish_time(
    energy, fake_llms, tmp_path
):
    before = timezone.now()

    run(energy, tmp_path)

    job = DebateJob.objects.get()
    assert job.status == "finished"
    assert before <= job.started <= job.finished


@pytest.mark.django_db
def test_a_second_pipeline_run_reuses_the_finished_job_and_keeps_its_start_time(
    energy, fake_llms, tmp_path
):
    run(energy, tmp_path)
    first = DebateJob.objects.get()

    lines = run(energy, tmp_path)

    job = DebateJob.objects.get()
    assert f"debate job {first.pk}: reused (finished)" in lines
    assert (job.status, job.started, job.finished) == ("finished", first.started, first.finished)
