"""The lease a worker holds on one running debate, and everything done under it around an LLM
call: claiming the debate, renewing the lease, closing the database connection for the
call's duration, metering every answered request, storing a turn and ending the debate (each
one statement on PostgreSQL)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import nullcontext
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from debates.engine import DebateOutcome, TurnRecord
from debates.llm.base import ChatMessage, GenerationParams, LLMClient, LLMResult
from debates.models import Debate, DebateJob, Turn
from debates.retry import call_with_retry
from debates.services.common import _database_release, _with_connection_retry

RENEWED_BY_STORE_S = 0.25  # a turn stored this recently renewed the lease (see _Lease.renew)


class LeaseLost(Exception):
    """This worker no longer holds the debate (its lease expired and it was requeued)."""


class JobStopped(Exception):
    """The debate's job was paused or cancelled while the debate was running."""


class _Lease:
    """The claim one worker holds on one running debate (token + expiry)."""

    def __init__(self, debate_id: int, token: str, seconds: float) -> None:
        self.debate_id, self.token, self.seconds = debate_id, token, seconds
        # When the turn just stored also extended the lease under a running job: the renewal
        # before the next call (a few ms later) is then already done.
        self.confirmed_at: float | None = None

    def renew(self) -> None:
        """Extend the lease; raise JobStopped if the job left "running", LeaseLost if another
        worker took the debate over. A connection the server closed meanwhile is reopened.
        Skipped once right after a stored turn did the same (see :func:`_store_turn`)."""
        confirmed, self.confirmed_at = self.confirmed_at, None
        if confirmed is not None and time.monotonic() - confirmed < RENEWED_BY_STORE_S:
            return
        if connection.vendor == "postgresql":
            _with_connection_retry(self._renew_postgresql)
        else:
            _with_connection_retry(self._renew)

    def _renew_postgresql(self) -> None:
        # One statement, no ORM: this runs before every LLM call (see _store_turn_postgresql).
        with connection.cursor() as cursor:
            cursor.execute(
                _RENEW_SQL,
                [timezone.now() + timedelta(seconds=self.seconds), self.debate_id, self.token],
            )
            row = cursor.fetchone()
        if row is None:
            raise LeaseLost(f"debate {self.debate_id}: lease lost")
        if row[0] != DebateJob.Status.RUNNING:
            raise JobStopped(f"debate {self.debate_id}: its job is no longer running")

    def _renew(self) -> None:
        updated = Debate.objects.filter(
            pk=self.debate_id,
            status=Debate.Status.RUNNING,
            lease_token=self.token,
            job__status=DebateJob.Status.RUNNING,
        ).update(lease_expires_at=timezone.now() + timedelta(seconds=self.seconds))
        if updated:
            return
        held = Debate.objects.filter(
            pk=self.debate_id, status=Debate.Status.RUNNING, lease_token=self.token
        ).exists()
        if held:
            raise JobStopped(f"debate {self.debate_id}: its job is no longer running")
        raise LeaseLost(f"debate {self.debate_id}: lease lost")

    def held(self):
        """The debate row, locked, if this lease still holds it (call inside a transaction)."""
        return (
            Debate.objects.select_for_update()
            .filter(pk=self.debate_id, status=Debate.Status.RUNNING, lease_token=self.token)
            .first()
        )


class _Meter:
    """Every answered LLM request of one debate run, and the share already counted on the
    debate through a stored turn, so answered requests whose turn was never stored (lease
    lost, a later call failed, the job paused) are counted too."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = self.prompt_tokens = self.completion_tokens = 0

    def answered(self, result: LLMResult) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += result.prompt_tokens
            self.completion_tokens += result.completion_tokens

    def stored(self, record: TurnRecord) -> None:
        with self._lock:
            self.calls -= record.attempts
            self.prompt_tokens -= record.prompt_tokens
            self.completion_tokens -= record.completion_tokens

    def unstored(self) -> dict[str, Any]:
        """F() updates adding the answered-but-unstored requests to a Debate ({} if none)."""
        with self._lock:
            calls, prompt, completion = self.calls, self.prompt_tokens, self.completion_tokens
            self.calls = self.prompt_tokens = self.completion_tokens = 0
        if calls <= 0:
            return {}
        return {
            "calls": F("calls") + calls,
            "prompt_tokens": F("prompt_tokens") + max(prompt, 0),
            "completion_tokens": F("completion_tokens") + max(completion, 0),
        }


class _GuardedClient:
    """A client for one running debate: renews the lease before each call (stopping the debate
    if the job was paused, the lease lost or ``stop`` set), closes the database connection for
    the call's duration, retries transient errors with backoff, and meters every reply.

    With ``gate``, each call holds one of the gate's slots (renewal and call only, not the
    turn's write or a retry's wait): threads beyond the gate's size store their turns while
    others' requests are in flight, and never more requests than slots are in flight."""

    def __init__(
        self,
        inner: LLMClient,
        *,
        lease: _Lease,
        attempts: int,
        sleep: Callable[[float], None],
        meter: _Meter | None = None,
        stop: threading.Event | None = None,
        gate: threading.Semaphore | None = None,
    ) -> None:
        self.inner = inner
        self._gate = gate
        self.model = inner.model
        self._lease, self._attempts, self._sleep = lease, attempts, sleep
        self._meter = meter or _Meter()
        self._stop = stop

    @property
    def context_window(self) -> int:
        # Read each time: the OpenAI client lowers it when a server states a smaller one.
        return self.inner.context_window

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        def once() -> LLMResult:
            with self._gate or nullcontext():
                # Checked once a slot is free: a pause while this thread waited for one
                # starts no new call.
                if self._stop is not None and self._stop.is_set():
                    raise JobStopped(f"debate {self._lease.debate_id}: the run is stopping")
                self._lease.renew()
                _database_release()
                result = self.inner.chat(messages, params)
            self._meter.answered(result)
            return result

        return call_with_retry(once, attempts=self._attempts, sleep=self._sleep)


