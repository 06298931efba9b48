"""The threads of a running debate besides its own: the gate of LLM slots that bounds the
requests in flight (:class:`LLMGate`), and the helper threads that ask a round's first turn
while the debate's thread asks the second (:func:`helper_submit`).

Why not ``threading.Semaphore`` and a new ``threading.Thread`` per round: at 64 requests in
flight both were among the largest costs of the LLM stage beside the HTTP client itself
(``bench/llm_throughput_bench.py --profile``). A Semaphore is a Condition written in Python
(a new lock per waiter, a deque, a loop) taken twice per call by up to twice as many threads
as slots; :class:`LLMGate` is a queue of tokens whose ``get`` and ``put`` run in C. A thread
started per round costs its start and, on its first statement or ``connection.close()``, a
new Django connection wrapper for that thread; the helpers are started once per process (as
many as were ever busy at once) and wait for work without a database connection.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from types import TracebackType
from typing import TypeVar

from django.db import connection

T = TypeVar("T")


class LLMGate:
    """``slots`` LLM requests in flight at most, across the threads sharing the gate: ``with
    gate:`` waits for a free slot and holds it for the block. Raises ValueError for fewer
    than 1 slot. Waiting threads are served in the order they came (a FIFO of tokens)."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"a gate needs at least 1 slot, got {slots}")
        self.slots = slots
        self._tokens: queue.SimpleQueue[None] = queue.SimpleQueue()
        for _ in range(slots):
            self._tokens.put(None)

    def acquire(self, blocking: bool = True, timeout: float | None = None) -> bool:
        """Take a slot, as ``threading.Semaphore.acquire``: True once taken; False when
        ``blocking`` is false and no slot is free, or none came within ``timeout`` s."""
        try:
            self._tokens.get(blocking, timeout)
        except queue.Empty:
            return False
        return True

    def release(self) -> None:
        """Give a slot back."""
        self._tokens.put(None)

    def __enter__(self) -> LLMGate:
        self._tokens.get()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._tokens.put(None)


_Work = tuple[Callable[[], object], "Future[object]"]


class _Helpers:
    """The helper threads of one process: started when every helper is busy, kept after."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._queue: queue.SimpleQueue[_Work] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # helpers waiting for work, or about to

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            start = self._idle == 0
            if not start:
                self._idle -= 1
        self._queue.put((fn, future))  # type: ignore[arg-type]
        if start:
            # Daemon, as the per-round threads were: a process ending does not wait for them.
            threading.Thread(target=self._work, name="debate-helper", daemon=True).start()
        return future

    def _work(self) -> None:
        while True:
            fn, future = self._queue.get()
            try:
                future.set_result(fn())
            except BaseException as exc:  # handed to the caller, which raises it
                future.set_exception(exc)
            finally:
                connection.close()  # none is opened (statements go to the lane), never kept
            with self._lock:
                self._idle += 1


_helpers: _Helpers | None = None
_helpers_lock = threading.Lock()


def helper_submit(fn: Callable[[], T]) -> Future[T]:
    """Run ``fn`` on a helper thread of this process and return its future (its result, or
    the exception it raised). A helper is started when none is idle, so ``fn`` never waits
    for another's work; a forked child starts its own."""
    global _helpers
    helpers = _helpers
    if helpers is None or helpers.pid != os.getpid():
        with _helpers_lock:
            helpers = _helpers
            if helpers is None or helpers.pid != os.getpid():
                helpers = _helpers = _Helpers()
    return helpers.submit(fn)


def helpers_reset() -> None:
    """Let the next :func:`helper_submit` start new helper threads; the current ones stay
    idle (a profiler that hooks the start of threads then sees the helpers' work:
    ``bench/llm_throughput_bench.py --profile``)."""
    global _helpers
    with _helpers_lock:
        _helpers = None
