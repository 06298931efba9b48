"""Retrying transient LLM errors: exponential backoff with full jitter, honouring Retry-After.

Pure logic: no database, no network. Time is injected (``sleep``, ``rng``) so tests are exact.
Method: "full jitter" from M. Brooker, "Exponential Backoff And Jitter", AWS Architecture
Blog, 2015: the wait before retry ``i`` (0-based) is uniform in ``[0, min(cap, base * 2**i)]``.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from debates.llm.base import TransientLLMError

T = TypeVar("T")
log = logging.getLogger(__name__)

DEFAULT_ATTEMPTS = 5
DEFAULT_BASE_S = 1.0
DEFAULT_CAP_S = 60.0
DEFAULT_MAX_RETRY_AFTER_S = 300.0


def backoff_delays(attempts: int, base: float, cap: float, rng: random.Random) -> list[float]:
    """The ``attempts - 1`` waits (seconds) between ``attempts`` calls, with full jitter.

    Wait ``i`` is ``rng.uniform(0, min(cap, base * 2**i))``. Raises ValueError if
    ``attempts < 1``, ``base <= 0`` or ``cap < base``.
    """
    if attempts < 1:
        raise ValueError(f"attempts must be >= 1, got {attempts}")
    if base <= 0 or cap < base:
        raise ValueError(f"need 0 < base <= cap, got base={base}, cap={cap}")
    return [rng.uniform(0.0, min(cap, base * 2**i)) for i in range(attempts - 1)]


def call_with_retry(
    fn: Callable[[], T],
    *,
    attempts: int = DEFAULT_ATTEMPTS,
    base: float = DEFAULT_BASE_S,
    cap: float = DEFAULT_CAP_S,
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER_S,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
    on_retry: Callable[[int, TransientLLMError, float], None] | None = None,
) -> T:
    """Call ``fn()`` up to ``attempts`` times while it raises TransientLLMError.

    Before each retry it sleeps the jittered backoff, or the error's ``retry_after`` when
    that is longer (the server knows best). A ``retry_after`` above ``max_retry_after``
    seconds is not waited out: the error is raised at once so a worker is not blocked for
    minutes (the caller requeues the work instead). ``on_retry(attempt, error, wait_s)`` is
    called before each wait (attempt is 1-based: the call that failed).

    Returns what ``fn`` returns. Raises the last TransientLLMError once attempts are used up;
    any other exception (PermanentLLMError included) propagates at once, unretried.
    """
    delays = backoff_delays(attempts, base, cap, rng or random.Random())
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except TransientLLMError as exc:
            if attempt == attempts:
                raise
            wait = delays[attempt - 1]
            if exc.retry_after is not None:
                if exc.retry_after > max_retry_after:
                    raise
                wait = max(wait, exc.retry_after)
            log.info(
                "transient LLM error (attempt %d/%d), retrying in %.2fs: %s",
                attempt,
                attempts,
                wait,
                exc,
            )
            if on_retry is not None:
                on_retry(attempt, exc, wait)
            sleep(wait)
    raise AssertionError("unreachable")  # the loop returns or raises
