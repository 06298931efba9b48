"""The job form's embedded-model choice is the bundled SmolLM2 plus the ``.gguf`` files
directly in DREAM_MODELS_DIR: no other file, no sub-folder, no folder named ``.gguf``."""

import re

from tests.fixtures.llm import write_gguf_header


def _options(page: str, name: str) -> list[tuple[str, str]]:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', page, re.S)
    assert select is not None, f"no select {name}"
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select.group(1))


def test_only_the_gguf_files_of_the_folder_are_offered(client_as, settings, tmp_path):
    models = tmp_path / "models"
    (models / "sub").mkdir(parents=True)
    (models / "folder.gguf").mkdir()
    header = {"general.architecture": "llama", "tokenizer.chat_template": "{{ x }}"}
    write_gguf_header(models / "qwen.gguf", header)
    write_gguf_header(models / "Llama-3.gguf", header)
    write_gguf_header(models / "sub" / "inner.gguf", header)
    (models / "notes.txt").write_text("not a model")
    (models / "weights.bin").write_bytes(b"GGUF")
    settings.DREAM_MODELS_DIR = str(models)
    page = client_as("admin").get("/jobs/new/").content.decode()
    expected = [
        ("", "SmolLM2-135M-Instruct (bundled)"),
        (str(models / "Llama-3.gguf"), "Llama-3.gguf (0 MB)"),
        (str(models / "qwen.gguf"), "qwen.gguf (0 MB)"),
    ]
    assert _options(page, "a_model_path") == expected
    assert _options(page, "b_model_path") == expected


def test_without_a_models_folder_only_the_bundled_model_is_offered(client_as, settings):
    settings.DREAM_MODELS_DIR = ""
    page = client_as("admin").get("/jobs/new/").content.decode()
    assert _options(page, "a_model_path") == [("", "SmolLM2-135M-Instruct (bundled)")]