_DEBATE, _JOB, _TURN = (
    connection.ops.quote_name(model._meta.db_table) for model in (Debate, DebateJob, Turn)
)


# Lock and check the lease, add the cost and extend the lease, and insert the turn: one
# statement, one round trip, atomic on its own (a duplicate turn undoes the cost too). The
# ORM version (_store_turn_once) costs 4 round trips and ~4x the CPU; this runs once per LLM
# call, so it is written out (see bench/llm_throughput_bench.py).
_RENEW_SQL = f"""
UPDATE {_DEBATE} SET lease_expires_at = %s
WHERE id = %s AND status = 'running' AND lease_token = %s
RETURNING (SELECT status FROM {_JOB} WHERE id = job_id)
"""  # noqa: S608 (table names from the models; every value is a bound parameter)


_STORE_TURN_SQL = f"""
WITH held AS (
    UPDATE {_DEBATE} SET calls = calls + %(attempts)s,
        prompt_tokens = prompt_tokens + %(prompt_tokens)s,
        completion_tokens = completion_tokens + %(completion_tokens)s,
        latency_ms = latency_ms + %(latency_ms)s,
        chunk_truncated = chunk_truncated OR %(chunk_truncated)s,
        lease_expires_at = %(lease_expires_at)s
    WHERE id = %(debate_id)s AND status = 'running' AND lease_token = %(token)s
    RETURNING (SELECT status FROM {_JOB} WHERE id = job_id) AS job_status
), stored AS (
    INSERT INTO {_TURN} (debate_id, round, agent, stance, label, argument, evidence, raw,
        raw_attempts, prompt_version, parse_error, model, attempts, prompt_tokens,
        completion_tokens, latency_ms, chunk_truncated, finish_reason, created)
    SELECT %(debate_id)s, %(round)s, %(agent)s, %(stance)s, %(label)s, %(argument)s,
        %(evidence)s::jsonb, %(raw)s, %(raw_attempts)s::jsonb, %(prompt_version)s,
        %(parse_error)s, %(model)s, %(attempts)s, %(prompt_tokens)s, %(completion_tokens)s,
        %(latency_ms)s, %(chunk_truncated)s, %(finish_reason)s, %(created)s
    FROM held
    RETURNING id
)
SELECT job_status, (SELECT count(*) FROM stored) FROM held
"""  # noqa: S608 (table names from the models; every value is a bound parameter)


# Claim (pending → running, only while the job runs) and end (the outcome, only while the
# lease holds) run once per debate; written out, they skip the ORM's compile step (~0.8 ms
# each against 0.05 ms, see bench/llm_throughput_bench.py). Plain SQL, the same on SQLite
# (the demo): datetimes go through the backend's adapter, as the ORM's would.
_CLAIM_SQL = f"""
UPDATE {_DEBATE} SET status = 'running', lease_token = %s, lease_expires_at = %s,
    started = COALESCE(started, %s)
WHERE id = %s AND status = 'pending'
    AND EXISTS (SELECT 1 FROM {_JOB} WHERE id = {_DEBATE}.job_id AND status = 'running')
"""  # noqa: S608 (table names from the models; every value is a bound parameter)


_END_SQL = f"""
UPDATE {_DEBATE} SET status = %s, final_label = %s, consensus_round = %s,
    escalation_reason = %s, chunk_truncated = %s, last_error = '', lease_token = '',
    lease_expires_at = NULL, seconds = seconds + %s, finished = %s
WHERE id = %s AND status = 'running' AND lease_token = %s
"""  # noqa: S608 (table names from the models; every value is a bound parameter)


def _lease_claim(debate_id: int, seconds: float) -> _Lease | None:
    """Claim a pending debate of a running job with a new lease of ``seconds``; None if it is
    not pending (running elsewhere, ended) or its job is not running."""
    token = uuid.uuid4().hex
    now = timezone.now()
    stamp = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(
            _CLAIM_SQL, [token, stamp(now + timedelta(seconds=seconds)), stamp(now), debate_id]
        )
        if not cursor.rowcount:
            return None
    lease = _Lease(debate_id, token, seconds)
    # The claim itself checked that the job runs and set the lease: the renewal before the
    # first call, a few ms later, is already done.
    lease.confirmed_at = time.monotonic()
    return lease


