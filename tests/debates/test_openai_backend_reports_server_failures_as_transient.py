"""Timeouts, refused connections, 429 and 5xx from an OpenAI-compatible server become
TransientLLMError, carrying the server's Retry-After (faults injected by the test proxy)."""

from __future__ import annotations

import pytest

from debates.llm.base import GenerationParams, TransientLLMError
from debates.llm.openai_backend import OpenAIClient
from tests.fixtures.llm import RELEVANCE_MESSAGES, free_port

PARAMS = GenerationParams(max_tokens=1)


def client_for(url: str, timeout: float = 30.0) -> OpenAIClient:
    return OpenAIClient(model="smollm2", base_url=url, api_key="k", timeout=timeout)


def test_a_429_is_transient_with_the_retry_after_it_sent(fault_proxy):
    fault_proxy.fail_next("429")
    with pytest.raises(TransientLLMError, match="HTTP 429") as caught:
        client_for(fault_proxy.base_url).chat(RELEVANCE_MESSAGES, PARAMS)
    assert caught.value.retry_after == 2.0
    assert len(fault_proxy.requests) == 1  # the SDK itself does not retry


@pytest.mark.parametrize(("fault", "retry_after"), [("500", None), ("503", 1.0)])
def test_a_5xx_is_transient(fault_proxy, fault, retry_after):
    fault_proxy.fail_next(fault)
    with pytest.raises(TransientLLMError, match=f"HTTP {fault}") as caught:
        client_for(fault_proxy.base_url).chat(RELEVANCE_MESSAGES, PARAMS)
    assert caught.value.retry_after == retry_after


def test_a_server_slower_than_the_timeout_is_transient(fault_proxy):
    fault_proxy.stall_seconds = 3.0
    fault_proxy.fail_next("stall")
    with pytest.raises(TransientLLMError, match="timed out") as caught:
        client_for(fault_proxy.base_url, timeout=1.0).chat(RELEVANCE_MESSAGES, PARAMS)
    assert caught.value.retry_after is None


def test_a_refused_connection_is_transient():
    with pytest.raises(TransientLLMError, match="connection failed"):
        client_for(f"http://127.0.0.1:{free_port()}/v1").chat(RELEVANCE_MESSAGES, PARAMS)


def test_after_the_fault_the_same_client_succeeds(fault_proxy):
    client = client_for(fault_proxy.base_url)
    fault_proxy.fail_next("500")
    with pytest.raises(TransientLLMError):
        client.chat(RELEVANCE_MESSAGES, PARAMS)
    assert client.chat(RELEVANCE_MESSAGES, PARAMS).completion_tokens == 1
