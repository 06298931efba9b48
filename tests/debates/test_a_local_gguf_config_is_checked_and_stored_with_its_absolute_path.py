"""An embedded config with ``model_path`` is checked before any debate (file, GGUF magic, chat
template, training context) and stored with the absolute path as the model's name; its context
is min(training context, 4096) unless given."""

import os

import pytest

from debates.llm.config import AgentConfig
from debates.llm.registry import describe_backend, validate_backend_config
from tests.fixtures.llm import write_gguf_header


def test_the_copy_is_stored_by_absolute_path_with_a_4096_token_context(gguf_copy):
    assert validate_backend_config({"backend": "embedded", "model_path": str(gguf_copy)}) == {
        "backend": "embedded",
        "model": str(gguf_copy),
        "model_path": str(gguf_copy),
        "n_ctx": 4096,  # SmolLM2 was trained with 8192
    }


def test_a_relative_path_is_made_absolute(gguf_copy, monkeypatch):
    monkeypatch.chdir(gguf_copy.parent.parent)
    config = validate_backend_config({"backend": "embedded", "model_path": "models/copy.gguf"})
    assert config["model_path"] == config["model"] == str(gguf_copy)
    assert os.path.isabs(config["model_path"])


def test_a_stored_config_validates_again_unchanged(gguf_copy):
    stored = validate_backend_config({"backend": "embedded", "model_path": str(gguf_copy)})
    assert validate_backend_config(stored) == stored


def test_the_context_may_be_set_up_to_the_training_context_only(gguf_copy):
    config = {"backend": "embedded", "model_path": str(gguf_copy)}
    assert validate_backend_config({**config, "n_ctx": 8192})["n_ctx"] == 8192
    assert validate_backend_config({**config, "context_window": 1024})["n_ctx"] == 1024
    with pytest.raises(ValueError) as caught:
        validate_backend_config({**config, "n_ctx": 16384})
    assert str(caught.value) == (
        "n_ctx: must be at most 8192, the training context of copy.gguf, got 16384"
    )


def test_a_short_training_context_is_the_default(tmp_path):
    path = write_gguf_header(
        tmp_path / "short.gguf",
        {
            "general.architecture": "llama",
            "llama.context_length": 2048,
            "tokenizer.chat_template": "{{ x }}",
        },
    )
    assert (
        validate_backend_config({"backend": "embedded", "model_path": str(path)})["n_ctx"] == 2048
    )


def test_a_missing_file_a_folder_and_a_text_file_are_refused_naming_the_path(tmp_path):
    text = tmp_path / "notes.gguf"
    text.write_text("just some notes\n")
    cases = [
        (tmp_path / "gone.gguf", f"model_path {tmp_path}/gone.gguf: no such file"),
        (tmp_path, f"model_path {tmp_path}: not a regular file"),
        (text, f"model_path {text}: not a GGUF file (it does not start with the GGUF magic bytes)"),
    ]
    for path, message in cases:
        with pytest.raises(ValueError) as caught:
            validate_backend_config({"backend": "embedded", "model_path": str(path)})
        assert str(caught.value) == message


def test_a_gguf_without_a_chat_template_is_refused(tmp_path):
    path = write_gguf_header(tmp_path / "base.gguf", {"general.architecture": "llama"})
    with pytest.raises(ValueError, match=rf"^model_path {path}: no chat template"):
        validate_backend_config({"backend": "embedded", "model_path": str(path)})


def test_another_model_name_next_to_a_path_is_refused(gguf_copy):
    with pytest.raises(ValueError, match="^model: with model_path the model is named by its"):
        validate_backend_config(
            {"backend": "embedded", "model_path": str(gguf_copy), "model": "qwen"}
        )


def test_a_stored_config_whose_file_is_gone_is_still_described(gguf_copy):
    stored = validate_backend_config({"backend": "embedded", "model_path": str(gguf_copy)})
    gguf_copy.unlink()
    # Pages name the file by its name (the folder is the server's), a command by its path.
    assert describe_backend(AgentConfig.stored(stored)) == (
        "embedded copy.gguf (local GGUF in-process, context 4096)"
    )
    assert AgentConfig.stored(stored).describe(full_path=True) == (
        f"embedded {gguf_copy} (local GGUF in-process, context 4096)"
    )
