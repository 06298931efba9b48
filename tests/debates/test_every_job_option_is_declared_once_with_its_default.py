"""Every option of a debate job is declared once, in ``JobOptions`` with its default: the
HTTP API's ``JobIn``, the job form's initial values and the flags of ``run_debates``,
``evaluate_assessor`` and ``pipeline`` take that default; an option one of them leaves out
is listed here by name, so a new option fails this test until it has its widget or flag."""

from dataclasses import fields

import pytest

from api.jobs import JobIn
from assess.management.commands import pipeline
from debates.engine import DebateConfig
from debates.forms import FORM_OPTIONS, NOT_IN_FORM, PERCENT_OPTIONS, JobLaunchForm
from debates.management.commands import evaluate_assessor, run_debates
from debates.management.commands._jobs import job_options_given
from debates.models import DebateJob
from debates.services.launch import JobOptions, job_option_default, job_option_names

AGENTS = {"agent_a", "agent_b"}  # a group of backend flags or form fields each
# The options a command has no flag for (it sets them itself or keeps the default).
NO_FLAG = {
    run_debates: AGENTS | {"judgments_per_pair", "note", "max_grade"},
    evaluate_assessor: AGENTS
    | {
        "limit",
        "judgments_per_pair",
        "audit_share",
        "audit_allocation",
        "gold_share",
        "human_budget",
        "note",
        "callback_url",
        "batch",
        "max_grade",
        # Stage 0 is measured as an assessor of its own here (--backend stage0).
        "stage0",
        "stage0_alpha",
        "stage0_delta",
        "stage0_beta",
        # It measures assessors against the qrels; checking the qrels is run_debates's.
        "check_judged",
    },
    pipeline: AGENTS
    | {"temperature", "limit", "judgments_per_pair", "note", "callback_url"}
    | {"allow_duplicate", "max_grade"}
    # The main job debates a fresh pool's holes; a check of the judged pairs is run_debates's.
    | {"check_judged"},
}
# The pipeline's human side: None keeps a reused job's value (a new job takes the default).
KEPT_BY_A_REUSED_JOB = {"audit_share", "gold_share", "human_budget"}


def parse(command, *args):
    return vars(command.Command().create_parser("manage.py", "cmd").parse_args(list(args)))


def test_the_api_schema_has_every_option_with_its_default():
    names = job_option_names(api=True)
    assert job_option_names(api=False) == ("max_grade",)
    assert set(JobIn.model_fields) == {*names, "pool", "api_keys"}
    for name in names:
        assert JobIn.model_fields[name].default == job_option_default(name), name
    assert JobIn.model_json_schema()["properties"]["rounds"] == {
        "default": 2,
        "maximum": 5,
        "minimum": 1,
        "title": "Rounds",
        "type": "integer",
    }


def test_the_form_starts_at_every_options_default():
    assert set(FORM_OPTIONS) | set(NOT_IN_FORM) == set(job_option_names())
    form = JobLaunchForm()
    for option, name in FORM_OPTIONS.items():
        initial = form.fields[name].initial
        if option in PERCENT_OPTIONS:
            initial = float(initial) / 100
        assert initial == job_option_default(option), option
    assert (form.fields["rounds"].initial, str(form.fields["audit_percent"].initial)) == (2, "2")
    assert str(form.fields["gold_percent"].initial) == "5"


@pytest.mark.parametrize("command", [run_debates, evaluate_assessor, pipeline])
def test_each_commands_flags_default_to_the_options_defaults(command):
    opts = parse(command, "pool-or-dataset")
    flags = {name for name in job_option_names() if name in opts}
    assert flags == set(job_option_names()) - NO_FLAG[command]
    for name in flags:
        if command is pipeline and name in KEPT_BY_A_REUSED_JOB:
            assert opts[name] is None, name
        else:
            assert opts[name] == job_option_default(name), name
    given = job_options_given(opts)
    assert all(given[name] == job_option_default(name) for name in given)


def test_a_flag_reaches_the_job_options_under_its_own_name():
    opts = parse(run_debates, "pool", "--rounds", "3", "--human-budget", "7", "--limit", "4")
    given = job_options_given(opts)
    assert (given["rounds"], given["human_budget"], given["limit"]) == (3, 7, 4)


def test_the_engine_and_the_model_share_the_options_defaults():
    job_fields = {f.name: f for f in DebateJob._meta.get_fields() if hasattr(f, "default")}
    for name in (
        "rounds",
        "temperature",
        "judgments_per_pair",
        "audit_share",
        "audit_allocation",
        "gold_share",
    ):
        assert job_fields[name].default == job_option_default(name), name
    engine = {f.name: f.default for f in fields(DebateConfig)}
    assert (engine["rounds"], engine["temperature"]) == (
        JobOptions().rounds,
        JobOptions().temperature,
    )


@pytest.mark.parametrize("flag", ["stage0_alpha", "stage0_delta", "stage0_beta"])
def test_a_stage0_level_without_stage0_is_refused_not_ignored(flag):
    from django.core.management.base import CommandError

    opts = {"stage0": False, "stage0_alpha": 0.1, "stage0_delta": 0.1, "stage0_beta": 0.1}
    opts[flag] = 0.2
    with pytest.raises(CommandError, match=f"--{flag.replace('_', '-')} 0.2: .*add --stage0"):
        job_options_given(opts)
    assert job_options_given({**opts, "stage0": True})[flag] == 0.2
    # Left at their defaults they pass without --stage0.
    defaults = {name: job_option_default(name) for name in opts if name != "stage0"}
    assert job_options_given({"stage0": False, **defaults})["stage0"] is False
