"""RateLimitedClient waits for the shared limit before every chat, passes everything else
through, and turns a slot beyond its timeout into a transient error without calling."""

from __future__ import annotations

import pytest

from debates.llm.base import GenerationParams, LLMResult, TransientLLMError
from debates.llm.ratelimit import LocalRateLimiter, RateLimitedClient, limiter_url

MESSAGES = [{"role": "user", "content": "hi"}]


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class Echo:
    model = "echo"
    context_window = 100

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.called_at: list[float] = []

    def chat(self, messages, params):
        self.called_at.append(self.clock.now)
        return LLMResult("ok", self.model, 1, 1, 0.0, "stop")

    def count_tokens(self, text: str) -> int:
        return len(text)


def test_calls_are_spaced_by_the_limit():
    clock = FakeClock()
    inner = Echo(clock)
    limiter = LocalRateLimiter(sleep=clock.sleep, clock=clock)
    client = RateLimitedClient(inner, key="echo", rpm=20, limiter=limiter, timeout=10)
    for _ in range(3):
        assert client.chat(MESSAGES, GenerationParams()).text == "ok"
    assert inner.called_at == [0.0, 3.0, 6.0]  # 20 a minute: one every 3 s
    assert (client.model, client.context_window, client.count_tokens("abc")) == ("echo", 100, 3)


def test_a_slot_beyond_the_timeout_is_a_transient_error_and_no_call():
    clock = FakeClock()
    inner = Echo(clock)
    limiter = LocalRateLimiter(sleep=clock.sleep, clock=clock)
    client = RateLimitedClient(inner, key="echo", rpm=1, limiter=limiter, timeout=5)
    client.chat(MESSAGES, GenerationParams())
    with pytest.raises(TransientLLMError) as caught:
        client.chat(MESSAGES, GenerationParams())
    assert caught.value.retry_after == 60.0
    assert inner.called_at == [0.0]


@pytest.mark.parametrize(
    ("env", "broker", "url"),
    [
        ("redis://127.0.0.1:6379/12", "", "redis://127.0.0.1:6379/12"),
        ("", "redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("", "amqp://guest@localhost//", None),
        ("", "", None),
    ],
)
def test_the_shared_limiter_lives_in_the_brokers_redis_unless_configured(
    monkeypatch, settings, env, broker, url
):
    monkeypatch.setenv("DREAM_RATE_LIMIT_REDIS_URL", env)
    settings.CELERY_BROKER_URL = broker
    assert limiter_url() == url
