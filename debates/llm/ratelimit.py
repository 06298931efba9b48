"""A rate limit per backend shared by every worker: requests per minute, kept in Redis.

Algorithm: GCRA, the generic cell rate algorithm (ATM Forum Traffic Management 4.0, 1996; the
"leaky bucket as a meter"). With ``rpm`` requests per ``window`` seconds, requests are spaced
``window / rpm`` seconds apart, with up to ``burst`` allowed back to back. Spacing rather than a
per-minute counter matches hosted APIs, which enforce a per-minute limit over shorter slices
(60 RPM may be enforced as 1 request a second). The whole check-and-update is one Lua script,
so it is atomic across processes, and it uses the Redis server's clock, so worker clocks
never matter. State per key is one number (the "theoretical arrival time") with an expiry.

Without Redis (the quickstart runs tasks in-process), :class:`LocalRateLimiter` applies the same
rule inside one process.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from debates.llm.base import ChatMessage, GenerationParams, LLMClient, LLMResult, TransientLLMError

DEFAULT_WINDOW_S = 60.0
KEY_PREFIX = "dream:ratelimit:"


class RateLimitTimeout(TransientLLMError):
    """The rate limit would not allow a request within the timeout; ``retry_after`` says when."""


def gcra(tat: float, now: float, *, interval: float, burst: int = 1) -> tuple[bool, float, float]:
    """One GCRA decision. Times in seconds on one clock.

    ``tat`` is the stored theoretical arrival time (0 for a fresh key), ``interval`` the spacing
    (window / rpm), ``burst`` how many requests may go back to back (>= 1). Returns
    ``(allowed, new_tat, wait)``: when allowed, ``new_tat`` must be stored and ``wait`` is 0;
    otherwise ``new_tat == tat`` and ``wait`` is the seconds until a request would be allowed.
    """
    tat = max(tat, now)
    allow_at = tat - (burst - 1) * interval
    if now < allow_at:
        return False, tat, allow_at - now
    return True, tat + interval, 0.0


# The same rule as gcra(), in milliseconds on the Redis server's clock.
_GCRA_LUA = """
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local allow_at = tat - (burst - 1) * interval
if now < allow_at then
  return {0, string.format('%.3f', allow_at - now)}
end
local new_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.3f', new_tat), 'PX',
           math.ceil(new_tat - now) + 1000)
return {1, '0'}
"""


def _check(rpm: int, window: float, burst: int) -> float:
    if rpm < 1 or window <= 0 or burst < 1:
        raise ValueError(f"need rpm >= 1, window > 0, burst >= 1; got {rpm}, {window}, {burst}")
    return window / rpm


class RateLimiter(Protocol):
    def try_acquire(
        self, key: str, rpm: int, *, window: float = DEFAULT_WINDOW_S, burst: int = 1
    ) -> float: ...

    def acquire(
        self,
        key: str,
        rpm: int,
        timeout: float,
        *,
        window: float = DEFAULT_WINDOW_S,
        burst: int = 1,
    ) -> float: ...


class _Blocking:
    """``acquire`` on top of ``try_acquire``: sleep until allowed or the timeout would pass."""

    _sleep: Callable[[float], None]
    _clock: Callable[[], float]

    def try_acquire(
        self, key: str, rpm: int, *, window: float = DEFAULT_WINDOW_S, burst: int = 1
    ) -> float:
        raise NotImplementedError

    def acquire(
        self,
        key: str,
        rpm: int,
        timeout: float,
        *,
        window: float = DEFAULT_WINDOW_S,
        burst: int = 1,
    ) -> float:
        """Block until one request for ``key`` is allowed; return the seconds waited.

        ``rpm`` requests per ``window`` seconds (per minute by default), ``timeout`` in seconds.
        Raises RateLimitTimeout (a TransientLLMError, ``retry_after`` = seconds still needed)
        as soon as it is clear the slot cannot come within ``timeout``; ValueError for bad
        arguments; TransientLLMError if the limiter's store is unreachable.
        """
        start = self._clock()
        while True:
            wait = self.try_acquire(key, rpm, window=window, burst=burst)
            if wait <= 0:
                return self._clock() - start
            left = timeout - (self._clock() - start)
            if wait > left:
                raise RateLimitTimeout(
                    f"rate limit {rpm} per {window:g}s for {key}: next slot in {wait:.2f}s, "
                    f"beyond the {timeout:g}s timeout",
                    retry_after=wait,
                )
            self._sleep(wait)


class RedisRateLimiter(_Blocking):
    """GCRA in Redis, shared by every process using the same Redis database."""

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = KEY_PREFIX,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self._script = client.register_script(_GCRA_LUA)
        self._sleep = sleep
        self._clock = clock

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> RedisRateLimiter:
        """Limiter on the Redis database at ``url`` (``redis://host:port/db``)."""
        import redis

        return cls(redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5), **kwargs)

    def try_acquire(
        self, key: str, rpm: int, *, window: float = DEFAULT_WINDOW_S, burst: int = 1
    ) -> float:
        """Take a slot for ``key`` if one is free now: return 0, else the seconds to wait.

        Raises ValueError for bad arguments and TransientLLMError if Redis is unreachable
        (a hosted API is never called unprotected).
        """
        import redis

        interval_ms = _check(rpm, window, burst) * 1000.0
        try:
            allowed, wait_ms = self._script(
                keys=[self._prefix + key], args=[repr(interval_ms), burst]
            )
        except redis.RedisError as exc:
            raise TransientLLMError(f"rate limiter unavailable: {exc}") from exc
        return 0.0 if int(allowed) else float(wait_ms) / 1000.0


