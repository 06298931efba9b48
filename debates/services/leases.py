"""The lease a worker holds on one running debate, and every write made under it.

A debate is run by whoever claims it: :func:`lease_claim` turns it from pending to running
with a random token and an expiry, only while its job runs, so a second delivery of the same
task finds nothing to claim (on PostgreSQL the claim also reads the debate:
:func:`debates.services.claimed.debate_claim_load`). Then, under that lease:

- :func:`lease_renew` before every LLM call extends the expiry (and says whether the job was
  paused or cancelled, or another worker took the debate over after the lease expired);
- :func:`lease_turns_store` stores answered turns with their cost, a round's two at once,
  before the debate's next round's LLM calls (when, is
  :mod:`debates.services.turn_writer`'s part);
- the debate leaves "running" once, by one of :func:`lease_end` (agreed or escalated, with
  the turns of its last round), :func:`lease_fail` (a failed attempt: back to pending, or
  failed for good) or :func:`lease_release` (given back, no attempt counted: the job
  stopped, or Ctrl-C).

Every write is a single SQL statement, or two in one transaction where turns are inserted,
the same text on PostgreSQL and SQLite (the demo), checking the token in its WHERE clause: a
worker that lost its lease writes nothing. The statements are named and documented together
in :class:`LeaseSQL` (the INSERT of n turns by :func:`turns_insert_sql`); the statuses they
compare and set are the models' choices, bound as parameters (:data:`LEASE_STATUSES`). They
run once per LLM call or per debate, so they are written out rather than built by the ORM
(whose compile step cost ~0.8 ms each, see ``bench/llm_throughput_bench.py``); datetimes go
through the backend's adapter as the ORM's would. The client that renews the lease before
each call is :class:`debates.services.guarded.GuardedClient`.
"""

from __future__ import annotations

import functools
import json
import time
import uuid
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import F, Value
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from corpora.models import Pool
from debates.engine import DebateOutcome, TurnRecord
from debates.models import Debate, DebateJob, Turn, WebhookDelivery
from debates.services.common import (
    LOCAL_QUEUE,
    MAX_ATTEMPTS,
    lease_seconds,
    retry_countdown,
    with_connection_retry,
)
from debates.services.lane import lane_run
from debates.services.queue import debates_enqueue
from debates.services.webhooks import webhook_job_event

RENEWED_BY_STORE_S = 0.25  # a turn stored this recently renewed the lease (see Lease.renew)


class LeaseLost(Exception):
    """This worker no longer holds the debate (its lease expired and it was requeued)."""


class JobStopped(Exception):
    """The debate's job was paused or cancelled while the debate was running."""


class Lease:
    """The claim one worker holds on one running debate: its token and how long each
    renewal extends it (seconds)."""

    def __init__(self, debate_id: int, token: str, seconds: float) -> None:
        self.debate_id, self.token, self.seconds = debate_id, token, seconds
        # When the claim, a stored turn or a renewal last extended the lease under a running
        # job: a renewal due within RENEWED_BY_STORE_S of it (a few ms later) is already done.
        self.confirmed_at: float | None = time.monotonic()


def _stamp(moment: datetime) -> Any:
    # A datetime as the backend stores it (SQLite: naive UTC text), as the ORM would pass it.
    return connection.ops.adapt_datetimefield_value(moment)


_DEBATE, _JOB, _TURN, _POOL = (
    connection.ops.quote_name(model._meta.db_table) for model in (Debate, DebateJob, Turn, Pool)
)

#: The statuses the lease statements compare and set, spelled once by the models' choices
#: and bound as parameters like every other value (``%(debate_running)s`` in the SQL).
LEASE_STATUSES = MappingProxyType(
    {
        "debate_pending": Debate.Status.PENDING.value,
        "debate_running": Debate.Status.RUNNING.value,
        "debate_failed": Debate.Status.FAILED.value,
        "job_running": DebateJob.Status.RUNNING.value,
        "job_finished": DebateJob.Status.FINISHED.value,
        # The pool strategies whose jobs pool_batch_next finishes (corpora.pool_strategies).
        "adaptive_a": Pool.Strategy.BANDIT.value,
        "adaptive_b": Pool.Strategy.MTC.value,
    }
)


