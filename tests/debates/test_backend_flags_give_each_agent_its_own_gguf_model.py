"""--model-path (and --model-path-b for agent B) and --context-window reach the embedded
agents' configs in run_debates, evaluate_assessor, pipeline, demo and rag_eval."""

import pytest

from assess.management.commands import demo, pipeline, rag_eval
from debates.management.commands import evaluate_assessor, run_debates
from debates.management.commands._jobs import backend_configs, backend_flags_configs
from tests.fixtures.llm import write_gguf_header

HEADER = {
    "general.architecture": "qwen2",
    "qwen2.context_length": 32768,
    "tokenizer.chat_template": "{{ messages }}",
}


def parse(command, *args):
    return vars(command.Command().create_parser("manage.py", "cmd").parse_args(list(args)))


@pytest.mark.parametrize("command", [run_debates, evaluate_assessor])
def test_agent_b_may_run_another_gguf_file(command):
    head = ["pool"] if command is run_debates else ["dataset"]
    opts = parse(command, *head, "--model-path", "/m/a.gguf", "--model-path-b", "/m/b.gguf")
    assert backend_configs(opts) == (
        {"backend": "embedded", "model_path": "/m/a.gguf"},
        {"backend": "embedded", "model_path": "/m/b.gguf"},
    )
    opts = parse(command, *head, "--model-path", "/m/a.gguf", "--context-window", "2048")
    agent_a, agent_b = backend_configs(opts)
    assert (
        agent_a
        == agent_b
        == {
            "backend": "embedded",
            "model_path": "/m/a.gguf",
            "context_window": 2048,
        }
    )


@pytest.mark.parametrize("command", [pipeline, demo])
def test_pipeline_and_demo_validate_the_file_into_the_stored_config(command, tmp_path):
    path = write_gguf_header(tmp_path / "qwen.gguf", HEADER)
    opts = parse(command, *(["ds"] if command is pipeline else []), "--model-path", str(path))
    config = backend_flags_configs(opts)[0].dump()
    # 32768-token training context, capped at 4096.
    assert config == {
        "backend": "embedded",
        "model": str(path),
        "model_path": str(path),
        "n_ctx": 4096,
    }


def test_pipeline_passes_the_context_window_to_an_embedded_gguf(tmp_path):
    path = write_gguf_header(tmp_path / "qwen.gguf", HEADER)
    opts = parse(pipeline, "ds", "--model-path", str(path), "--context-window", "16384")
    assert backend_flags_configs(opts)[0].n_ctx == 16384


def test_rag_eval_names_the_generator_file():
    opts = parse(rag_eval, "ds", "--runs", "bm25", "--model-path", "/m/a.gguf")
    assert rag_eval.backend_config(opts) == {"backend": "embedded", "model_path": "/m/a.gguf"}