class LocalRateLimiter(_Blocking):
    """GCRA in this process only (for running without Redis). Thread-safe."""

    def __init__(
        self,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._tat: dict[str, float] = {}
        self._lock = threading.Lock()
        self._sleep = sleep
        self._clock = clock

    def try_acquire(
        self, key: str, rpm: int, *, window: float = DEFAULT_WINDOW_S, burst: int = 1
    ) -> float:
        """Take a slot for ``key`` if one is free now: return 0, else the seconds to wait."""
        interval = _check(rpm, window, burst)
        with self._lock:
            allowed, tat, wait = gcra(
                self._tat.get(key, 0.0), self._clock(), interval=interval, burst=burst
            )
            if allowed:
                self._tat[key] = tat
            return wait


_default: tuple[int, RateLimiter] | None = None
_default_lock = threading.Lock()


def limiter_url() -> str | None:
    """The Redis URL the shared limiter uses: ``DREAM_RATE_LIMIT_REDIS_URL`` (environment or
    Django setting), else ``CELERY_BROKER_URL`` when it is a Redis URL, else None (local)."""
    url = os.environ.get("DREAM_RATE_LIMIT_REDIS_URL")
    if not url:
        try:
            from django.conf import settings

            url = getattr(settings, "DREAM_RATE_LIMIT_REDIS_URL", "") or getattr(
                settings, "CELERY_BROKER_URL", ""
            )
        except Exception:  # Django not configured: pure use of this module
            url = os.environ.get("CELERY_BROKER_URL", "")
    if url and url.startswith(("redis://", "rediss://", "unix://")):
        return url
    return None


def default_limiter() -> RateLimiter:
    """The process's limiter: Redis when :func:`limiter_url` gives one, else local."""
    global _default
    with _default_lock:
        if _default is None or _default[0] != os.getpid():
            url = limiter_url()
            limiter = RedisRateLimiter.from_url(url) if url else LocalRateLimiter()
            _default = (os.getpid(), limiter)
        return _default[1]


def acquire(
    key: str, rpm: int, timeout: float, *, window: float = DEFAULT_WINDOW_S, burst: int = 1
) -> float:
    """Block until ``key`` may send one request under ``rpm`` per ``window`` seconds, using
    :func:`default_limiter`. Returns seconds waited; raises RateLimitTimeout (transient)."""
    return default_limiter().acquire(key, rpm, timeout, window=window, burst=burst)


class RateLimitedClient:
    """An LLM client whose every ``chat`` first takes a slot from the shared rate limit.

    ``timeout`` (seconds) bounds the wait for a slot; past it the call raises RateLimitTimeout,
    a TransientLLMError, so retries and requeues handle it like a 429.
    """

    def __init__(
        self,
        client: LLMClient,
        *,
        key: str,
        rpm: int,
        limiter: RateLimiter | None = None,
        timeout: float = 120.0,
        window: float = DEFAULT_WINDOW_S,
    ) -> None:
        _check(rpm, window, 1)
        self.inner = client
        self.model = client.model
        self.key, self.rpm, self.timeout, self.window = key, rpm, timeout, window
        self._limiter = limiter

    @property
    def context_window(self) -> int:
        """The wrapped client's (read each time: a server may have lowered it)."""
        return self.inner.context_window

    def __repr__(self) -> str:
        return f"RateLimitedClient({self.inner!r}, rpm={self.rpm})"

    def count_tokens(self, text: str) -> int:
        """The wrapped client's count (no request is made)."""
        return self.inner.count_tokens(text)

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        """Wait for a slot, then the wrapped client's ``chat`` (same errors, plus
        RateLimitTimeout)."""
        limiter = self._limiter or default_limiter()
        limiter.acquire(self.key, self.rpm, self.timeout, window=self.window)
        return self.inner.chat(messages, params)