#: The columns :data:`LeaseSQL.STORE_TURN` writes, each bound by its own name.
TURN_COLUMNS = (
    "debate_id", "round", "agent", "stance", "label", "argument", "evidence", "raw",
    "raw_attempts", "prompt_version", "parse_error", "model", "attempts", "prompt_tokens",
    "completion_tokens", "latency_ms", "chunk_truncated", "finish_reason", "reasoning",
    "reasoning_tokens", "cached_tokens", "cut_off", "attempt_log", "label_probability",
    "created",
)  # fmt: skip


def lease_params(**values: Any) -> dict[str, Any]:
    """The named parameters of a :class:`LeaseSQL` statement: ``values`` beside
    :data:`LEASE_STATUSES`."""
    return {**LEASE_STATUSES, **values}


class LeaseSQL:
    """Every statement written out by this module, in one place. Each is the same text on
    PostgreSQL and SQLite, takes named parameters (:func:`lease_params`: the statuses of
    :data:`LEASE_STATUSES` and the values named below) and checks the lease token in its
    WHERE clause, so a worker that lost its lease writes nothing. Table names come from the
    models; every value is a bound parameter."""

    #: :func:`lease_claim`: pending -> running with a new token, ``expires`` and ``started``
    #: (kept from an earlier attempt), only while the debate's job runs and is not in batch
    #: mode. One row changed: claimed; none: someone else has it, or the job is not running.
    #: A pending debate with a finish time is one ``debate_job_retry_failed`` gave back: asked
    #: again now, it starts a fresh count of attempts and is no longer ended.
    CLAIM = f"""
UPDATE {_DEBATE} SET status = %(debate_running)s, lease_token = %(token)s,
    lease_expires_at = %(expires)s, started = COALESCE(started, %(now)s),
    attempts = CASE WHEN finished IS NULL THEN attempts ELSE 0 END, finished = NULL
WHERE id = %(debate_id)s AND status = %(debate_pending)s
    AND EXISTS (
        SELECT 1 FROM {_JOB}
        WHERE id = {_DEBATE}.job_id AND status = %(job_running)s AND NOT batch
    )
"""  # noqa: S608

    #: :func:`lease_renew`: the lease extended to ``expires`` while ``token`` holds it;
    #: returns the job's status (no row: the lease is lost).
    RENEW = f"""
UPDATE {_DEBATE} SET lease_expires_at = %(expires)s
WHERE id = %(debate_id)s AND status = %(debate_running)s AND lease_token = %(token)s
RETURNING (SELECT status FROM {_JOB} WHERE id = job_id)
"""  # noqa: S608

    #: :func:`lease_turns_store`, first of two writes in one transaction: checks and locks
    #: the lease, adds the turns' cost to the debate, extends the lease to ``expires`` and
    #: returns the job's status (so turns stored under a running job also renew the lease).
    #: A duplicate turn (unique on debate, round, agent) rolls the cost back with it.
    #: (PostgreSQL could do both writes in one statement, SQLite cannot.)
    STORE_COST = f"""
UPDATE {_DEBATE} SET calls = calls + %(attempts)s,
    prompt_tokens = prompt_tokens + %(prompt_tokens)s,
    completion_tokens = completion_tokens + %(completion_tokens)s,
    reasoning_tokens = reasoning_tokens + %(reasoning_tokens)s,
    cached_tokens = cached_tokens + %(cached_tokens)s, latency_ms = latency_ms + %(latency_ms)s,
    chunk_truncated = (chunk_truncated OR %(chunk_truncated)s), lease_expires_at = %(expires)s
WHERE id = %(debate_id)s AND status = %(debate_running)s AND lease_token = %(token)s
RETURNING (SELECT status FROM {_JOB} WHERE id = job_id)
"""  # noqa: S608

    #: :func:`lease_end`: the outcome stored (agreed or escalated), the lease cleared,
    #: ``elapsed`` seconds added, with the cost of the turns stored beside it (as
    #: :data:`STORE_COST` adds it; zeros when none), while ``token`` holds the debate. Returns
    #: whether the job is a direct-call job on an adaptive pool (one that adds batches as its
    #: debates end, :func:`debates.services.pool_batches.pool_batch_next`); no row: the lease
    #: was lost and nothing is written.
    END = f"""
UPDATE {_DEBATE} SET status = %(status)s, final_label = %(final_label)s,
    consensus_round = %(consensus_round)s, escalation_reason = %(escalation_reason)s,
    chunk_truncated = %(chunk_truncated)s, last_error = '', lease_token = '',
    lease_expires_at = NULL, seconds = seconds + %(elapsed)s, finished = %(now)s,
    calls = calls + %(attempts)s, prompt_tokens = prompt_tokens + %(prompt_tokens)s,
    completion_tokens = completion_tokens + %(completion_tokens)s,
    reasoning_tokens = reasoning_tokens + %(reasoning_tokens)s,
    cached_tokens = cached_tokens + %(cached_tokens)s, latency_ms = latency_ms + %(latency_ms)s
WHERE id = %(debate_id)s AND status = %(debate_running)s AND lease_token = %(token)s
RETURNING (
    SELECT NOT j.batch AND p.strategy IN (%(adaptive_a)s, %(adaptive_b)s)
    FROM {_JOB} j JOIN {_POOL} p ON p.id = j.pool_id WHERE j.id = job_id
)
"""  # noqa: S608

    #: :func:`lease_fail`: one more attempt counted; failed for good (finished ``now``) when
    #: ``final`` or after ``max_attempts``, else back to pending; returns the new status, the
    #: attempts and the job's status.
    FAIL = f"""
UPDATE {_DEBATE} SET
    status = CASE WHEN %(final)s OR attempts + 1 >= %(max_attempts)s
        THEN %(debate_failed)s ELSE %(debate_pending)s END,
    finished = CASE WHEN %(final)s OR attempts + 1 >= %(max_attempts)s
        THEN %(now)s ELSE NULL END,
    attempts = attempts + 1, last_error = %(error)s, lease_token = '',
    lease_expires_at = NULL, seconds = seconds + %(elapsed)s
WHERE id = %(debate_id)s AND status = %(debate_running)s AND lease_token = %(token)s
RETURNING status, attempts, (SELECT status FROM {_JOB} WHERE id = job_id), job_id
"""  # noqa: S608

    #: :func:`job_finish_if_done`: a running job finished ``now`` when none of its debates is
    #: pending or running; returns its callback URL (no row: not finished by this call).
    JOB_FINISH = f"""
UPDATE {_JOB} SET status = %(job_finished)s, finished = %(now)s
WHERE id = %(job_id)s AND status = %(job_running)s AND NOT EXISTS (
    SELECT 1 FROM {_DEBATE} WHERE job_id = {_JOB}.id
        AND status IN (%(debate_pending)s, %(debate_running)s)
) AND (batch OR NOT EXISTS (
    SELECT 1 FROM {_POOL} WHERE id = {_JOB}.pool_id
        AND strategy IN (%(adaptive_a)s, %(adaptive_b)s)
))
RETURNING callback_url
"""  # noqa: S608


