"""Requests an OpenAI-compatible server refuses for good (bad key, unknown path, malformed
body, prompt beyond the context) become PermanentLLMError / ContextTooLongError."""

from __future__ import annotations

import pytest

from debates.llm.base import ContextTooLongError, GenerationParams, PermanentLLMError
from debates.llm.openai_backend import OpenAIClient
from tests.fixtures.llm import RELEVANCE_MESSAGES


def client_for(url: str) -> OpenAIClient:
    return OpenAIClient(model="smollm2", base_url=url, api_key="k", timeout=60, context_window=2048)


def test_a_401_is_permanent(fault_proxy):
    fault_proxy.fail_next("401")
    with pytest.raises(PermanentLLMError, match="HTTP 401: Incorrect API key"):
        client_for(fault_proxy.base_url).chat(RELEVANCE_MESSAGES, GenerationParams(max_tokens=1))


def test_a_prompt_beyond_the_server_context_is_context_too_long(llama_server):
    messages = [{"role": "user", "content": "solar " * 2100}]
    with pytest.raises(ContextTooLongError, match="maximum context length is 2048"):
        client_for(llama_server.base_url).chat(messages, GenerationParams(max_tokens=8))


def test_an_unknown_endpoint_is_permanent(llama_server):
    url = llama_server.base_url.removesuffix("/v1") + "/v9"
    with pytest.raises(PermanentLLMError, match="HTTP 404"):
        client_for(url).chat(RELEVANCE_MESSAGES, GenerationParams(max_tokens=1))


def test_a_malformed_request_is_permanent_even_when_the_server_says_500(fault_proxy):
    params = GenerationParams(max_tokens=1, extra={"n": "many"})
    with pytest.raises(PermanentLLMError, match="HTTP 500") as caught:
        client_for(fault_proxy.base_url).chat(RELEVANCE_MESSAGES, params)
    assert not isinstance(caught.value, ContextTooLongError)
    assert [r["status"] for r in fault_proxy.requests] == [500]
