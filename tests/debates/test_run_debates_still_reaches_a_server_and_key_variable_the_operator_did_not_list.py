"""The management commands are run by whoever has a shell on the server, so the operator's
lists do not bind them: run_debates reaches a local server that DREAM_LLM_ALLOWED_ENDPOINTS
does not list, with the key of a variable DREAM_LLM_KEY_ENVS does not list, and takes a model
file outside DREAM_MODELS_DIR."""

import io

import pytest
from django.core.management import call_command

from debates.llm.embedded import smollm2_gguf_path
from debates.models import DebateJob


@pytest.mark.django_db
def test_run_debates_reaches_an_unlisted_server_with_an_unlisted_variables_key(
    small_pool, listener, settings, monkeypatch
):
    settings.DREAM_LLM_ALLOWED_ENDPOINTS = []
    settings.DREAM_LLM_KEY_ENVS = []
    monkeypatch.setenv("SHELL_USERS_KEY", "sk-shell-users-key-0123456789")
    call_command(
        "run_debates",
        "small/pool",
        "--backend",
        "openai",
        "--model",
        "x",
        "--base-url",
        listener.base_url,
        "--api-key-env",
        "SHELL_USERS_KEY",
        "--limit",
        "1",
        "--rounds",
        "1",
        "--no-progress",
        stdout=io.StringIO(),
    )
    job = DebateJob.objects.get()
    assert job.agent_a["base_url"] == listener.base_url
    assert [d.status for d in job.debates.all()] == ["agreed"]
    chats = [s for s in listener.seen if s.path == "/v1/chat/completions"]
    assert len(chats) == 2
    assert {s.headers["authorization"] for s in chats} == {"Bearer sk-shell-users-key-0123456789"}


@pytest.mark.django_db
def test_run_debates_takes_a_model_file_outside_the_models_folder(
    small_pool, gguf_copy, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.DREAM_MODELS_DIR = str(tmp_path / "elsewhere")  # gguf_copy is not in it
    settings.CELERY_TASK_ALWAYS_EAGER = False  # queued for workers: nothing runs here
    assert gguf_copy.resolve() != smollm2_gguf_path().resolve()
    with django_capture_on_commit_callbacks(execute=False):
        call_command(
            "run_debates",
            "small/pool",
            "--model-path",
            str(gguf_copy),
            "--limit",
            "1",
            "--rounds",
            "1",
            "--no-progress",
            stdout=io.StringIO(),
        )
    job = DebateJob.objects.get()
    assert job.agent_a["model_path"] == str(gguf_copy)
    assert job.debates.get().status == "pending"