@functools.lru_cache(maxsize=8)
def turns_insert_sql(rows: int) -> str:
    """The INSERT of ``rows`` turns in one statement (the same text on PostgreSQL and SQLite),
    row ``i``'s columns (:data:`TURN_COLUMNS`) bound by name with suffix ``_i``
    (:func:`turn_params`), written by :func:`lease_turns_store` and :func:`lease_end`."""
    values = ", ".join(
        "(" + ", ".join(f"%({column}_{i})s" for column in TURN_COLUMNS) + ")" for i in range(rows)
    )
    return f"INSERT INTO {_TURN} ({', '.join(TURN_COLUMNS)}) VALUES {values}"  # noqa: S608


def lease_claim(*, debate_id: int, seconds: float | None = None) -> Lease | None:
    """Claim a pending debate of a running job that is not in batch mode (a batch job's
    debates advance through batch files only, never by a direct call) with a new lease of
    ``seconds`` (default
    :func:`~debates.services.common.lease_seconds`); None if it is not pending (running
    elsewhere, ended) or its job is not running. A connection the server closed while this
    worker waited is reopened: the claim is the first statement, so trying again is safe."""
    seconds = lease_seconds() if seconds is None else seconds
    token = uuid.uuid4().hex

    def claim() -> int:
        with connection.cursor() as cursor:
            cursor.execute(LeaseSQL.CLAIM, lease_claim_params(debate_id, token, seconds))
            return cursor.rowcount

    if not with_connection_retry(claim):
        return None
    return Lease(debate_id, token, seconds)


