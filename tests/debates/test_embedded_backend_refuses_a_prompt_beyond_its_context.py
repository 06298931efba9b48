"""The embedded backend refuses, without running the model, a request whose prompt plus
max_tokens exceeds its context window (2048 tokens)."""

from __future__ import annotations

import pytest

from debates.llm.base import ContextTooLongError, GenerationParams

FAKE_COMPLETION = {
    "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 0, "completion_tokens": 1},
}


@pytest.fixture
def calls(embedded_client, monkeypatch):
    """Replace the model call by a recorder so a refused request is visibly never sent."""
    made: list[dict] = []

    def record(**kwargs):
        made.append(kwargs)
        return FAKE_COMPLETION

    monkeypatch.setattr(embedded_client.llama, "create_chat_completion", record)
    return made


def messages(words: int) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "Judge relevance."},
        {"role": "user", "content": "solar " * words},
    ]


def test_a_prompt_longer_than_the_context_is_refused_without_a_call(embedded_client, calls):
    with pytest.raises(ContextTooLongError, match="exceeds the context window of 2048"):
        embedded_client.chat(messages(3000), GenerationParams(max_tokens=16))
    assert calls == []


def test_prompt_plus_max_tokens_must_fit_to_the_last_token(embedded_client, calls):
    msgs = messages(500)
    prompt = embedded_client.prompt_tokens(msgs)
    assert 500 < prompt < 2048

    with pytest.raises(ContextTooLongError):
        embedded_client.chat(msgs, GenerationParams(max_tokens=2048 - prompt + 1))
    assert calls == []

    result = embedded_client.chat(msgs, GenerationParams(max_tokens=2048 - prompt))
    assert len(calls) == 1
    assert calls[0]["max_tokens"] == 2048 - prompt
    assert result.text == "ok"


def test_a_context_overflow_is_a_permanent_error():
    from debates.llm.base import PermanentLLMError

    assert issubclass(ContextTooLongError, PermanentLLMError)
