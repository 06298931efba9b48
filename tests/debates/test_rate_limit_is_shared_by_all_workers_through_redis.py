"""The Redis limiter (debates.llm.ratelimit) holds across processes and threads on real Redis."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
import uuid

import pytest
import redis

from debates.llm.ratelimit import KEY_PREFIX, RateLimitTimeout, RedisRateLimiter

REDIS_URL = os.environ.get("DREAM_TEST_RATE_LIMIT_REDIS_URL", "redis://127.0.0.1:6379/12")


@pytest.fixture
def key():
    """A fresh key, deleted afterwards (the Redis db may be shared with other tests)."""
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError:
        if os.environ.get("CI"):
            pytest.fail(f"Redis missing in CI: {REDIS_URL}")
        pytest.skip(f"Redis not available: {REDIS_URL}")
    name = f"test-{uuid.uuid4().hex}"
    yield name
    client.delete(KEY_PREFIX + name)


def _hammer(url: str, key: str, tries: int, start, results) -> None:
    limiter = RedisRateLimiter.from_url(url)
    start.wait()
    results.put(sum(limiter.try_acquire(key, 1) == 0.0 for _ in range(tries)))


def test_two_processes_together_get_exactly_the_burst():
    # 1 request a minute, burst 1: of 2 x 25 immediate tries exactly one is allowed.
    name = f"test-{uuid.uuid4().hex}"
    ctx = multiprocessing.get_context("spawn")
    start, results = ctx.Event(), ctx.Queue()
    workers = [
        ctx.Process(target=_hammer, args=(REDIS_URL, name, 25, start, results)) for _ in range(2)
    ]
    try:
        for worker in workers:
            worker.start()
        start.set()
        granted = [results.get(timeout=60) for _ in workers]
        for worker in workers:
            worker.join(timeout=30)
    finally:
        redis.Redis.from_url(REDIS_URL).delete(KEY_PREFIX + name)
    assert sum(granted) == 1
    assert all(worker.exitcode == 0 for worker in workers)


def test_two_threads_acquiring_share_one_pace(key):
    # 10 per 1-second window = one slot every 0.1 s; 2 threads x 5 blocking acquisitions.
    slept: list[float] = []
    limiter = RedisRateLimiter.from_url(REDIS_URL, sleep=lambda s: (slept.append(s), time.sleep(s)))
    grants: list[float] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(5):
            limiter.acquire(key, 10, timeout=10, window=1.0)
            with lock:
                grants.append(time.monotonic())

    threads = [threading.Thread(target=work) for _ in range(2)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(grants) == 10
    # 10 grants need 9 intervals of 0.1 s after the first (Redis keeps the clock): shared, not
    # 0.4 s as two limiters of their own would take.
    assert max(grants) - started >= 0.9 - 0.02
    # And no thread waits longer than the pace asks, however slow the machine: a grant books
    # the slot one interval after the moment it was granted (burst 1), so a refusal never
    # names a wait beyond one interval (+ the script's 1 ms rounding), and acquire sleeps
    # exactly what it was told.
    assert slept and max(slept) <= 0.1 + 0.001


def test_a_burst_is_granted_back_to_back_then_the_pace_applies(key):
    limiter = RedisRateLimiter.from_url(REDIS_URL)
    started = time.monotonic()
    waits = [limiter.try_acquire(key, 1, burst=3) for _ in range(4)]
    elapsed = time.monotonic() - started
    assert waits[:3] == [0.0, 0.0, 0.0]
    # 1 a minute: three slots were booked from the first grant, so the fourth waits a minute
    # less the time the four calls took (on any machine; + 10 ms for the clocks' rounding).
    assert 60.0 - elapsed - 0.01 <= waits[3] <= 60.0


def test_no_slot_within_the_timeout_raises_at_once_with_retry_after(key):
    slept: list[float] = []
    limiter = RedisRateLimiter.from_url(REDIS_URL, sleep=slept.append)
    started = time.monotonic()
    limiter.acquire(key, 1, timeout=1)
    with pytest.raises(RateLimitTimeout) as caught:
        limiter.acquire(key, 1, timeout=2)
    elapsed = time.monotonic() - started
    assert slept == []  # "at once": refused without waiting for part of the slot
    # The slot a minute after the first grant, less the time both calls took.
    assert 60.0 - elapsed - 0.01 <= caught.value.retry_after <= 60.0


def test_the_key_expires_once_its_interval_has_passed(key):
    limiter = RedisRateLimiter.from_url(REDIS_URL)
    started = time.monotonic()
    limiter.acquire(key, 6, timeout=1, window=60.0)  # interval 10 s
    ttl_ms = redis.Redis.from_url(REDIS_URL).pttl(KEY_PREFIX + key)
    elapsed_ms = (time.monotonic() - started) * 1000
    # Set to the interval + 1 s of slack (no key lives forever), less the time since it was
    # set; the interval is long enough that the key is still there to be read.
    assert 11_000 - elapsed_ms - 1 <= ttl_ms <= 11_000


def test_an_unreachable_redis_is_a_transient_error():
    from debates.llm.base import TransientLLMError

    limiter = RedisRateLimiter.from_url(f"redis://127.0.0.1:{_closed_port()}/0")
    with pytest.raises(TransientLLMError, match="rate limiter unavailable"):
        limiter.try_acquire("k", 1)


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
