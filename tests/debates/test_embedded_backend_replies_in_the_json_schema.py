"""The embedded SmolLM2 backend constrains its reply to the caller's JSON schema."""

from __future__ import annotations

import json

from debates.llm.base import GenerationParams
from tests.fixtures.llm import RELEVANCE_MESSAGES, REPLY_SCHEMA


def test_a_reply_with_a_schema_is_strict_json_with_the_schema_keys(embedded_client):
    client = embedded_client
    result = client.chat(
        RELEVANCE_MESSAGES, GenerationParams(max_tokens=200, json_schema=REPLY_SCHEMA)
    )

    reply = json.loads(result.text)  # strict: no raw control characters inside strings
    assert list(reply) == ["label", "argument", "evidence"]  # the schema's order
    assert reply["label"] in (0, 1)
    assert isinstance(reply["argument"], str)
    assert isinstance(reply["evidence"], list)
    assert all(isinstance(sentence, str) for sentence in reply["evidence"])

    assert result.model == "SmolLM2-135M-Instruct-Q4_1"
    assert result.finish_reason == "stop"
    assert result.prompt_tokens == client.prompt_tokens(RELEVANCE_MESSAGES)
    assert 0 < result.completion_tokens <= 200
    assert result.latency_ms > 0
