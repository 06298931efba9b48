"""Every management command that takes a file or folder of the user's reads a relative one
from where the command was typed (``core.paths.caller_path``, ``DREAM_CALLER_DIR``): each
comes out of the command's parser absolute, under the caller's folder; an absolute path,
``~`` and ``-`` (standard output) keep their meaning; ``./dream`` exports the folder."""

import hashlib
import os
import subprocess
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

from core.paths import CALLER_DIR_ENV, caller_path

REPO = Path(__file__).resolve().parents[2]

# command, its arguments with one relative path per path option, {dest: relative path given}
COMMANDS = [
    ("import_run", ["ds", "r/my.run"], {"file": "r/my.run"}),
    ("import_qrels", ["ds", "q.tsv", "--name", "n"], {"file": "q.tsv"}),
    ("import_answers", ["ds", "a.jsonl"], {"file": "a.jsonl"}),
    ("import_beir", ["beir/arguana", "--name", "n"], {"path": "beir/arguana"}),
    ("export_qrels", ["ds", "test", "--out", "o.tsv"], {"out": "o.tsv"}),
    ("export_run", ["ds", "r", "--out", "o.run"], {"out": "o.run"}),
    ("export_labels", ["ds", "q", "--out", "o.jsonl"], {"out": "o.jsonl"}),
    ("debate_batch", ["1", "import", "out.jsonl"], {"file": "out.jsonl"}),
    ("debate_batch", ["1", "export", "--out", "in.jsonl"], {"out": "in.jsonl"}),
    ("simulate_annotators", ["1", "--truth", "t.qrels"], {"truth": "t.qrels"}),
    ("simulate_study", ["ds", "--truth", "t.qrels"], {"truth": "t.qrels"}),
    ("rag_eval", ["ds", "--runs", "a", "--model-path", "m.gguf"], {"model_path": "m.gguf"}),
    (
        "pipeline",
        ["ds", "--out", "exports", "--truth", "t.qrels", "--model-path", "m.gguf"],
        {"out": "exports", "truth": "t.qrels", "model_path": "m.gguf"},
    ),
    ("demo", ["--truth", "t.qrels", "--model-path", "m.gguf"], {"truth": "t.qrels"}),
    (
        "run_debates",
        ["p", "--truth", "a.qrels", "--truth-b", "b.qrels", "--model-path-b", "b.gguf"],
        {"truth": "a.qrels", "truth_b": "b.qrels", "model_path_b": "b.gguf"},
    ),
    ("evaluate_assessor", ["ds", "--truth", "t.qrels"], {"truth": "t.qrels"}),
]


def _parsed(name: str, argv: list[str]) -> dict:
    command = load_command_class(get_commands()[name], name)
    return vars(command.create_parser("manage.py", name).parse_args(argv))


@pytest.mark.parametrize(("name", "argv", "given"), COMMANDS)
def test_each_path_option_comes_out_absolute_under_the_callers_folder(name, argv, given, typed_in):
    parsed = _parsed(name, argv)
    assert {dest: parsed[dest] for dest in given} == {
        dest: str(typed_in.caller / relative) for dest, relative in given.items()
    }


def test_an_absolute_path_home_and_standard_output_keep_their_meaning(typed_in):
    assert caller_path("/srv/data/x.run") == "/srv/data/x.run"
    assert caller_path("~/x.run") == os.path.expanduser("~/x.run")
    assert caller_path("../up/x.run") == str(typed_in.caller.parent / "up" / "x.run")
    assert caller_path("-") == "-"
    assert _parsed("export_qrels", ["ds", "test"])["out"] == "-"


def test_without_the_callers_folder_the_process_directory_is_used(typed_in, monkeypatch):
    monkeypatch.delenv(CALLER_DIR_ENV)
    assert caller_path("r/my.run") == str(typed_in.cwd / "r" / "my.run")
    monkeypatch.setenv(CALLER_DIR_ENV, "relative/not/a/folder")
    assert caller_path("r/my.run") == str(typed_in.cwd / "r" / "my.run")


def test_dream_manage_passes_the_folder_it_was_typed_in(tmp_path):
    # A stand-in virtual environment whose python prints what ./dream gives it.
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(f'#!/bin/sh\necho "${CALLER_DIR_ENV}|$PWD|$*"\n', encoding="utf-8")
    python.chmod(0o755)
    digest = hashlib.sha256((REPO / "requirements.txt").read_bytes()).hexdigest()
    (venv / ".requirements.sha256").write_text(digest + "\n", encoding="utf-8")
    typed_here = tmp_path / "typed-here"
    typed_here.mkdir()
    typed_here = typed_here.resolve()  # bash's $PWD: the real path of a fresh shell
    env = {**os.environ, "DREAM_VENV": str(venv)}
    for inherited in (CALLER_DIR_ENV, "PWD"):
        env.pop(inherited, None)
    done = subprocess.run(
        [str(REPO / "dream"), "manage", "import_run", "ds", "runs/my.run"],
        cwd=typed_here, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == f"{typed_here}|{REPO}|manage.py import_run ds runs/my.run"
