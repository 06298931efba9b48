"""The OpenAI backend takes its key from the caller or a named environment variable, and the
key never appears in a stored config, a repr or an error message."""

from __future__ import annotations

import pytest

from debates.llm.base import GenerationParams, PermanentLLMError
from debates.llm.config import AgentConfig
from debates.llm.openai_backend import OpenAIClient
from debates.llm.registry import client_from_config
from tests.fixtures.llm import RELEVANCE_MESSAGES

SECRET = "sk-test-0123456789abcdef"


def test_the_key_is_read_from_the_environment_variable_the_config_names(monkeypatch):
    monkeypatch.setenv("DREAM_TEST_KEY", SECRET)
    config = AgentConfig.load({"backend": "openai", "model": "m", "api_key_env": "DREAM_TEST_KEY"})
    client = client_from_config(config)
    assert client._sdk.api_key == SECRET
    assert SECRET not in repr(config) + repr(client)


def test_a_key_given_by_the_job_form_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    client = client_from_config(
        AgentConfig.load({"backend": "openai", "model": "m"}), api_key=SECRET
    )
    assert client._sdk.api_key == SECRET
    assert SECRET not in repr(client) and SECRET not in str(vars(client).get("api_key", ""))


def test_a_rejected_key_is_a_permanent_error_that_does_not_echo_it(fault_proxy):
    client = OpenAIClient(model="m", base_url=fault_proxy.base_url, api_key=SECRET, timeout=30)
    fault_proxy.fail_next("401")
    with pytest.raises(PermanentLLMError) as caught:
        client.chat(RELEVANCE_MESSAGES, GenerationParams(max_tokens=8))
    assert "HTTP 401" in str(caught.value)
    assert SECRET not in str(caught.value)


def test_a_missing_key_is_explained_when_the_server_refuses(fault_proxy, monkeypatch):
    monkeypatch.delenv("DREAM_MISSING_KEY", raising=False)
    client = OpenAIClient(model="m", base_url=fault_proxy.base_url, api_key_env="DREAM_MISSING_KEY")
    fault_proxy.fail_next("401")
    with pytest.raises(PermanentLLMError, match=r"no API key: set \$DREAM_MISSING_KEY"):
        client.chat(RELEVANCE_MESSAGES, GenerationParams(max_tokens=8))
