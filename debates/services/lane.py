"""The database lane: a few threads per process that run the statements of every running
debate (claim, lease renewals, turn writes, the outcome) on connections they keep while
there is work, so the threads waiting on LLM replies hold no connection at all.

Why: a debate thread that closed its connection before each LLM call (so that no connection
idles through a call, see :func:`~debates.services.common.database_release`) opened a new
one for every stored turn. On PostgreSQL each new connection costs this process ~1.8 ms of
CPU and the server a new backend; at 64 requests in flight that was the largest cost of the
LLM stage after the HTTP client itself (``bench/llm_throughput_bench.py --profile``).
Through the lane, C debates in flight use :data:`LANE_THREADS` connections, not C.

Guarantees: :func:`lane_run` returns what the function returns, or raises what it raised,
after it ran to its end, so a turn is still stored before its debate's next LLM call. A lane
thread closes its connection once it has had no work for :data:`LANE_IDLE_S`, so no
connection idles longer than that (servers and poolers that close idle sessions after a
second or more never meet an idle lane connection; a write whose connection was closed
anyway is reopened and tried again by
:func:`~debates.services.common.with_connection_retry`, as before). Inside a transaction
of the caller (tests, a caller's atomic block) the function runs in the caller's thread:
another connection would not see that transaction's rows. Threads are started on first use
in each process (a forked child starts its own).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from django.db import connection

from debates.services.common import database_release

T = TypeVar("T")

LANE_THREADS = 4  # connections of the lane; each statement takes ~1 ms of the 500 of a call
LANE_IDLE_S = 0.2  # a lane thread without work this long closes its connection

_Work = tuple[Callable[[], Any], "Future[Any]"] | None


class _Lane:
    """The lane of one process: a queue of work and :data:`LANE_THREADS` threads."""

    def __init__(self, threads: int, idle_s: float) -> None:
        self.pid = os.getpid()
        self._queue: queue.SimpleQueue[_Work] = queue.SimpleQueue()
        self._idle_s = idle_s
        for n in range(threads):
            threading.Thread(target=self._work, name=f"db-lane-{n}", daemon=True).start()

    def run(self, fn: Callable[[], T]) -> T:
        future: Future[T] = Future()
        self._queue.put((fn, future))
        return future.result()

    def release(self) -> None:
        """Have every idle lane thread close its connection now (after the work queued)."""
        self._queue.put(None)

    def _work(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=self._idle_s)
            except queue.Empty:
                database_release()  # idle: no connection kept through the wait
                item = self._queue.get()
            if item is None:
                database_release()
                continue
            fn, future = item
            if not future.set_running_or_notify_cancel():
                continue
            # A connection broken by an earlier error, or older than CONN_MAX_AGE, is
            # replaced before the work, as Django does between requests.
            connection.close_if_unusable_or_obsolete()
            try:
                result = fn()
            except BaseException as exc:  # handed to the caller, which raises it
                future.set_exception(exc)
            else:
                future.set_result(result)


_lane: _Lane | None = None
_lane_lock = threading.Lock()


def _lane_get() -> _Lane:
    global _lane
    lane = _lane
    if lane is None or lane.pid != os.getpid():
        with _lane_lock:
            lane = _lane
            if lane is None or lane.pid != os.getpid():
                lane = _lane = _Lane(LANE_THREADS, LANE_IDLE_S)
    return lane


def lane_run(fn: Callable[[], T]) -> T:
    """Run ``fn`` (database work, no LLM call) on the lane and return its result, or raise
    its error; in the caller's thread when the caller is inside a transaction."""
    if connection.in_atomic_block:
        return fn()
    return _lane_get().run(fn)


def lane_release() -> None:
    """Close the lane's connections now rather than after :data:`LANE_IDLE_S` (an
    in-process run that ended; nothing waits for it)."""
    if _lane is not None and _lane.pid == os.getpid():
        for _ in range(LANE_THREADS):
            _lane.release()


def lane_reset() -> None:
    """Let the next :func:`lane_run` start new lane threads; the current ones stay idle,
    without a connection (a profiler that hooks the start of threads then sees the lane's
    work: ``bench/llm_throughput_bench.py --profile``)."""
    global _lane
    with _lane_lock:
        lane_release()
        _lane = None