def lease_claim_params(debate_id: int, token: str, seconds: float) -> dict[str, Any]:
    """The parameters of :data:`LeaseSQL.CLAIM` claiming ``debate_id`` with ``token`` for
    ``seconds`` from now."""
    now = timezone.now()
    return lease_params(
        token=token,
        expires=_stamp(now + timedelta(seconds=seconds)),
        now=_stamp(now),
        debate_id=debate_id,
    )


def lease_renew(*, lease: Lease) -> None:
    """Extend ``lease`` by its seconds. Raises JobStopped if the job left "running",
    LeaseLost if another worker took the debate over. Skipped right after a claim, a stored
    turn or another renewal did the same (within :data:`RENEWED_BY_STORE_S`): the two turns
    of a round, asked at once, then renew once between them, not twice. A connection the
    server closed meanwhile is reopened."""
    confirmed = lease.confirmed_at
    if confirmed is not None and time.monotonic() - confirmed < RENEWED_BY_STORE_S:
        return
    lease.confirmed_at = None

    def renew() -> Any:
        expires = timezone.now() + timedelta(seconds=lease.seconds)
        with connection.cursor() as cursor:
            params = lease_params(
                expires=_stamp(expires), debate_id=lease.debate_id, token=lease.token
            )
            cursor.execute(LeaseSQL.RENEW, params)
            return cursor.fetchone()

    row = lane_run(lambda: with_connection_retry(renew))
    if row is None:
        raise LeaseLost(f"debate {lease.debate_id}: lease lost")
    if row[0] != DebateJob.Status.RUNNING:
        raise JobStopped(f"debate {lease.debate_id}: its job is no longer running")
    lease.confirmed_at = time.monotonic()


def lease_turns_store(*, lease: Lease, records: Sequence[TurnRecord], prompt_version: str) -> None:
    """Store new turns (each with the prompt version it was asked with; a round's two turns at
    once) and add their cost to the debate, in one transaction, while ``lease`` holds the
    debate; a turn already stored for (debate, round, agent) is never stored or counted twice.
    Renews the lease when the job still runs (else the next renewal finds it stopped). Raises
    LeaseLost (nothing written) if the lease no longer holds. A connection the server closed
    during the LLM call is reopened and the write tried again (a reply is never asked for
    again). Runs on the caller's thread: called on the database lane."""
    if not records:
        return
    running = with_connection_retry(lambda: _turns_write(lease, records, prompt_version))
    lease.confirmed_at = time.monotonic() if running else None


