"""The LLM client of one running debate (:class:`GuardedClient`) and the count of its answered
requests (:class:`Meter`).

Each call of a :class:`GuardedClient` first writes the debate's turns not stored yet (its
``before_call``: :meth:`debates.services.turn_writer.TurnWriter.flush`; within a paired
round, the partner's turn waits for its own, at most a second), so every turn is stored
before the next round's LLM calls, then takes a slot of the gate, renews the lease
(:func:`~debates.services.leases.lease_renew`), holds no database connection through the
call, retries transient errors (:func:`debates.retry.call_with_retry`) and meters the reply.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import nullcontext

from django.db.models import F

from debates.engine import TurnRecord
from debates.llm.base import ChatMessage, GenerationParams, LLMClient, LLMResult
from debates.models import Debate
from debates.retry import call_with_retry
from debates.services.common import database_release, with_connection_retry
from debates.services.leases import JobStopped, Lease, lease_renew
from debates.services.threads import LLMGate

# What a Meter counts: requests, then the token counts an LLMResult and a TurnRecord share.
_METERED = ("calls", "prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens")


class Meter:
    """Every answered LLM request of one debate run, and the share already counted on the
    debate through a stored turn, so answered requests whose turn was never stored (lease
    lost, a later call failed, the job paused) are counted too (:meth:`unstored_count`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts = dict.fromkeys(_METERED, 0)

    def answered(self, result: LLMResult) -> None:
        """Count one answered request."""
        with self._lock:
            self.counts["calls"] += 1
            for name in _METERED[1:]:
                self.counts[name] += getattr(result, name)

    def stored(self, record: TurnRecord) -> None:
        """Take a stored turn's requests off: the turn's write counted them on the debate."""
        with self._lock:
            self.counts["calls"] -= record.attempts
            for name in _METERED[1:]:
                self.counts[name] -= getattr(record, name)

    @property
    def calls(self) -> int:
        """Answered requests not yet counted on the debate."""
        return self.counts["calls"]

    def unstored_count(self, *, debate_id: int) -> None:
        """Add the answered requests whose turn was not stored to the debate's calls and
        tokens (a provider bills them all); nothing when there are none."""
        with self._lock:
            counts, self.counts = self.counts, dict.fromkeys(_METERED, 0)
        if counts["calls"] <= 0:
            return
        cost = {name: F(name) + max(value, 0) for name, value in counts.items()}
        with_connection_retry(lambda: Debate.objects.filter(pk=debate_id).update(**cost))


class GuardedClient:
    """A client for one running debate: runs ``before_call`` (the debate's turn writer's
    flush) before each call, renews the lease (stopping the debate if the job was paused, the
    lease lost or ``stop`` set), closes the database connection for the call's duration,
    retries transient errors with backoff, and meters every reply.

    With ``gate``, each call holds one of the gate's slots (renewal and call only, not the
    turn's write or a retry's wait): threads beyond the gate's size store their turns while
    others' requests are in flight, and never more requests than slots are in flight."""

    def __init__(
        self,
        inner: LLMClient,
        *,
        lease: Lease,
        attempts: int,
        sleep: Callable[[float], None],
        meter: Meter | None = None,
        stop: threading.Event | None = None,
        gate: LLMGate | None = None,
        before_call: Callable[[], None] | None = None,
    ) -> None:
        self.inner = inner
        self._before_call = before_call
        self._gate = gate
        self.model = inner.model
        self._lease, self._attempts, self._sleep = lease, attempts, sleep
        self._meter = meter or Meter()
        self._stop = stop

    @property
    def context_window(self) -> int:
        """The inner client's context, read each time: the OpenAI client lowers it when a
        server states a smaller one."""
        return self.inner.context_window

    def count_tokens(self, text: str) -> int:
        """The inner client's token count of ``text``."""
        return self.inner.count_tokens(text)

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        """One reply of the inner client, under the lease (see the class docstring)."""

        def once() -> LLMResult:
            if self._before_call is not None:
                # Outside the slot: a write of stored turns leaves the slot to a ready request.
                self._before_call()
            with self._gate or nullcontext():
                # Checked once a slot is free: a pause while this thread waited for one
                # starts no new call.
                if self._stop is not None and self._stop.is_set():
                    raise JobStopped(f"debate {self._lease.debate_id}: the run is stopping")
                lease_renew(lease=self._lease)
                database_release()
                result = self.inner.chat(messages, params)
            self._meter.answered(result)
            return result

        return call_with_retry(once, attempts=self._attempts, sleep=self._sleep)
