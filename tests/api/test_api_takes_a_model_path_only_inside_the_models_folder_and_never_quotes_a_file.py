"""A model_path given to POST /api/v1/jobs must resolve to a regular file inside
DREAM_MODELS_DIR (or be the bundled model's file): /etc/passwd and a link in the folder to a
file outside it are refused naming the setting, and no message holds a byte of the file; a
file in the folder that is not GGUF is refused saying so without quoting it; a real GGUF in
the folder (a copy of the bundled SmolLM2, or a link to it) is accepted."""

import os
from pathlib import Path

import pytest

from debates.llm.embedded import smollm2_gguf_path
from debates.models import DebateJob

PASSWD_HEAD = Path("/etc/passwd").read_text().splitlines()[0][:12]  # e.g. "root:x:0:0:r"


@pytest.fixture
def models(settings, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    os.symlink("/etc/passwd", folder / "passwd.gguf")
    os.symlink(smollm2_gguf_path(), folder / "smol-link.gguf")
    (folder / "readme.gguf").write_text("Download the weights from the model card\n")
    settings.DREAM_MODELS_DIR = str(folder)
    return folder


def _post(client, pool: int, model_path: str):
    body = {
        "pool": pool,
        "rounds": 1,
        "limit": 1,
        "agent_a": {"backend": "embedded", "model_path": model_path},
    }
    return client.post("/api/v1/jobs", body, content_type="application/json")


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["/etc/passwd", "passwd.gguf", "../../../../../../etc/passwd"])
def test_a_file_outside_the_folder_is_refused_without_a_byte_of_it(
    api_as, tiny_dataset, models, name
):
    path = name if name.startswith("/") else str(models / name)
    answer = _post(api_as("admin"), tiny_dataset.pools.get().pk, path)
    assert answer.status_code == 400
    shown = os.path.abspath(path)
    assert answer.json()["detail"] == (
        f"agent A: model_path {shown} is not a file in the models folder the server's "
        "operator set (DREAM_MODELS_DIR)"
    )
    assert PASSWD_HEAD not in answer.content.decode()
    assert not DebateJob.objects.exists()


@pytest.mark.django_db
def test_without_a_models_folder_only_the_bundled_model_is_taken(
    api_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.DREAM_MODELS_DIR = ""
    client = api_as("admin")
    refused = _post(client, tiny_dataset.pools.get().pk, "/etc/passwd")
    assert refused.status_code == 400
    assert refused.json()["detail"] == (
        "agent A: model_path /etc/passwd is refused: only the bundled model may be used until "
        "the server's operator sets a models folder (DREAM_MODELS_DIR)"
    )
    with django_capture_on_commit_callbacks(execute=False):
        taken = _post(client, tiny_dataset.pools.get().pk, str(smollm2_gguf_path()))
    assert taken.status_code == 202, taken.content


@pytest.mark.django_db
def test_a_file_in_the_folder_that_is_not_gguf_is_refused_without_quoting_it(
    api_as, tiny_dataset, models
):
    text = models / "readme.gguf"
    answer = _post(api_as("admin"), tiny_dataset.pools.get().pk, str(text))
    assert answer.status_code == 400
    assert answer.json()["detail"] == (
        f"agent A: model_path {text}: not a GGUF file (it does not start with the GGUF magic bytes)"
    )
    assert "Down" not in answer.content.decode()
    assert not DebateJob.objects.exists()


@pytest.mark.django_db
def test_a_real_gguf_in_the_folder_is_accepted(
    api_as, tiny_dataset, models, gguf_copy, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        linked = _post(api_as("admin"), tiny_dataset.pools.get().pk, str(models / "smol-link.gguf"))
    assert linked.status_code == 202, linked.content  # a link to the bundled model's file
    # A folder holding a copy of the bundled file, and the link to it in the other folder.
    settings.DREAM_MODELS_DIR = str(gguf_copy.parent)
    os.symlink(gguf_copy, gguf_copy.parent / "copy-link.gguf")
    client = api_as("admin")
    pool = tiny_dataset.pools.get().pk
    for path in (gguf_copy, gguf_copy.parent / "copy-link.gguf"):
        with django_capture_on_commit_callbacks(execute=False):
            answer = _post(client, pool, str(path))
        assert answer.status_code == 202, answer.content
        job = DebateJob.objects.get(pk=answer.json()["id"])
        assert job.agent_a["model_path"] == str(path)
