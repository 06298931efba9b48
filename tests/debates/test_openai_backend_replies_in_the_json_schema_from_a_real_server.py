"""The OpenAI backend against a real OpenAI-compatible server (llama-cpp-python's server with
SmolLM2, through the test proxy): structured output, usage and the response-format fallback."""

from __future__ import annotations

import json

from debates.llm.base import GenerationParams
from debates.llm.openai_backend import OpenAIClient
from tests.fixtures.llm import RELEVANCE_MESSAGES, REPLY_SCHEMA


def test_a_reply_with_a_schema_is_json_with_the_schema_keys(fault_proxy):
    client = OpenAIClient(model="smollm2", base_url=fault_proxy.base_url, api_key="k", timeout=300)
    result = client.chat(
        RELEVANCE_MESSAGES, GenerationParams(max_tokens=200, json_schema=REPLY_SCHEMA)
    )

    reply = json.loads(result.text)
    assert set(reply) == {"label", "argument", "evidence"}
    assert reply["label"] in (0, 1)
    assert isinstance(reply["argument"], str)
    assert all(isinstance(sentence, str) for sentence in reply["evidence"])
    assert result.model == "smollm2"
    assert result.finish_reason == "stop"
    assert result.prompt_tokens > 0 and 0 < result.completion_tokens <= 200
    assert result.latency_ms > 0

    # This server rejects {"type": "json_schema"} (HTTP 500 naming response_format) and takes
    # {"type": "json_object", "schema": ...}: one fallback, then remembered.
    sent = [r["json"]["response_format"]["type"] for r in fault_proxy.requests]
    assert sent == ["json_schema", "json_object"]
    assert [r["status"] for r in fault_proxy.requests] == [500, 200]
    assert fault_proxy.requests[1]["json"]["response_format"]["schema"] == REPLY_SCHEMA


def test_the_working_response_format_is_remembered(fault_proxy):
    client = OpenAIClient(model="smollm2", base_url=fault_proxy.base_url, api_key="k", timeout=300)
    params = GenerationParams(max_tokens=2, json_schema=REPLY_SCHEMA)
    client.chat(RELEVANCE_MESSAGES, params)
    before = len(fault_proxy.requests)
    client.chat(RELEVANCE_MESSAGES, params)
    assert len(fault_proxy.requests) == before + 1
    assert fault_proxy.requests[-1]["json"]["response_format"]["type"] == "json_object"


def test_generation_parameters_reach_the_server(fault_proxy):
    client = OpenAIClient(model="smollm2", base_url=fault_proxy.base_url, api_key="k", timeout=300)
    result = client.chat(RELEVANCE_MESSAGES, GenerationParams(max_tokens=3, seed=7))
    body = fault_proxy.requests[-1]["json"]
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.0, 3, 7)
    assert body["messages"] == RELEVANCE_MESSAGES
    assert "response_format" not in body
    assert result.completion_tokens <= 3
