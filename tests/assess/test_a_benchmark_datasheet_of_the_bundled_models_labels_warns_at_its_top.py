"""A benchmark zip whose labels came from the bundled SmolLM2-135M (the demo's) opened with "A
benchmark in BEIR layout...", its only word on the model inside an agent's backend string;
the job page shows a banner. The datasheet now opens with the same warning, decided by the
job page's own test (``DebateJob.uses_bundled_model``): a job on a local GGUF file gets none."""

import pytest

from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from assess.refined.refine import qrels_refine, refinement_get
from debates.bundled import embedded_warning
from debates.models import DebateJob

LOCAL = {
    "backend": "embedded",
    "model": "/models/qwen2.5-7b-instruct-q4_k_m.gguf",
    "model_path": "/models/qwen2.5-7b-instruct-q4_k_m.gguf",
    "n_ctx": 4096,
}

pytestmark = pytest.mark.django_db


def _sheet(job) -> str:
    refined = qrels_refine(pool=job.pool, name="refined").qrel_set
    return datasheet_render(sheet=benchmark_datasheet(refinement=refinement_get(qrel_set=refined)))


def test_labels_of_the_bundled_model_put_the_job_pages_warning_above_the_description(
    make_review_job,
):
    job = make_review_job(escalated=0, agreed=2).job
    assert job.uses_bundled_model
    text = _sheet(job)
    warning = (
        "**Labels from a tiny model, not for a benchmark.** The embedded model (SmolLM2-135M) "
        "is tiny: its labels are for trying the pipeline, not for a benchmark. Use a strong "
        "model for real labels. Measured with evaluate_assessor: balanced accuracy 50%"
    )
    assert warning in text
    assert embedded_warning() in text
    assert text.index(warning) < text.index("A benchmark in BEIR layout")


def test_labels_of_a_local_gguf_model_get_no_such_warning(make_review_job):
    job = make_review_job(escalated=0, agreed=2).job
    DebateJob.objects.filter(pk=job.pk).update(agent_a=LOCAL, agent_b=LOCAL)
    text = _sheet(DebateJob.objects.get(pk=job.pk))
    assert "Labels from a tiny model" not in text
    assert "A benchmark in BEIR layout" in text
