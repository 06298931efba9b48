"""--context-window, --timeout and --rpm reach the agents' backend configs: per agent for
run_debates and evaluate_assessor (a ``-b`` suffix for agent B), for both agents for
pipeline; a value out of range is refused naming the field."""

import pytest

from assess.management.commands import pipeline
from debates.management.commands import evaluate_assessor, run_debates
from debates.management.commands._jobs import backend_configs, backend_flags_configs
from debates.services.common import DebateJobError


def parse(command, *args):
    return vars(command.Command().create_parser("manage.py", "cmd").parse_args(list(args)))


OPENAI = ["--backend", "openai", "--model", "m", "--base-url", "http://127.0.0.1:8080/v1"]


@pytest.mark.parametrize("command", [run_debates, evaluate_assessor])
def test_run_debates_and_evaluate_assessor_take_them_per_agent(command):
    head = ["pool"] if command is run_debates else ["dataset"]
    opts = parse(
        command,
        *head,
        *OPENAI,
        "--context-window",
        "4096",
        "--timeout",
        "5",
        "--rpm",
        "30",
        "--context-window-b",
        "2048",
    )
    agent_a, agent_b = backend_configs(opts)
    assert agent_a == {
        "backend": "openai",
        "model": "m",
        "base_url": "http://127.0.0.1:8080/v1",
        "rpm": 30,
        "timeout": 5.0,
        "context_window": 4096,
    }
    assert agent_b == {**agent_a, "context_window": 2048}


def test_pipeline_takes_them_for_both_agents():
    opts = parse(pipeline, "scifact", *OPENAI, "--context-window", "2048", "--timeout", "9")
    agent_a, agent_b = backend_flags_configs(opts)
    assert agent_a == agent_b
    assert agent_a.dump() == {
        "backend": "openai",
        "model": "m",
        "base_url": "http://127.0.0.1:8080/v1",
        "api_key_env": "OPENAI_API_KEY",
        "timeout": 9.0,
        "context_window": 2048,
    }


def test_a_context_window_out_of_range_is_refused_naming_the_field():
    opts = parse(pipeline, "scifact", *OPENAI, "--context-window", "100")
    with pytest.raises(DebateJobError) as caught:
        backend_flags_configs(opts)
    assert str(caught.value) == (
        "backend: context_window: must be between 256 and 10000000, got 100"
    )


@pytest.mark.parametrize("command", [run_debates, evaluate_assessor])
def test_reasoning_options_and_budgets_are_flags_of_the_debate_commands(command):
    head = ["pool"] if command is run_debates else ["dataset"]
    opts = parse(
        command,
        *head,
        *OPENAI,
        "--reasoning-effort",
        "medium",
        "--extra-body-b",
        '{"chat_template_kwargs": {"enable_thinking": false}}',
        "--max-tokens",
        "4096",
        "--max-tokens-cap",
        "8192",
    )
    agent_a, agent_b = backend_configs(opts)
    assert agent_a["reasoning_effort"] == "medium" and "extra_body" not in agent_a
    assert agent_b["extra_body"] == '{"chat_template_kwargs": {"enable_thinking": false}}'
    assert (opts["max_tokens"], opts["max_tokens_cap"]) == (4096, 8192)


def test_the_pipeline_takes_reasoning_options_and_budgets_for_both_agents():
    opts = parse(
        pipeline, "scifact", *OPENAI, "--reasoning-effort", "low", "--extra-body", '{"top_k": 20}'
    )
    config = backend_flags_configs(opts)[0].dump()
    assert (config["reasoning_effort"], config["extra_body"]) == ("low", {"top_k": 20})
    assert opts["max_tokens"] is None  # the backend's default: 2048 for openai
    opts = parse(pipeline, "scifact", *OPENAI, "--extra-body", "{nope")
    with pytest.raises(DebateJobError, match="backend: extra_body: not JSON"):
        backend_flags_configs(opts)
