"""run_debates and evaluate_assessor refuse a backend flag of another backend than the one its
agent runs (``--base-url`` with ``--backend embedded``), naming the flag and the backend
chosen, before anything is read or created; the pipeline, whose flags are one config for
both agents, leaves such a flag out as the job form does."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.management.commands import pipeline
from debates.management.commands import evaluate_assessor, run_debates
from debates.management.commands._jobs import backend_flags_configs, other_backend_flags_refuse

URL = "http://127.0.0.1:9/v1"


def parse(command, *args):
    return vars(command.Command().create_parser("manage.py", "cmd").parse_args(list(args)))


@pytest.mark.parametrize(
    ("command", "head"), [("run_debates", "a/pool"), ("evaluate_assessor", "scifact")]
)
def test_a_flag_of_the_other_backend_is_refused_naming_it_and_the_backend(command, head):
    with pytest.raises(CommandError) as caught:
        call_command(command, head, "--backend", "embedded", "--base-url", URL)
    assert str(caught.value) == (
        "--base-url is a flag of the openai backend, but agent A runs the embedded backend "
        "(--backend embedded)"
    )
    with pytest.raises(CommandError) as caught:
        call_command(command, head, "--backend", "openai", "--model", "m", "--model-path", "x")
    assert str(caught.value) == (
        "--model-path is a flag of the embedded backend, but agent A runs the openai backend "
        "(--backend openai)"
    )


@pytest.mark.parametrize("command", [run_debates, evaluate_assessor])
def test_agent_b_flags_are_checked_against_agent_b_backend(command):
    head = "a/pool" if command is run_debates else "scifact"
    opts = parse(command, head, "--backend-b", "embedded", "--rpm-b", "5")
    with pytest.raises(CommandError) as caught:
        other_backend_flags_refuse(opts)
    assert str(caught.value) == (
        "--rpm-b is a flag of the openai backend, but agent B runs the embedded backend "
        "(--backend-b embedded)"
    )
    # Without --backend-b, agent B runs agent A's backend.
    opts = parse(command, head, "--timeout-b", "5")
    with pytest.raises(CommandError, match=r"^--timeout-b .* agent B runs the embedded backend "):
        other_backend_flags_refuse(opts)
    # Each agent's own backend's flags, and a context window (both backends take one), pass.
    opts = parse(
        command, head, "--backend-b", "openai", "--model-b", "m", "--base-url-b", URL,
        "--context-window", "1024", "--model-path", "/m/x.gguf",
    )  # fmt: skip
    other_backend_flags_refuse(opts)


def test_the_pipeline_leaves_the_other_backends_flag_out():
    opts = parse(pipeline, "scifact", "--backend", "embedded", "--base-url", URL)
    agent_a, agent_b = backend_flags_configs(opts)
    assert agent_a == agent_b
    assert agent_a.dump() == {
        "backend": "embedded",
        "model": "SmolLM2-135M-Instruct-Q4_1",
        "n_ctx": 2048,
    }