def _lease_end(lease: _Lease, outcome: DebateOutcome, elapsed: float) -> bool:
    """Store the debate's outcome (agreed or escalated, lease cleared, ``elapsed`` seconds
    added) while ``lease`` still holds it; False, and nothing written, if it does not."""
    params = [
        outcome.status,
        outcome.final_label,
        outcome.consensus_round,
        outcome.escalation_reason or "",
        outcome.chunk_truncated,
        elapsed,
        connection.ops.adapt_datetimefield_value(timezone.now()),
        lease.debate_id,
        lease.token,
    ]
    with connection.cursor() as cursor:
        cursor.execute(_END_SQL, params)
        return bool(cursor.rowcount)


def _store_turn(
    lease: _Lease, record: TurnRecord, *, prompt_version: str, meter: _Meter | None = None
) -> None:
    """Persist one new turn (with the prompt version it was asked with) and add its cost to the
    debate, in one transaction; a turn already stored for (debate, round, agent) is never
    stored or counted twice. A connection the server closed during the LLM call is reopened
    and the write tried again (the reply is never asked for again)."""
    store = _store_turn_postgresql if connection.vendor == "postgresql" else _store_turn_once
    _with_connection_retry(lambda: store(lease, record, prompt_version=prompt_version))
    if meter is not None:
        meter.stored(record)


def _store_turn_postgresql(lease: _Lease, record: TurnRecord, *, prompt_version: str) -> None:
    now = timezone.now()
    params = {
        "debate_id": lease.debate_id,
        "token": lease.token,
        "lease_expires_at": now + timedelta(seconds=lease.seconds),
        "created": now,
        "round": record.round,
        "agent": record.agent,
        "stance": record.stance,
        "label": record.label,
        "argument": record.argument,
        "evidence": json.dumps(list(record.evidence)),
        "raw": record.raw,
        "raw_attempts": json.dumps(list(record.raw_attempts)),
        "prompt_version": prompt_version,
        "parse_error": record.parse_error or "",
        "model": record.model[:200],
        "attempts": record.attempts,
        "prompt_tokens": record.prompt_tokens,
        "completion_tokens": record.completion_tokens,
        "latency_ms": record.latency_ms,
        "chunk_truncated": record.chunk_truncated,
        "finish_reason": (record.finish_reason or "")[:20],
    }
    key = {"debate_id": lease.debate_id, "round": record.round, "agent": record.agent}
    try:
        # Inside a caller's transaction a failed statement needs its own savepoint.
        with transaction.atomic() if connection.in_atomic_block else nullcontext():
            with connection.cursor() as cursor:
                cursor.execute(_STORE_TURN_SQL, params)
                row = cursor.fetchone()
    except IntegrityError:
        if not Turn.objects.filter(**key).exists():
            raise
        lease.confirmed_at = None  # stored before (a retried write whose commit went through)
        return
    if row is None:
        raise LeaseLost(f"debate {lease.debate_id}: lease lost before storing a turn")
    running = row[0] == DebateJob.Status.RUNNING
    lease.confirmed_at = time.monotonic() if running else None


def _store_turn_once(lease: _Lease, record: TurnRecord, *, prompt_version: str) -> None:
    # Four round trips (BEGIN, UPDATE, INSERT, COMMIT): the conditional UPDATE both checks
    # and locks the lease, adds the cost and extends the lease; a duplicate turn rolls the
    # cost back.
    cost: dict[str, Any] = {
        "calls": F("calls") + record.attempts,
        "prompt_tokens": F("prompt_tokens") + record.prompt_tokens,
        "completion_tokens": F("completion_tokens") + record.completion_tokens,
        "latency_ms": F("latency_ms") + record.latency_ms,
        "lease_expires_at": timezone.now() + timedelta(seconds=lease.seconds),
    }
    if record.chunk_truncated:
        cost["chunk_truncated"] = True
    held = Debate.objects.filter(
        pk=lease.debate_id, status=Debate.Status.RUNNING, lease_token=lease.token
    )
    key = {"debate_id": lease.debate_id, "round": record.round, "agent": record.agent}
    try:
        with transaction.atomic():
            running = bool(held.filter(job__status=DebateJob.Status.RUNNING).update(**cost))
            if not running and not held.update(**cost):
                raise LeaseLost(f"debate {lease.debate_id}: lease lost before storing a turn")
            Turn.objects.create(
                **key,
                stance=record.stance,
                label=record.label,
                argument=record.argument,
                evidence=list(record.evidence),
                raw=record.raw,
                raw_attempts=list(record.raw_attempts),
                prompt_version=prompt_version,
                parse_error=record.parse_error or "",
                model=record.model[:200],
                attempts=record.attempts,
                prompt_tokens=record.prompt_tokens,
                completion_tokens=record.completion_tokens,
                latency_ms=record.latency_ms,
                chunk_truncated=record.chunk_truncated,
                finish_reason=(record.finish_reason or "")[:20],
            )
    except IntegrityError:
        if not Turn.objects.filter(**key).exists():
            raise
        running = False  # stored before (a retried write whose commit went through)
    lease.confirmed_at = time.monotonic() if running else None
