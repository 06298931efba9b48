"""When a running debate's turns are written: a round's two turns in one write, before the
debate's next LLM call, or with its outcome when the round ended the debate.

Why: a write per turn, each in its own lane trip and transaction, was the largest database
cost of the LLM stage at 64 requests in flight (``bench/llm_throughput_bench.py --profile``).
A round's two turns are independent and arrive together when asked at once (a paired run,
:func:`debates.engine.debate_pair` with a pair runner), so they are written together.

The guarantee that makes a crash cost little stays: no LLM call of a round is made while a
turn of an earlier round is unwritten (:meth:`TurnWriter.before_call` runs before each call,
see :class:`~debates.services.guarded.GuardedClient`), so a killed worker asks again at most
the calls of the round it was in. Within a paired round, the turn that arrives first waits for its
partner at most :data:`PARTNER_WAIT_S`, then is written alone: a slow partner (a long reply,
retries) never leaves an answered turn unwritten for longer. A turn whose round ends the
debate is written with the outcome (:func:`~debates.services.leases.lease_end`); when the run
fails or stops, the turns not written yet are written before it gives the debate up, so a
resumed debate reuses them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from debates.engine import PairRunner, TurnRecord
from debates.services.guarded import Meter
from debates.services.lane import lane_run
from debates.services.leases import Lease, LeaseLost, lease_turns_store

PARTNER_WAIT_S = 1.0  # the longest a paired round's first turn waits for its partner


class TurnWriter:
    """The turns of one debate run not written yet, and their writes under ``lease``.

    ``add`` is the engine's ``on_turn``; ``pair_runner`` wraps ``runner`` (a
    :data:`debates.engine.PairRunner`) so that a round's first turn waits for its partner;
    ``before_call`` writes the earlier rounds' turns before each LLM call; ``flush`` writes
    whatever is pending (a turn whose partner is late, and when the run gives up);
    ``taken`` hands the pending turns to the outcome's write. Writes never overlap: a flush
    waits for one in progress, so turns are stored in the order they were answered and a
    call starts only once every earlier turn is stored. Each written turn is taken off
    ``meter`` (its requests are counted on the debate by the write)."""

    def __init__(
        self,
        *,
        lease: Lease,
        prompt_version: str,
        meter: Meter,
        partner_wait_s: float = PARTNER_WAIT_S,
    ) -> None:
        self._lease, self._version, self._meter = lease, prompt_version, meter
        self._wait_s = partner_wait_s
        self._changed = threading.Condition()
        self._pending: list[TurnRecord] = []
        # Of a round asked at once: its turns asked, and those that arrived or failed.
        self._paired = self._settled = 0
        self._writing = threading.Lock()

    def add(self, record: TurnRecord) -> None:
        """Keep ``record`` (a new turn) to be written. In a paired round whose other turn is
        still being asked, wait for it up to the partner wait, then write alone if it has
        not come (the round's two turns otherwise go out in one write, later)."""
        with self._changed:
            self._pending.append(record)
            if not self._paired:
                return  # asked one after the other: written before the next call
            self._settled += 1
            self._changed.notify_all()
            deadline = time.monotonic() + self._wait_s
            while self._settled < self._paired:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            alone = self._settled < self._paired
        if alone:
            self.flush()

    def pair_runner(self, runner: PairRunner) -> PairRunner:
        """``runner`` writing the earlier rounds' turns first, then with its round's two turns
        known to this writer: the first to arrive waits for the other (see :meth:`add`), not
        past the other's failure."""

        def run(
            first: Callable[[], TurnRecord], second: Callable[[], TurnRecord]
        ) -> tuple[
            tuple[TurnRecord | None, BaseException | None],
            tuple[TurnRecord | None, BaseException | None],
        ]:
            self.flush()  # the earlier rounds' turns, before this round's calls
            with self._changed:
                self._paired, self._settled = 2, 0
            try:
                return runner(self._side(first), self._side(second))
            finally:
                with self._changed:
                    self._paired = self._settled = 0

        return run

    def _side(self, ask: Callable[[], TurnRecord]) -> Callable[[], TurnRecord]:
        """``ask`` (one turn of a paired round) telling the writer when it failed, so that
        its partner stops waiting for it."""

        def run() -> TurnRecord:
            try:
                return ask()
            except BaseException:
                with self._changed:
                    self._settled += 1
                    self._changed.notify_all()
                raise

        return run

    def before_call(self) -> None:
        """Before an LLM call (:class:`~debates.services.guarded.GuardedClient`'s hook): write
        the turns of earlier rounds (:meth:`flush`). Within a paired round nothing: its
        pending turn is its partner's, which waits for this round's other turn (:meth:`add`),
        and this call is that turn's or a re-ask of it."""
        with self._changed:
            if self._paired:
                return
        self.flush()

    def flush(self) -> None:
        """Write the pending turns now, in one write under the lease (on the database lane),
        after any write in progress. Raises LeaseLost (nothing written) if the lease was
        lost; the turns then stay unwritten and their requests on the meter. Another error
        (the database away after its retries) puts the turns back, first, so a later flush
        (the give-up's) can still write them, and is raised."""
        with self._writing:
            with self._changed:
                records, self._pending = self._pending, []
            if not records:
                return
            try:
                lane_run(
                    lambda: lease_turns_store(
                        lease=self._lease, records=records, prompt_version=self._version
                    )
                )
            except LeaseLost:
                raise  # nothing will ever be written under this lease
            except BaseException:
                with self._changed:
                    self._pending[:0] = records
                raise
            for record in records:
                self._meter.stored(record)

    @contextmanager
    def taken(self) -> Iterator[list[TurnRecord]]:
        """The pending turns, for the caller to write with the outcome, while no other write
        runs; the caller takes them off the meter once they are written. If the write raises,
        they are put back (for the give-up's :meth:`flush`)."""
        with self._writing:
            with self._changed:
                records, self._pending = self._pending, []
            try:
                yield records
            except BaseException:
                with self._changed:
                    self._pending[:0] = records
                raise
