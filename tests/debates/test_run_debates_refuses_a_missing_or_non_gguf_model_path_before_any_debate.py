"""A --model-path that is missing or not a GGUF file stops the commands with a CommandError
naming the path and the fault, before a job or a debate exists."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpora.models import Run
from debates.models import Debate, DebateJob


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "model.gguf"  # a text file renamed .gguf
    path.write_text("PLACEHOLDER weights\n")
    return path


@pytest.mark.django_db
def test_a_missing_file_is_named_by_run_debates(small_pool, tmp_path):
    missing = tmp_path / "missing.gguf"
    with pytest.raises(CommandError) as caught:
        call_command("run_debates", "small/pool", "--model-path", str(missing), "--no-progress")
    assert str(caught.value) == f"agent A: model_path {missing}: no such file"
    assert (DebateJob.objects.count(), Debate.objects.count()) == (0, 0)


@pytest.mark.django_db
def test_a_text_file_is_refused_for_agent_b_by_run_debates(small_pool, text_file):
    with pytest.raises(CommandError) as caught:
        call_command("run_debates", "small/pool", "--model-path-b", str(text_file), "--no-progress")
    assert str(caught.value) == (
        f"agent B: model_path {text_file}: not a GGUF file (it does not start with the GGUF "
        "magic bytes) (flag --model-path-b)"
    )
    assert (DebateJob.objects.count(), Debate.objects.count()) == (0, 0)


@pytest.mark.django_db
def test_a_text_file_is_refused_by_pipeline_before_any_step(small_pool, text_file):
    with pytest.raises(CommandError) as caught:
        call_command("pipeline", "small", "--model-path", str(text_file))
    assert str(caught.value) == (
        f"backend: model_path {text_file}: not a GGUF file (it does not start with the GGUF "
        "magic bytes)"
    )
    assert (DebateJob.objects.count(), Debate.objects.count()) == (0, 0)
    assert Run.objects.count() == 0  # not even the first step (the BM25 run) ran
