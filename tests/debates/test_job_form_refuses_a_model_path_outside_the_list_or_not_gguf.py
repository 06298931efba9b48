"""The job form never takes a free model path: a POSTed path outside DREAM_MODELS_DIR is
refused, a listed ``.gguf`` that is not a GGUF file is refused naming it, and neither creates
a job. A listed GGUF file becomes the agent's model_path."""

import os

import pytest

from debates.llm.embedded import smollm2_gguf_path
from debates.models import Debate, DebateJob
from tests.fixtures.jobs import job_form_data


@pytest.fixture
def models_dir(settings, tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    os.symlink(smollm2_gguf_path(), models / "smol-link.gguf")
    (models / "readme.gguf").write_text("Download the weights from ...\n")
    settings.DREAM_MODELS_DIR = str(models)
    settings.CELERY_TASK_ALWAYS_EAGER = False  # nothing runs; the debates would be enqueued
    return models


def test_a_path_outside_the_folder_is_refused(client_as, tiny_dataset, models_dir):
    outside = str(smollm2_gguf_path())  # a real GGUF file, but not offered by the form
    answer = client_as("admin").post(
        "/jobs/new/", job_form_data(tiny_dataset.pools.get().pk, a_model_path=outside)
    )
    assert answer.status_code == 200
    errors = answer.context["form"].errors
    assert list(errors) == ["a_model_path"]
    assert errors["a_model_path"] == [
        f"Select a valid choice. {outside} is not one of the available choices."
    ]
    assert (DebateJob.objects.count(), Debate.objects.count()) == (0, 0)


def test_a_listed_file_that_is_not_gguf_is_refused_naming_it(client_as, tiny_dataset, models_dir):
    text = models_dir / "readme.gguf"
    answer = client_as("admin").post(
        "/jobs/new/", job_form_data(tiny_dataset.pools.get().pk, b_model_path=str(text))
    )
    assert answer.status_code == 200
    assert answer.context["form"].errors["b_model_path"] == [
        f"agent B: model_path {text}: not a GGUF file (it does not start with the GGUF magic bytes)"
    ]
    assert (DebateJob.objects.count(), Debate.objects.count()) == (0, 0)


def test_a_listed_gguf_file_becomes_the_agents_model(
    client_as, tiny_dataset, models_dir, django_capture_on_commit_callbacks
):
    link = models_dir / "smol-link.gguf"
    with django_capture_on_commit_callbacks(execute=False):
        answer = client_as("admin").post(
            "/jobs/new/", job_form_data(tiny_dataset.pools.get().pk, a_model_path=str(link))
        )
    assert answer.status_code == 302
    job = DebateJob.objects.get()
    assert job.agent_a == {
        "backend": "embedded",
        "model": str(link),  # the link's name, not the file it points to
        "model_path": str(link),
        "n_ctx": 4096,
    }
    assert job.agent_b == {
        "backend": "embedded",
        "model": "SmolLM2-135M-Instruct-Q4_1",
        "n_ctx": 2048,
    }
