"""A researcher reads the refined set, not the job page: the bundled SmolLM2-135M's warning
(its labels are for trying the pipeline, not for a benchmark) is on the refined set's page,
the re-benchmark page, the API's refined list and re-benchmark JSON and the `rebenchmark`
printout whenever a job behind the set's labels ran that model; a job on a local GGUF file
gets none."""

from io import StringIO

import pytest
from django.core.management import call_command

from assess.refined.refine import qrels_refine
from corpora.services import run_import
from debates.bundled import embedded_warning
from debates.models import DebateJob

LOCAL = {
    "backend": "embedded",
    "model": "/models/qwen2.5-7b-instruct-q4_k_m.gguf",
    "model_path": "/models/qwen2.5-7b-instruct-q4_k_m.gguf",
    "n_ctx": 4096,
}
HEAD = "Labels from a tiny model, not for a benchmark."

pytestmark = pytest.mark.django_db


def _refined(make_review_job, tmp_path, *, local=False):
    review = make_review_job(escalated=0, agreed=2)
    if local:
        DebateJob.objects.filter(pk=review.job.pk).update(agent_a=LOCAL, agent_b=LOCAL)
    qrels_refine(pool=review.job.pool, name="refined")
    run = tmp_path / "bm25.run"
    run.write_text("q001 Q0 d001 1 2.0 bm25\nq002 Q0 d002 1 1.0 bm25\n")
    run_import(dataset=review.job.pool.dataset, path=run, name="bm25")
    return review.job.pool.dataset.slug


def _surfaces(slug, client_as, api_as):
    page = client_as("researcher").get(f"/datasets/{slug}/refined/refined/")
    bench = client_as("researcher").get(
        f"/datasets/{slug}/rebenchmark/?original=test&refined=refined"
    )
    api = api_as("researcher")
    listed = api.get(f"/api/v1/datasets/{slug}/refined").json()["items"][0]
    printed = StringIO()
    call_command("rebenchmark", slug, "--refined", "refined", stdout=printed)
    return {
        "refined page": page.content.decode(),
        "rebenchmark page": bench.content.decode(),
        "api list": listed["bundled_model_warning"],
        "printout": printed.getvalue(),
    }


def test_each_report_of_the_bundled_models_labels_carries_the_warning(
    make_review_job, client_as, api_as, tmp_path
):
    slug = _refined(make_review_job, tmp_path)
    for where, text in _surfaces(slug, client_as, api_as).items():
        assert embedded_warning().split(":")[0] in text, where
    printout = _surfaces(slug, client_as, api_as)["printout"]
    assert f"{HEAD} {embedded_warning()}" in printout


def test_a_local_gguf_models_labels_carry_none(make_review_job, client_as, api_as, tmp_path):
    slug = _refined(make_review_job, tmp_path, local=True)
    for where, text in _surfaces(slug, client_as, api_as).items():
        assert "SmolLM2" not in text and HEAD not in text, where