def _turns_write(lease: Lease, records: Sequence[TurnRecord], prompt_version: str) -> bool:
    """The two writes of :func:`lease_turns_store`; True when the job is still running."""
    now = timezone.now()
    cost = lease_params(
        **turns_cost(records),
        expires=_stamp(now + timedelta(seconds=lease.seconds)),
        debate_id=lease.debate_id,
        token=lease.token,
    )
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(LeaseSQL.STORE_COST, cost)
            row = cursor.fetchone()
            if row is None:
                raise LeaseLost(f"debate {lease.debate_id}: lease lost before storing a turn")
            cursor.execute(
                turns_insert_sql(len(records)),
                turn_params(lease.debate_id, records, prompt_version, now),
            )
    except IntegrityError:
        if not _turns_stored_before(lease.debate_id, records):
            raise
        return False  # stored before (a retried write whose commit went through)
    return bool(row[0] == DebateJob.Status.RUNNING)


def _turns_stored_before(debate_id: int, records: Sequence[TurnRecord]) -> bool:
    """Whether every one of ``records`` is stored (a write tried again after its commit went
    through)."""
    keys = {(record.round, record.agent) for record in records}
    stored = set(
        Turn.objects.filter(debate_id=debate_id, round__in={r for r, _ in keys}).values_list(
            "round", "agent"
        )
    )
    return keys <= stored


def turns_cost(records: Sequence[TurnRecord]) -> dict[str, Any]:
    """The cost ``records`` add to their debate: requests, tokens, latency, and whether a
    chunk was cut (the parameters of :data:`LeaseSQL.STORE_COST` and :data:`LeaseSQL.END`
    of that name)."""
    return {
        "attempts": sum(r.attempts for r in records),
        "prompt_tokens": sum(r.prompt_tokens for r in records),
        "completion_tokens": sum(r.completion_tokens for r in records),
        "reasoning_tokens": sum(r.reasoning_tokens for r in records),
        "cached_tokens": sum(r.cached_tokens for r in records),
        "latency_ms": sum(r.latency_ms for r in records),
        "chunk_truncated": any(r.chunk_truncated for r in records),
    }


def turn_params(
    debate_id: int, records: Sequence[TurnRecord], prompt_version: str, now: datetime
) -> dict[str, Any]:
    """The parameters of :func:`turns_insert_sql` for ``records``, in order."""
    params: dict[str, Any] = {}
    created = _stamp(now)
    for i, record in enumerate(records):
        row = {
            "debate_id": debate_id,
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
            "reasoning": record.reasoning,
            "reasoning_tokens": record.reasoning_tokens,
            "cached_tokens": record.cached_tokens,
            "cut_off": record.cut_off,
            "attempt_log": json.dumps(list(record.attempt_log)),
            "label_probability": record.label_probability,
            "created": created,
        }
        params.update({f"{column}_{i}": value for column, value in row.items()})
    return params


@dataclass(frozen=True, slots=True)
class LeaseEnd:
    """What :func:`lease_end` stored: ``stored`` False when the lease was lost (nothing
    written); ``adds_batches`` when the debate's job is a direct-call job on an adaptive pool,
    which may add its next batch now (:func:`debates.services.pool_batches.pool_batch_next`)."""

    stored: bool
    adds_batches: bool = False


def lease_end(
    *,
    lease: Lease,
    outcome: DebateOutcome,
    elapsed: float,
    turns: Sequence[TurnRecord] = (),
    prompt_version: str = "",
) -> LeaseEnd:
    """Store the debate's outcome (agreed or escalated, lease cleared, ``elapsed`` seconds
    added), with ``turns`` not stored yet (asked with ``prompt_version``) and their cost, in
    one transaction, while ``lease`` still holds it; ``stored`` False, and nothing written,
    if it does not. Runs on the caller's thread."""
    now = timezone.now()
    params = lease_params(
        status=outcome.status,
        final_label=outcome.final_label,
        consensus_round=outcome.consensus_round,
        escalation_reason=outcome.escalation_reason or "",
        chunk_truncated=outcome.chunk_truncated,
        elapsed=elapsed,
        now=_stamp(now),
        debate_id=lease.debate_id,
        token=lease.token,
        **{k: v for k, v in turns_cost(turns).items() if k != "chunk_truncated"},
    )

    def end() -> LeaseEnd:
        # One statement needs no transaction; with turns the two writes commit together.
        with transaction.atomic() if turns else nullcontext(), connection.cursor() as cursor:
            cursor.execute(LeaseSQL.END, params)
            row = cursor.fetchone()
            if row is None:
                return LeaseEnd(stored=False)
            if turns:
                cursor.execute(
                    turns_insert_sql(len(turns)),
                    turn_params(lease.debate_id, turns, prompt_version, now),
                )
        return LeaseEnd(stored=True, adds_batches=bool(row[0]))

    return with_connection_retry(end)


