"""The embedded backend gives the same reply to the same request (temperature 0, fixed seed)."""

from __future__ import annotations

from debates.llm.base import GenerationParams
from tests.llm_fixtures import RELEVANCE_MESSAGES, embedded_client  # noqa: F401


def test_the_same_request_twice_gives_the_same_text(embedded_client):  # noqa: F811
    params = GenerationParams(max_tokens=16)
    first = embedded_client.chat(RELEVANCE_MESSAGES, params)
    second = embedded_client.chat(RELEVANCE_MESSAGES, params)
    assert first.text == second.text
    assert first.text.strip() != ""
    assert first.completion_tokens == second.completion_tokens > 0
