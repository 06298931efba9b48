"""The GCRA rule of debates.llm.ratelimit on hand-worked times, and the in-process limiter."""

from __future__ import annotations

import pytest

from debates.llm.base import TransientLLMError
from debates.llm.ratelimit import LocalRateLimiter, RateLimitTimeout, gcra


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_a_fresh_key_is_allowed_and_books_one_interval():
    assert gcra(0.0, 100.0, interval=2.0) == (True, 102.0, 0.0)


def test_a_request_inside_the_interval_waits_for_the_rest_of_it():
    assert gcra(102.0, 100.5, interval=2.0) == (False, 102.0, 1.5)


def test_a_burst_lets_that_many_requests_through_back_to_back():
    tat, decisions = 0.0, []
    for _ in range(4):
        allowed, tat, wait = gcra(tat, 100.0, interval=2.0, burst=3)
        decisions.append((allowed, wait))
    assert decisions == [(True, 0.0), (True, 0.0), (True, 0.0), (False, 2.0)]
    assert tat == 106.0


def test_an_idle_key_does_not_bank_more_than_the_burst():
    # Last booking long ago: only `burst` requests go through at once, not a backlog.
    allowed1, tat, _ = gcra(50.0, 100.0, interval=2.0, burst=2)
    allowed2, tat, _ = gcra(tat, 100.0, interval=2.0, burst=2)
    allowed3, tat, wait = gcra(tat, 100.0, interval=2.0, burst=2)
    assert (allowed1, allowed2, allowed3, wait) == (True, True, False, 2.0)


def test_the_local_limiter_spaces_acquisitions_by_window_over_rpm():
    clock = FakeClock()
    limiter = LocalRateLimiter(sleep=clock.sleep, clock=clock)
    waited = [limiter.acquire("k", 30, timeout=10) for _ in range(4)]  # 30/min: 2 s apart
    assert waited == [0.0, 2.0, 2.0, 2.0]
    assert clock.now == 106.0


def test_keys_are_limited_independently():
    clock = FakeClock()
    limiter = LocalRateLimiter(sleep=clock.sleep, clock=clock)
    assert limiter.try_acquire("a", 1) == 0.0
    assert limiter.try_acquire("b", 1) == 0.0
    assert limiter.try_acquire("a", 1) == 60.0


def test_a_slot_beyond_the_timeout_raises_a_transient_error_without_sleeping():
    clock = FakeClock()
    limiter = LocalRateLimiter(sleep=clock.sleep, clock=clock)
    limiter.acquire("k", 1, timeout=1)
    with pytest.raises(RateLimitTimeout) as caught:
        limiter.acquire("k", 1, timeout=5)
    assert isinstance(caught.value, TransientLLMError)
    assert caught.value.retry_after == 60.0
    assert clock.sleeps == []


@pytest.mark.parametrize(("rpm", "window"), [(0, 60.0), (5, 0.0)])
def test_nonsense_limits_are_refused(rpm, window):
    with pytest.raises(ValueError):
        LocalRateLimiter().try_acquire("k", rpm, window=window)
