"""cProfile in every thread of a process, timed by each thread's own CPU clock, and the merged
profile printed in CPU ms per LLM call (``llm_throughput_bench.py --profile``); also a Celery
worker run that way (``python bench/_profiles.py OUT celery-args...``, see :func:`main`)."""

from __future__ import annotations

import cProfile
import functools
import pstats
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any


class ThreadProfiles:
    """While entered, cProfile in every thread: this one and each thread started meanwhile
    (``threading.Thread.run`` wrapped), each profiler timed by its own thread's CPU clock, so
    the merged profile adds up to the CPU the threads spent, not to wall time. The clock is
    that thread's (``pthread_getcpuclockid``) whichever thread reads it: a profile taken
    while a long-lived thread (the database lane, a helper) waits in a call is not charged
    the reading thread's CPU for that call."""

    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []
        self._lock = threading.Lock()
        self._original_run = threading.Thread.run

    def _profile(self) -> cProfile.Profile:
        clock = time.pthread_getcpuclockid(threading.get_ident())
        profile = cProfile.Profile(functools.partial(time.clock_gettime, clock))
        with self._lock:
            self.profiles.append(profile)
        return profile

    def __enter__(self) -> ThreadProfiles:
        original, new_profile = self._original_run, self._profile

        def run(thread: threading.Thread) -> None:
            profile = new_profile()
            profile.enable()
            try:
                original(thread)
            finally:
                profile.disable()

        threading.Thread.run = run  # type: ignore[method-assign]
        self._main = self._profile()
        self._main.enable()
        return self

    def __exit__(self, *exc: object) -> None:
        self._main.disable()
        threading.Thread.run = self._original_run  # type: ignore[method-assign]

    def clear(self) -> None:
        """Forget what every profile collected so far (they keep profiling)."""
        with self._lock:
            for profile in self.profiles:
                profile.clear()

    def stats(self) -> pstats.Stats:
        """The merged profile."""
        with self._lock:
            return pstats.Stats(*self.profiles)

    def print_top(self, title: str, calls: int, *, top: int = 30, dump: Path | None = None) -> None:
        """:func:`stats_print` of the merged profile, also written to ``dump`` when given."""
        merged = self.stats()
        if dump is not None:
            merged.dump_stats(dump)
        stats_print(merged, title, calls, top=top)


def stats_print(merged: pstats.Stats, title: str, calls: int, *, top: int = 30) -> None:
    """The ``top`` functions by own and by cumulative CPU time, in ms per LLM call."""
    stats: dict[Any, Any] = merged.stats  # type: ignore[attr-defined]
    rows = [(tt, ct, nc, func) for func, (_, nc, tt, ct, _) in stats.items()]
    total = sum(r[0] for r in rows)
    print(f"{title}: {1000 * total / max(calls, 1):.2f} ms CPU per call under the profiler")
    for key, name in ((0, "own"), (1, "cumulative")):
        print(f"  by {name} time (ms per LLM call, function calls per LLM call):")
        for tt, ct, nc, (path, line, func) in sorted(rows, key=lambda r: -r[key])[:top]:
            where = f"{Path(path).name}:{line}({func})" if line else func
            ms = 1000 * (tt, ct)[key] / max(calls, 1)
            print(f"    {ms:7.3f}  {nc / max(calls, 1):7.2f}  {where}")


#: Sent to a worker run by :func:`main`: forget what was profiled so far (its start-up).
CLEAR_SIGNAL = signal.SIGUSR2


def main() -> None:
    """``_profiles.py OUT ARGS...``: ``celery ARGS...`` (a worker) with every thread under
    :class:`ThreadProfiles`; :data:`CLEAR_SIGNAL` forgets what was profiled so far; at exit
    (SIGTERM: Celery's warm shutdown) the merged profile is written to OUT (pstats)."""
    out, args = Path(sys.argv[1]), sys.argv[2:]
    from celery.__main__ import main as celery_main

    profiles = ThreadProfiles()
    signal.signal(CLEAR_SIGNAL, lambda *_: profiles.clear())
    sys.argv = ["celery", *args]
    try:
        with profiles:
            celery_main()
    finally:
        profiles.stats().dump_stats(out)


if __name__ == "__main__":
    main()
