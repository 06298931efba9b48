"""debates.llm.registry: backend configs are normalised, refused with the bad field named,
and never hold a secret; the factory builds the client a config describes."""

from __future__ import annotations

import json

import pytest

from debates.llm.base import LLMClient
from debates.llm.config import AgentConfig
from debates.llm.ratelimit import LocalRateLimiter, RateLimitedClient
from debates.llm.registry import (
    backend_key,
    client_from_config,
    describe_backend,
    validate_backend_config,
)


@pytest.mark.parametrize("config", [None, {}, {"backend": "embedded"}])
def test_nothing_configured_means_the_embedded_model(config):
    assert validate_backend_config(config) == {
        "backend": "embedded",
        "model": "SmolLM2-135M-Instruct-Q4_1",
        "n_ctx": 2048,
    }


def test_an_openai_config_is_normalised_with_defaults():
    config = {
        "backend": "openai",
        "model": " gpt-4o-mini ",
        "base_url": "https://api.example.com/v1/",
        "rpm": 500,
    }
    assert validate_backend_config(config) == {
        "backend": "openai",
        "model": "gpt-4o-mini",
        "base_url": "https://api.example.com/v1",
        "api_key_env": "OPENAI_API_KEY",
        "timeout": 60.0,
        "rpm": 500,
    }


def test_a_normalised_config_is_plain_json_and_validates_to_itself():
    config = validate_backend_config({"backend": "openai", "model": "m", "timeout": 5})
    assert json.loads(json.dumps(config)) == config
    assert validate_backend_config(config) == config


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"backend": "anthropic"}, "backend"),
        ({"backend": "openai"}, "model"),
        ({"backend": "openai", "model": ""}, "model"),
        ({"backend": "openai", "model": "m", "api_key": "sk-secret"}, "api_key"),
        ({"backend": "openai", "model": "m", "API_KEY": "sk-secret"}, "API_KEY"),
        ({"backend": "openai", "model": "m", "base_url": "ftp://h/v1"}, "base_url"),
        ({"backend": "openai", "model": "m", "base_url": "https://u:pw@h/v1"}, "base_url"),
        ({"backend": "openai", "model": "m", "api_key_env": "MY KEY"}, "api_key_env"),
        ({"backend": "openai", "model": "m", "timeout": 0}, "timeout"),
        ({"backend": "openai", "model": "m", "timeout": "fast"}, "timeout"),
        ({"backend": "openai", "model": "m", "context_window": 10.5}, "context_window"),
        ({"backend": "openai", "model": "m", "rpm": 0}, "rpm"),
        ({"backend": "openai", "model": "m", "temperature": 1}, "temperature"),
        ({"backend": "embedded", "model": "llama-70b"}, "model"),
        ({"backend": "embedded", "n_ctx": 100}, "n_ctx"),
    ],
)
def test_a_bad_config_is_refused_naming_the_field(config, field):
    with pytest.raises(ValueError) as caught:
        validate_backend_config(config)
    assert str(caught.value).startswith(f"{field}:")
    assert "sk-secret" not in str(caught.value)


def test_the_factory_builds_an_openai_client_without_any_request():
    from debates.llm.openai_backend import OpenAIClient

    config = AgentConfig.load(
        {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}
    )
    client = client_from_config(config, api_key="k")
    assert isinstance(client, OpenAIClient)
    assert isinstance(client, LLMClient)
    assert (client.model, client.context_window) == ("m", 8192)


def test_the_factory_builds_the_embedded_client():
    from debates.llm.embedded import EmbeddedClient

    client = client_from_config(AgentConfig.load(None))
    assert isinstance(client, EmbeddedClient)
    assert (client.model, client.context_window) == ("SmolLM2-135M-Instruct-Q4_1", 2048)


def test_a_config_with_rpm_gets_a_rate_limited_client():
    limiter = LocalRateLimiter()
    config = AgentConfig.load(
        {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1", "rpm": 6}
    )
    client = client_from_config(config, api_key="k", limiter=limiter)
    assert isinstance(client, RateLimitedClient)
    assert (client.key, client.rpm, client.model) == ("openai:http://127.0.0.1:9/v1:m", 6, "m")


def test_each_agent_may_have_its_own_backend():
    a = client_from_config(AgentConfig.load({"backend": "embedded"}))
    b = client_from_config(
        AgentConfig.load({"backend": "openai", "model": "other", "base_url": "http://h:1/v1"})
    )
    assert (a.model, b.model) == ("SmolLM2-135M-Instruct-Q4_1", "other")


def test_backend_keys_and_descriptions_name_backend_and_model():
    embedded, openai = (
        AgentConfig.load(None),
        AgentConfig.load({"backend": "openai", "model": "gpt-4o"}),
    )
    assert backend_key(embedded) == "embedded:SmolLM2-135M-Instruct-Q4_1"
    assert backend_key(openai) == "openai:default:gpt-4o"
    assert describe_backend(openai) == "openai gpt-4o at https://api.openai.com/v1"
    assert "not a benchmark" in describe_backend(embedded)


def test_reasoning_effort_and_extra_body_are_kept_for_an_openai_agent():
    config = AgentConfig.load(
        {
            "backend": "openai",
            "model": "qwen3",
            "reasoning_effort": "low",
            "extra_body": '{"chat_template_kwargs": {"enable_thinking": false}}',
        }
    )

    assert config.reasoning_effort == "low"
    assert config.extra_body_dict == {"chat_template_kwargs": {"enable_thinking": False}}
    assert config.dump()["extra_body"] == {"chat_template_kwargs": {"enable_thinking": False}}
    assert AgentConfig.stored(config.dump()) == config
    assert config.describe().endswith(
        ', reasoning_effort low, extra_body {"chat_template_kwargs": {"enable_thinking": false}}'
    )
    client = client_from_config(config)
    assert (client.reasoning_effort, client.extra_body) == ("low", config.extra_body_dict)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("reasoning_effort", "max", "reasoning_effort: must be one of none, minimal, low"),
        ("extra_body", "{oops", "extra_body: not JSON \\(Expecting property name"),
        ("extra_body", "[1]", "extra_body: must be a JSON object, got list"),
        ("extra_body", {"temperature": 1}, "extra_body: 'temperature' is set from the job's"),
        ("extra_body", {"max_tokens": 9}, "extra_body: 'max_tokens' is set from the job's"),
        ("extra_body", {"api_key": "sk-x"}, "extra_body: 'api_key' would hold a secret"),
        ("extra_body", {"x": "y" * 5000}, "extra_body: longer than 4000 characters"),
    ],
)
def test_a_bad_reasoning_option_is_refused_with_the_field_named(field, value, message):
    with pytest.raises(ValueError, match=message):
        validate_backend_config({"backend": "openai", "model": "m", field: value})


def test_the_embedded_backend_takes_no_reasoning_options():
    with pytest.raises(ValueError, match="reasoning_effort: unknown field for the embedded"):
        validate_backend_config({"backend": "embedded", "reasoning_effort": "low"})
