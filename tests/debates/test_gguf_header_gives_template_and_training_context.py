"""The GGUF header reader (no llama.cpp load) gives a file's architecture, name, training
context and chat template: checked on the real bundled SmolLM2 file (values read once with
llama-cpp-python's ``Llama.metadata``) and on hand-written headers."""

import pytest

from debates.llm import gguf
from debates.llm.embedded import smollm2_gguf_path
from tests.fixtures.llm import write_gguf_header


def test_the_bundled_smollm2_header_names_its_chat_template_and_8192_token_context():
    info = gguf.model_info(smollm2_gguf_path())
    assert info.architecture == "llama"
    assert info.name == "Smollm2 135M 8k Lc100K Mix1 Ep2"
    assert info.context_length == 8192
    assert "<|im_start|>" in info.chat_template  # ChatML
    assert info.chat_template.startswith("{% for message in messages %}")
    assert len(info.chat_template) == 368


def test_the_reader_skips_arrays_and_finds_keys_after_them(tmp_path):
    path = write_gguf_header(
        tmp_path / "m.gguf",
        {
            "general.architecture": "qwen2",
            "general.name": "Tiny Qwen",
            "tokenizer.ggml.tokens": ["<s>", "a", "bb", "ccc"],
            "qwen2.context_length": 32768,
            "tokenizer.chat_template": "{{ messages }}",
        },
    )
    assert gguf.model_info(path) == gguf.GGUFInfo(
        architecture="qwen2",
        name="Tiny Qwen",
        context_length=32768,
        chat_template="{{ messages }}",
    )
    assert "tokenizer.ggml.tokens" not in gguf.read_metadata(path)


def test_a_header_without_template_or_context_says_so_with_none(tmp_path):
    path = write_gguf_header(tmp_path / "base.gguf", {"general.architecture": "llama"})
    info = gguf.model_info(path)
    assert (info.name, info.context_length, info.chat_template) == ("", None, None)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"PK\x03\x04zipzip", r"not a GGUF file \(it does not start with the GGUF magic bytes\)"),
        (b"GGUF\x01\x00\x00\x00", "a GGUF version other than 2 or 3"),
        (b"GGUF\x03\x00\x00\x00\x00", "truncated GGUF header"),
    ],
)
def test_a_file_that_is_not_a_readable_gguf_is_refused_naming_it(tmp_path, content, message):
    path = tmp_path / "bad.gguf"
    path.write_bytes(content)
    with pytest.raises(gguf.GGUFError, match=f"^{tmp_path}/bad.gguf: {message}"):
        gguf.model_info(path)


def test_a_missing_path_and_a_folder_are_refused_naming_them(tmp_path):
    with pytest.raises(gguf.GGUFError, match=f"^{tmp_path}/none.gguf: no such file$"):
        gguf.file_check(tmp_path / "none.gguf")
    with pytest.raises(gguf.GGUFError, match=f"^{tmp_path}: not a regular file$"):
        gguf.file_check(tmp_path)
