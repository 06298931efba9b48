"""The embedded backend gives the same reply to the same request (temperature 0, fixed seed)."""

from __future__ import annotations

from debates.llm.base import GenerationParams
from tests.fixtures.llm import RELEVANCE_MESSAGES


def test_the_same_request_twice_gives_the_same_text(embedded_client):
    params = GenerationParams(max_tokens=16)
    first = embedded_client.chat(RELEVANCE_MESSAGES, params)
    second = embedded_client.chat(RELEVANCE_MESSAGES, params)
    assert first.text == second.text
    assert first.text.strip() != ""
    assert first.completion_tokens == second.completion_tokens > 0
