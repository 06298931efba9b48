"""The reuse key names the dataset, both agents' full configs (endpoint, model, reasoning
options, extra body), sampling, prompt version, scale, R and consensus rule: changing any of
them changes the key, while the request pacing (rpm, timeout) does not. The migration that
keyed the jobs made before computes the same key. No database."""

import importlib

import pytest

from debates.reuse import KEY_FIELDS, job_reuse_key, key_short

AGENT = {
    "backend": "openai",
    "model": "gpt-4o-mini",
    "base_url": "https://api.openai.com/v1",
    "api_key_env": "OPENAI_API_KEY",
    "timeout": 60.0,
}
SETTINGS = {
    "agent_a": AGENT,
    "agent_b": AGENT,
    "rounds": 2,
    "temperature": 0.0,
    "max_tokens": 2048,
    "max_tokens_cap": None,
    "prompt_version": "dream-v2",
    "scale": "binary",
    "max_grade": 1,
    "consensus": "exact",
    "min_agreement_probability": 0.0,
}
BASE = job_reuse_key(dataset_id=1, settings=SETTINGS)


def key(dataset_id=1, **changes):
    return job_reuse_key(dataset_id=dataset_id, settings={**SETTINGS, **changes})


@pytest.mark.parametrize(
    "changes",
    [
        {"agent_b": {**AGENT, "model": "gpt-4o"}},
        {"agent_a": {**AGENT, "base_url": "http://gpu1:8000/v1"}},
        {"agent_a": {**AGENT, "reasoning_effort": "low"}},
        {"agent_b": {**AGENT, "extra_body": {"chat_template_kwargs": {"enable_thinking": False}}}},
        {"agent_a": {**AGENT, "context_window": 4096}},
        {"rounds": 3},
        {"temperature": 0.7},
        {"max_tokens": 4096},
        {"max_tokens_cap": 8192},
        {"prompt_version": "dream-v1"},
        {"scale": "graded", "max_grade": 3},
        {"consensus": "binary"},
        {"min_agreement_probability": 0.9},
    ],
    ids=lambda changes: ",".join(changes),
)
def test_a_changed_setting_is_another_key(changes):
    assert key(**changes) != BASE


def test_the_same_settings_on_another_dataset_are_another_key():
    assert key(dataset_id=2) != BASE


def test_pacing_and_spelling_do_not_change_the_key():
    paced = {**AGENT, "timeout": 5.0, "rpm": 30}
    assert key(agent_a=paced, agent_b=paced) == BASE
    assert key(temperature=0, min_agreement_probability=0) == BASE  # 0 and 0.0 alike
    reordered = dict(reversed(list(AGENT.items())))
    assert key(agent_a=reordered) == BASE
    assert len(BASE) == 64 and key_short(BASE) == BASE[:12]


def test_a_missing_field_is_named():
    settings = {name: SETTINGS[name] for name in KEY_FIELDS if name != "rounds"}
    with pytest.raises(KeyError, match="reuse key: missing rounds"):
        job_reuse_key(dataset_id=1, settings=settings)


def test_the_migration_keyed_earlier_jobs_with_the_same_recipe():
    migration = importlib.import_module("debates.migrations.0017_debate_reuse")
    assert migration.KEY_FIELDS == KEY_FIELDS
    for changes in ({}, {"rounds": 3, "agent_a": {**AGENT, "rpm": 10}}, {"max_tokens_cap": 9}):
        settings = {**SETTINGS, **changes}
        assert migration.reuse_key_v1(7, settings) == job_reuse_key(dataset_id=7, settings=settings)