def lease_fail(
    *,
    lease: Lease,
    elapsed: float,
    error: str,
    final: bool = False,
    requeue: bool = True,
    queue: str = LOCAL_QUEUE,
) -> str | None:
    """Count a failed attempt of the leased debate: back to pending with ``error`` kept, or
    ``failed`` after :data:`~debates.services.common.MAX_ATTEMPTS` attempts (at once with
    ``final``: an error another attempt would only repeat). With ``requeue`` a debate back to
    pending under a running job is enqueued again after
    :func:`~debates.services.common.retry_countdown`. Returns the debate's new status, or
    None (nothing written) if the lease no longer held it."""
    params = lease_params(
        final=final,
        max_attempts=MAX_ATTEMPTS,
        now=_stamp(timezone.now()),
        error=error,
        elapsed=elapsed,
        debate_id=lease.debate_id,
        token=lease.token,
    )

    def fail() -> Any:
        with connection.cursor() as cursor:
            cursor.execute(LeaseSQL.FAIL, params)
            return cursor.fetchone()

    row = with_connection_retry(fail)
    if row is None:
        return None
    status, attempts, job_status, job_id = row
    if status == Debate.Status.PENDING and requeue and job_status == DebateJob.Status.RUNNING:
        countdown = retry_countdown(attempts)
        # Due again after the back-off: until then no worker is expected to take it, so a
        # worker-wait warning counts from then (debates.services.worker_wait).
        due = timezone.now() + timedelta(seconds=countdown)
        later = Greatest(Coalesce("sent", Value(due)), Value(due))
        DebateJob.objects.filter(pk=job_id).update(sent=later)
        debates_enqueue([lease.debate_id], queue=queue, countdown=countdown)
    return str(status)


def lease_release(*, lease: Lease, elapsed: float) -> None:
    """Give the leased debate back: pending, lease cleared, stored turns kept, no attempt
    counted (its job was paused or cancelled, or the run was interrupted)."""

    def release() -> None:
        Debate.objects.filter(
            pk=lease.debate_id, status=Debate.Status.RUNNING, lease_token=lease.token
        ).update(
            status=Debate.Status.PENDING,
            lease_token="",
            lease_expires_at=None,
            seconds=F("seconds") + elapsed,
        )

    with_connection_retry(release)


def job_finish_if_done(*, job_id: int) -> bool:
    """Mark a running job finished when none of its debates is pending or running; True if
    this call finished it. Called after the debate's own write committed, so of two workers
    ending the last two debates at once, the later check sees both.

    The job that this call finished sends its webhook event when it has a callback URL
    (:func:`~debates.services.webhooks.webhook_job_event`, stored in this transaction, sent
    after commit). The UPDATE returns the URL, so a call that finished nothing, or a job
    without a callback, costs no more statement. A direct-call job on an adaptive pool is
    never finished here: :func:`~debates.services.pool_batches.pool_batch_next` finishes it,
    under the job's row lock, once it has no batch left to add (an UPDATE here could judge
    "no open debate" by a snapshot older than the batch another worker is adding)."""
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        cursor.execute(LeaseSQL.JOB_FINISH, lease_params(now=_stamp(timezone.now()), job_id=job_id))
        row = cursor.fetchone()
        if row is not None and row[0]:
            webhook_job_event(job_id=job_id, event=WebhookDelivery.Event.FINISHED)
    return row is not None
