"""call_with_retry around the OpenAI backend: one 429 from the proxy, then the real server's
answer; the wait honours the Retry-After of 2 seconds (sleep injected, so no real wait)."""

from __future__ import annotations

import random

from debates.llm.base import GenerationParams
from debates.llm.openai_backend import OpenAIClient
from debates.retry import call_with_retry
from tests.fixtures.llm import RELEVANCE_MESSAGES


def test_one_429_is_waited_out_then_the_call_succeeds(fault_proxy):
    client = OpenAIClient(model="smollm2", base_url=fault_proxy.base_url, api_key="k", timeout=60)
    sleeps: list[float] = []
    fault_proxy.fail_next("429")

    result = call_with_retry(
        lambda: client.chat(RELEVANCE_MESSAGES, GenerationParams(max_tokens=2)),
        attempts=3,
        base=1.0,
        sleep=sleeps.append,
        rng=random.Random(0),
    )

    assert result.completion_tokens > 0
    assert sleeps == [2.0]  # backoff draws at most 1 s; Retry-After asks for 2
    assert [r["status"] for r in fault_proxy.requests] == [429, 200]


def test_a_timeout_then_a_5xx_are_both_retried(fault_proxy):
    fault_proxy.stall_seconds = 2.5
    client = OpenAIClient(model="smollm2", base_url=fault_proxy.base_url, api_key="k", timeout=1)
    fault_proxy.fail_next("stall")
    fault_proxy.fail_next("500")
    slept: list[float] = []
    slow_client = OpenAIClient(
        model="smollm2", base_url=fault_proxy.base_url, api_key="k", timeout=120
    )
    calls = iter([client, slow_client, slow_client])

    result = call_with_retry(
        lambda: next(calls).chat(RELEVANCE_MESSAGES, GenerationParams(max_tokens=1)),
        attempts=3,
        sleep=slept.append,
        rng=random.Random(0),
    )
    assert result.completion_tokens == 1
    assert len(slept) == 2
    assert [r["fault"] for r in fault_proxy.requests] == ["stall", "500", None]
