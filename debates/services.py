"""Debate jobs: create, start, run one debate, pause, resume, cancel, retry, progress.

A :class:`~debates.models.DebateJob` holds one :class:`~debates.models.Debate` per pair of its
pool. Each debate runs as one Celery task (:func:`debates.tasks.run_debate`) calling
:func:`debate_run`, which is idempotent:

- it claims the debate with a conditional UPDATE (pending → running, only while the job is
  running) and a lease (a random token and an expiry), so a second delivery of the same
  message finds nothing to claim and does nothing;
- every turn is stored in its own transaction as soon as the engine returns it
  (``get_or_create`` on (debate, round, agent)), and a restarted debate passes the stored
  turns back to the engine as ``done_turns``, so no LLM call for a stored turn is repeated;
- before every LLM call the lease is renewed; a worker that lost its lease (it was too slow
  and the debate was requeued) stops without writing, and a paused or cancelled job makes
  the debate go back to pending, its turns kept;
- transient LLM errors are retried with exponential backoff and full jitter, honouring
  Retry-After (:func:`debates.retry.call_with_retry`); when retries run out, or on any other
  error, the attempt counts as failed: the debate goes back to pending with the error kept
  and is re-enqueued after a delay, and after :data:`MAX_ATTEMPTS` failed attempts it is
  ``failed`` (re-runnable with :func:`debate_job_retry_failed`);
- a worker killed mid-debate leaves its lease to expire; :func:`debate_requeue_expired` (a
  periodic task) counts that as a failed attempt and re-enqueues the debate.

Progress is always counted from the database (:func:`debate_job_progress`).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Sum, Value
from django.db.models.functions import Coalesce, Collate
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from corpora.models import Pair, Pool
from debates import engine, prompts
from debates.api_keys import ApiKeyError, api_keys_decrypt, api_keys_encrypt
from debates.engine import DebateConfig, PairText, TurnRecord
from debates.llm import registry
from debates.llm.base import (
    ChatMessage,
    ContextTooLongError,
    GenerationParams,
    LLMClient,
    LLMResult,
)
from debates.retry import call_with_retry

from .models import Debate, DebateJob, Turn

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
MAX_CONCURRENCY = 256
RENEWED_BY_STORE_S = 0.25  # a turn stored this recently renewed the lease (see _Lease.renew)
REMOTE_CONCURRENCY = 16  # default for jobs whose agents are all remote (openai)
REMOTE_QUEUE = "llm_remote"  # Celery queue of debates whose agents are all remote
LOCAL_QUEUE = "celery"  # Celery's default queue: debates with an embedded (in-process) agent
TEST_BACKEND = "test"
TEST_FACTORY_ENV = "DREAM_TEST_LLM_FACTORY"
ERROR_CHARS = 4000


class DebateJobError(ValueError):
    """A job action that is refused (bad settings, a job in the wrong status, ...)."""


class LeaseLost(Exception):
    """This worker no longer holds the debate (its lease expired and it was requeued)."""


class JobStopped(Exception):
    """The debate's job was paused or cancelled while the debate was running."""


def _setting(name: str, default: float) -> float:
    value = getattr(settings, name, None)
    if value is None:
        value = os.environ.get(name, default)
    return float(value)


def lease_seconds() -> float:
    """How long a claimed debate stays reserved without a sign of life (seconds).

    ``DREAM_DEBATE_LEASE_SECONDS`` (setting or environment), default 600. The lease is renewed
    before every LLM call, so it must exceed the longest single call including its retries.
    """
    return _setting("DREAM_DEBATE_LEASE_SECONDS", 600)


def llm_retry_attempts() -> int:
    """Calls per LLM request before a transient error fails the attempt
    (``DREAM_LLM_RETRY_ATTEMPTS``, default 5)."""
    return int(_setting("DREAM_LLM_RETRY_ATTEMPTS", 5))


def retry_countdown(attempts: int) -> float:
    """Seconds before a debate whose attempt failed is run again: 30 s, 60 s, ... (setting
    ``DREAM_DEBATE_RETRY_SECONDS`` is the first delay)."""
    return _setting("DREAM_DEBATE_RETRY_SECONDS", 30) * 2 ** max(attempts - 1, 0)


# ---------------------------------------------------------------------------------------------
# Backends


def agent_config_validate(config: dict[str, Any] | None, *, agent: str = "A") -> dict[str, Any]:
    """A backend config made safe to store (see :func:`registry.validate_backend_config`).

    ``{"backend": "test", ...}`` is accepted only when the environment variable
    ``DREAM_TEST_LLM_FACTORY`` names a factory (the test suite's slowed or counting
    backends); it is stored as given. Raises DebateJobError naming the agent and field.
    """
    if isinstance(config, dict) and config.get("backend") == TEST_BACKEND:
        if not os.environ.get(TEST_FACTORY_ENV):
            raise DebateJobError(
                f"agent {agent}: backend 'test' exists only when {TEST_FACTORY_ENV} is set"
            )
        return dict(config)
    try:
        return registry.validate_backend_config(config)
    except ValueError as exc:
        raise DebateJobError(f"agent {agent}: {exc}") from None


_clients: dict[tuple[int, str, str], LLMClient] = {}


def agent_client_get(*, config: dict[str, Any], api_key: str | None = None) -> LLMClient:
    """The LLM client for a stored backend config, built once per process, config and key.

    ``api_key`` is a key typed in the job form (decrypted by the caller, see
    :mod:`debates.api_keys`); without one the key comes from the environment variable the
    config names. The cache is keyed by the key's SHA-256, never the key itself.
    Raises ValueError for an invalid config and PermanentLLMError for a missing model.
    """
    fingerprint = hashlib.sha256(api_key.encode("utf-8")).hexdigest() if api_key else ""
    key = (os.getpid(), repr(sorted(config.items())), fingerprint)
    client = _clients.get(key)
    if client is None:
        if config.get("backend") == TEST_BACKEND:
            path = os.environ.get(TEST_FACTORY_ENV, "")
            module, _, name = path.partition(":")
            if not module or not name:
                raise ValueError(f"{TEST_FACTORY_ENV} must be 'module:function', got {path!r}")
            client = getattr(importlib.import_module(module), name)(config)
        else:
            client = registry.client_from_config(config, api_key=api_key or None)
        _clients[key] = client
    return client


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


def _database_release() -> None:
    """Close this thread's database connection before an LLM call, unless a transaction is
    open (tests wrapped in one, or a caller's atomic block).

    An LLM call may take a minute; an idle connection held that long is closed by
    PostgreSQL's ``idle_session_timeout``, PgBouncer and managed databases, and each idle
    one takes a server slot. Django reopens the connection on the next query.
    """
    if not connection.in_atomic_block:
        connection.close()


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
    the call's duration, retries transient errors with backoff, and meters every reply."""

    def __init__(
        self,
        inner: LLMClient,
        *,
        lease: _Lease,
        attempts: int,
        sleep: Callable[[float], None],
        meter: _Meter | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.inner = inner
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
            if self._stop is not None and self._stop.is_set():
                raise JobStopped(f"debate {self._lease.debate_id}: the run is stopping")
            self._lease.renew()
            _database_release()
            result = self.inner.chat(messages, params)
            self._meter.answered(result)
            return result

        return call_with_retry(once, attempts=self._attempts, sleep=self._sleep)


# ---------------------------------------------------------------------------------------------
# Creating and extending jobs


def _code_point(field_name: str):
    # PostgreSQL sorts by the database locale unless told otherwise; "C" is code-point order,
    # the canonical (query id, doc id) order used everywhere.
    if connection.vendor == "postgresql":
        return Collate(field_name, "C")
    return field_name


def _pairs_in_order(pool: Pool):
    return Pair.objects.filter(pool=pool).order_by(
        _code_point("query__query_id"), _code_point("document__doc_id")
    )


def _add_debates(job: DebateJob, limit: int | None) -> list[int]:
    """Create a pending Debate for each pair of the job's pool that has none yet, in canonical
    order, at most ``limit``; return their ids."""
    pairs = _pairs_in_order(job.pool).exclude(
        Exists(Debate.objects.filter(job=job, pair=OuterRef("pk")))
    )
    pair_ids = list(
        pairs.values_list("pk", flat=True)[:limit] if limit else pairs.values_list("pk", flat=True)
    )
    created = Debate.objects.bulk_create(
        [Debate(job=job, pair_id=pk) for pk in pair_ids], batch_size=2000
    )
    return [d.pk for d in created]


@sensitive_variables("api_keys")
def debate_job_create(
    *,
    pool: Pool,
    agent_a: dict[str, Any] | None = None,
    agent_b: dict[str, Any] | None = None,
    rounds: int = 2,
    temperature: float = 0.0,
    max_tokens: int = 384,
    prompt_version: str = prompts.PROMPT_VERSION,
    limit: int | None = None,
    created_by: Any = None,
    judgments_per_pair: int = 1,
    audit_share: float = 0.02,
    note: str = "",
    api_keys: dict[str, str] | None = None,
    concurrency: int | None = None,
) -> DebateJob:
    """Create a running job with one pending Debate per pair of ``pool`` (nothing enqueued;
    see :func:`debate_job_start`).

    ``agent_a`` argues the initial stance "relevant", ``agent_b`` "irrelevant"; each is a
    backend config (default: embedded; ``agent_b`` defaults to ``agent_a``), stored safe (no
    API key). ``api_keys`` maps agent "A"/"B" to an API key typed in the job form: kept only
    encrypted (:mod:`debates.api_keys`), only for openai agents, agent B taking A's key when
    ``agent_b`` is None; a key wins over the config's environment variable.
    ``rounds`` is R (1..5), ``max_tokens`` the completion budget per call.
    ``limit`` takes only the first N pairs in canonical order (query id, then doc id, by code
    point). ``concurrency`` is how many debates an in-process run keeps going at once (1 to
    :data:`MAX_CONCURRENCY`; default :func:`default_concurrency`). One transaction. Raises
    DebateJobError for invalid settings or an empty pool.
    """
    config_a = agent_config_validate(agent_a, agent="A")
    config_b = agent_config_validate(agent_b if agent_b is not None else agent_a, agent="B")
    try:
        DebateConfig(rounds=rounds, temperature=temperature, max_tokens=max_tokens)
    except ValueError as exc:
        raise DebateJobError(str(exc)) from None
    if prompt_version != prompts.PROMPT_VERSION:
        raise DebateJobError(
            f"prompt version {prompt_version!r} is not available "
            f"(this code has {prompts.PROMPT_VERSION!r})"
        )
    if limit is not None and limit < 1:
        raise DebateJobError(f"limit must be at least 1, got {limit}")
    if judgments_per_pair < 1:
        raise DebateJobError(f"judgments per pair must be at least 1, got {judgments_per_pair}")
    if not 0.0 <= audit_share <= 1.0:
        raise DebateJobError(f"audit share must be between 0 and 1, got {audit_share}")
    if concurrency is None:
        concurrency = default_concurrency(config_a, config_b)
    if isinstance(concurrency, bool) or not 1 <= concurrency <= MAX_CONCURRENCY:
        raise DebateJobError(
            f"concurrency must be between 1 and {MAX_CONCURRENCY}, got {concurrency}"
        )
    keys = {agent: key for agent, key in (api_keys or {}).items() if key}
    if agent_b is None and "A" in keys:
        keys.setdefault("B", keys["A"])
    for agent, cfg in (("A", config_a), ("B", config_b)):
        if cfg.get("backend") != "openai":
            keys.pop(agent, None)
    try:
        encrypted = api_keys_encrypt(keys=keys)
    except ValueError as exc:
        raise DebateJobError(f"api_keys: {exc}") from None
    with transaction.atomic():
        job = DebateJob.objects.create(
            pool=pool,
            agent_a=config_a,
            agent_b=config_b,
            rounds=rounds,
            temperature=temperature,
            max_tokens=max_tokens,
            prompt_version=prompt_version,
            pair_limit=limit,
            judgments_per_pair=judgments_per_pair,
            audit_share=audit_share,
            note=note,
            concurrency=concurrency,
            api_keys_encrypted=encrypted,
            created_by=created_by,
        )
        if not _add_debates(job, limit):
            raise DebateJobError(f"pool {pool} has no pairs to debate")
    return job


def _runs_in_process(config: dict[str, Any]) -> bool:
    # The embedded model (and the test backend wrapping it) computes in the worker's process;
    # every other backend waits on a server.
    return config.get("backend") == "embedded" or config.get("inner") == "embedded"


def default_concurrency(agent_a: dict[str, Any], agent_b: dict[str, Any]) -> int:
    """Debates run at once by default: 1 when an agent is the embedded model (one llama.cpp
    context per process), else :data:`REMOTE_CONCURRENCY` (16) requests in flight."""
    if _runs_in_process(agent_a) or _runs_in_process(agent_b):
        return 1
    return REMOTE_CONCURRENCY


def debate_queue(*, agent_a: dict[str, Any], agent_b: dict[str, Any]) -> str:
    """The Celery queue of a job's debates: :data:`REMOTE_QUEUE` ("llm_remote", for a
    thread-pool worker keeping many requests in flight) when both agents are remote, else
    :data:`LOCAL_QUEUE` ("celery", a prefork worker: one embedded model per process)."""
    if _runs_in_process(agent_a) or _runs_in_process(agent_b):
        return LOCAL_QUEUE
    return REMOTE_QUEUE


def _job_queue(job: DebateJob) -> str:
    return debate_queue(agent_a=job.agent_a, agent_b=job.agent_b)


def _enqueue(
    debate_ids: Iterable[int], *, queue: str = LOCAL_QUEUE, countdown: float | None = None
) -> None:
    """Send one :func:`~debates.tasks.run_debate` message per debate to ``queue`` once the
    transaction commits (at once when there is none)."""
    from .tasks import run_debate

    ids = list(debate_ids)
    if not ids:
        return

    def send() -> None:
        for pk in ids:
            run_debate.apply_async((pk,), countdown=countdown, queue=queue)

    transaction.on_commit(send)


def _pending_ids(job: DebateJob) -> list[int]:
    return list(
        job.debates.filter(status=Debate.Status.PENDING).order_by("pk").values_list("pk", flat=True)
    )


def _locked(job: DebateJob) -> DebateJob:
    return DebateJob.objects.select_for_update().get(pk=job.pk)


def debate_job_start(*, job: DebateJob, enqueue: bool = True) -> int:
    """Mark a running job started and enqueue its pending debates after commit.

    With ``enqueue=False`` nothing is sent (the caller runs the debates in-process, see
    :func:`debate_job_run_inline`). Returns the number of pending debates. Raises
    DebateJobError unless the job is running.
    """
    with transaction.atomic():
        locked = _locked(job)
        if locked.status != DebateJob.Status.RUNNING:
            raise DebateJobError(f"job {job.pk} is {locked.status}; only a running job starts")
        if locked.started is None:
            locked.started = timezone.now()
            locked.save(update_fields=["started"])
        pending = _pending_ids(locked)
        if enqueue:
            _enqueue(pending, queue=_job_queue(locked))
    job.refresh_from_db()
    return len(pending)


def debate_job_extend(*, job: DebateJob, limit: int | None = None, enqueue: bool = True) -> int:
    """Create Debates for the pool's pairs that have none in this job (pairs added to the pool
    since), at most ``limit``, in canonical order; earlier debates are never repeated.

    A finished job runs again; the new debates of a running job are enqueued after commit.
    Returns the number created. Raises DebateJobError for a cancelled job.
    """
    with transaction.atomic():
        locked = _locked(job)
        if locked.status == DebateJob.Status.CANCELLED:
            raise DebateJobError(f"job {job.pk} is cancelled")
        created = _add_debates(locked, limit)
        if created and locked.status == DebateJob.Status.FINISHED:
            locked.status, locked.finished = DebateJob.Status.RUNNING, None
            locked.save(update_fields=["status", "finished"])
        if created and enqueue and locked.status == DebateJob.Status.RUNNING:
            _enqueue(created, queue=_job_queue(locked))
    job.refresh_from_db()
    return len(created)


# ---------------------------------------------------------------------------------------------
# Running one debate


def pair_text_build(*, pair: Pair) -> PairText:
    """What the agents see of a pair: query, reference answers, title and chunk."""
    return PairText(
        query_id=pair.query.query_id,
        query=pair.query.text,
        doc_id=pair.document.doc_id,
        title=pair.document.title,
        chunk=pair.document.text,
        answers=tuple(str(a) for a in (pair.query.answers or ())),
    )


def turn_record_build(*, turn: Turn) -> TurnRecord:
    """A stored Turn as the engine's TurnRecord (for resuming)."""
    return TurnRecord(
        round=turn.round,
        agent=turn.agent,
        stance=turn.stance,
        label=turn.label,
        argument=turn.argument,
        evidence=tuple(turn.evidence or ()),
        raw=turn.raw,
        raw_attempts=tuple(turn.raw_attempts or ()),
        model=turn.model,
        prompt_tokens=turn.prompt_tokens,
        completion_tokens=turn.completion_tokens,
        latency_ms=turn.latency_ms,
        attempts=turn.attempts,
        parse_error=turn.parse_error or None,
        chunk_truncated=turn.chunk_truncated,
        finish_reason=turn.finish_reason,
    )


def _with_connection_retry(write: Callable[[], Any], *, tries: int = 3) -> Any:
    """Run ``write`` (its own transaction), reopening the connection and trying again when
    the server closed it (idle timeout, a pooler or a restart: OperationalError or
    InterfaceError). Inside a caller's transaction nothing is retried."""
    for attempt in range(1, tries + 1):
        try:
            return write()
        except (OperationalError, InterfaceError):
            if connection.in_atomic_block or attempt == tries:
                raise
            log.warning("database connection lost; reconnecting (try %d/%d)", attempt, tries)
            connection.close()
    raise AssertionError("unreachable")


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


def _job_finish_if_done(job_id: int) -> bool:
    """Mark a running job finished when none of its debates is pending or running.

    Called after the debate's own transaction committed, so of two workers finishing the last
    two debates at once, the later check sees both.
    """
    open_debates = Debate.objects.filter(
        job_id=OuterRef("pk"), status__in=[Debate.Status.PENDING, Debate.Status.RUNNING]
    )
    return bool(
        DebateJob.objects.filter(pk=job_id, status=DebateJob.Status.RUNNING)
        .exclude(Exists(open_debates))
        .update(status=DebateJob.Status.FINISHED, finished=timezone.now())
    )


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]


def _count_unstored(debate_id: int, meter: _Meter) -> None:
    """Add the answered requests whose turn was not stored to the debate's calls and tokens
    (a provider bills them all)."""
    cost = meter.unstored()
    if cost:
        _with_connection_retry(lambda: Debate.objects.filter(pk=debate_id).update(**cost))


def _record_failure(
    lease: _Lease,
    job_id: int,
    elapsed: float,
    error: str,
    *,
    requeue: bool,
    final: bool = False,
    queue: str = LOCAL_QUEUE,
) -> None:
    """Count a failed attempt: back to pending with the error, or failed after MAX_ATTEMPTS
    (at once with ``final``: an error that another attempt would only repeat)."""
    now = timezone.now()
    with transaction.atomic():
        debate = lease.held()
        if debate is None:
            log.warning("debate %s failed after losing its lease: %s", lease.debate_id, error)
            return
        attempts = debate.attempts + 1
        failed = final or attempts >= MAX_ATTEMPTS
        Debate.objects.filter(pk=debate.pk).update(
            status=Debate.Status.FAILED if failed else Debate.Status.PENDING,
            attempts=attempts,
            last_error=error,
            lease_token="",
            lease_expires_at=None,
            seconds=F("seconds") + elapsed,
            finished=now if failed else None,
        )
        if not failed and requeue:
            running = DebateJob.objects.filter(pk=job_id, status=DebateJob.Status.RUNNING).exists()
            if running:
                _enqueue([debate.pk], queue=queue, countdown=retry_countdown(attempts))
    log.warning(
        "debate %s attempt %d/%d failed%s: %s",
        lease.debate_id,
        attempts,
        MAX_ATTEMPTS,
        " (now failed)" if failed else "",
        error,
    )
    if failed:
        _job_finish_if_done(job_id)


def _release(lease: _Lease, elapsed: float) -> None:
    """Give a debate back (pending, turns kept, no attempt counted): its job was paused."""
    Debate.objects.filter(
        pk=lease.debate_id, status=Debate.Status.RUNNING, lease_token=lease.token
    ).update(
        status=Debate.Status.PENDING,
        lease_token="",
        lease_expires_at=None,
        seconds=F("seconds") + elapsed,
    )


def _claim(debate_id: int, seconds: float) -> _Lease | None:
    token = uuid.uuid4().hex
    now = timezone.now()
    claimed = Debate.objects.filter(
        pk=debate_id,
        status=Debate.Status.PENDING,
        job__status=DebateJob.Status.RUNNING,
    ).update(
        status=Debate.Status.RUNNING,
        lease_token=token,
        lease_expires_at=now + timedelta(seconds=seconds),
        started=Coalesce(F("started"), Value(now)),
    )
    return _Lease(debate_id, token, seconds) if claimed else None


def debate_run(
    *,
    debate: Debate,
    requeue: bool = True,
    sleep: Callable[[float], None] = time.sleep,
    stop: threading.Event | None = None,
) -> Debate:
    """Run (or resume) one debate to its end; idempotent. Returns the debate as stored after.

    Claims the debate (pending → running, only while its job is running, with a lease of
    :func:`lease_seconds`); if it cannot be claimed (already running elsewhere, finished,
    failed, or its job paused/cancelled) nothing happens. Stored turns are passed to
    :func:`debates.engine.debate_pair` as done turns, each new turn is stored before the next
    LLM call. On the outcome the debate becomes ``agreed`` (final label, consensus round) or
    ``escalated`` (reason "disagreement" or "unparsed"), and the job ``finished`` when it
    was its last open debate.

    Errors are recorded, never raised: a TransientLLMError left after
    :func:`llm_retry_attempts` calls, or any other exception, is a failed attempt (see the
    module docstring); with ``requeue`` the debate is re-enqueued after
    :func:`retry_countdown`. A ContextTooLongError (the prompt cannot fit even with an empty
    chunk, or the server refused it and stated no smaller context to fit to) leaves the debate
    ``failed`` at once: another attempt would send the same prompt. ``sleep`` is the wait used
    between LLM retries. KeyboardInterrupt and SystemExit give the debate back (pending, lease
    cleared, stored turns kept, no attempt counted) and are raised again; so does ``stop``
    once set (checked before each LLM call; an in-process run sets it on Ctrl-C).

    No transaction or connection is held across an LLM call (see :func:`_database_release`);
    every answered request is counted in the debate's calls and tokens, stored or not.
    """
    # A worker thread's connection may have been closed by the server while it waited for
    # this task; the claim is the first statement, so it is safe to try again.
    lease = _with_connection_retry(lambda: _claim(debate.pk, lease_seconds()))
    if lease is None:
        return Debate.objects.get(pk=debate.pk)
    # Callers may pass an unloaded Debate(pk=...): the job is read from the row.
    row = Debate.objects.select_related("job", "pair__query", "pair__document").get(pk=debate.pk)
    job_id = row.job_id
    started = time.monotonic()
    meter = _Meter()
    queue = LOCAL_QUEUE
    try:
        job = row.job
        queue = _job_queue(job)
        config = DebateConfig(
            rounds=job.rounds,
            temperature=job.temperature,
            max_tokens=job.max_tokens,
            prompt_version=job.prompt_version,
        )
        done = [turn_record_build(turn=t) for t in row.turns.order_by("round", "agent")]
        keys = api_keys_decrypt(token=job.api_keys_encrypted)
        clients = [
            _GuardedClient(
                agent_client_get(config=cfg, api_key=keys.get(agent)),
                lease=lease,
                attempts=llm_retry_attempts(),
                sleep=sleep,
                meter=meter,
                stop=stop,
            )
            for agent, cfg in (("A", job.agent_a), ("B", job.agent_b))
        ]
        outcome = engine.debate_pair(
            pair_text_build(pair=row.pair),
            clients[0],
            clients[1],
            config,
            done_turns=done,
            on_turn=lambda record: _store_turn(
                lease, record, prompt_version=job.prompt_version, meter=meter
            ),
        )
    except LeaseLost as exc:
        log.warning("%s; another worker owns it now", exc)
        _count_unstored(debate.pk, meter)
        return Debate.objects.get(pk=debate.pk)
    except JobStopped:
        _count_unstored(debate.pk, meter)
        _with_connection_retry(lambda: _release(lease, time.monotonic() - started))
        return Debate.objects.get(pk=debate.pk)
    except (ContextTooLongError, ApiKeyError) as exc:
        # The same prompt cannot fit the next time either, and an undecryptable key stays
        # so: failed at once, not retried.
        error = _error_text(exc)
        _count_unstored(debate.pk, meter)
        _with_connection_retry(
            lambda: _record_failure(
                lease,
                job_id,
                time.monotonic() - started,
                error,
                requeue=False,
                final=True,
            )
        )
        return Debate.objects.get(pk=debate.pk)
    except Exception as exc:  # every failure is recorded on the debate, never lost
        error = _error_text(exc)
        _count_unstored(debate.pk, meter)
        _with_connection_retry(
            lambda: _record_failure(
                lease,
                job_id,
                time.monotonic() - started,
                error,
                requeue=requeue,
                queue=queue,
            )
        )
        return Debate.objects.get(pk=debate.pk)
    except BaseException:
        # Ctrl-C or exit (in-process runs): give the debate back with its stored turns, so
        # the next run resumes it at once instead of waiting for the lease to expire.
        try:
            _count_unstored(debate.pk, meter)
            _release(lease, time.monotonic() - started)
        except Exception:  # e.g. the interrupt broke the connection: the lease will expire
            log.exception("debate %s: could not give the debate back", debate.pk)
        raise
    # One conditional UPDATE: stored only while this lease still holds the debate.
    ended = _with_connection_retry(
        lambda: Debate.objects.filter(
            pk=debate.pk, status=Debate.Status.RUNNING, lease_token=lease.token
        ).update(
            status=outcome.status,
            final_label=outcome.final_label,
            consensus_round=outcome.consensus_round,
            escalation_reason=outcome.escalation_reason or "",
            chunk_truncated=outcome.chunk_truncated,
            last_error="",
            lease_token="",
            lease_expires_at=None,
            seconds=F("seconds") + (time.monotonic() - started),
            finished=timezone.now(),
        )
    )
    if not ended:
        log.warning("debate %s finished after losing its lease; not stored", debate.pk)
        return Debate.objects.get(pk=debate.pk)
    _job_finish_if_done(job_id)
    return Debate.objects.get(pk=debate.pk)


def debate_job_run_inline(
    *,
    job: DebateJob,
    on_debate: Callable[[Debate], None] | None = None,
    concurrency: int | None = None,
) -> None:
    """Run a job's pending debates in this process (no broker needed), up to ``concurrency``
    at once (default: the job's ``concurrency``), each in its own thread with its own
    database connection; so at most that many LLM requests are in flight.

    A debate whose attempt failed is run again right away until it finishes or fails for
    good (:data:`MAX_ATTEMPTS`). Debates of this job left running by a process that died
    (lease expired) are requeued first (:func:`debate_requeue_expired`, one failed attempt
    each) and resumed from their stored turns: without a broker there is no Celery beat to do
    it. Stops early when the job leaves "running": no debate starts after a pause, and the
    calls in flight finish and are stored. ``on_debate`` is called after each debate run
    (e.g. to move a progress bar), from one thread at a time. On KeyboardInterrupt the
    threads stop before their next LLM call, give their debates back (pending, turns kept)
    and the interrupt is raised again.
    """
    width = concurrency if concurrency is not None else job.concurrency
    width = max(1, min(int(width or 1), MAX_CONCURRENCY))
    if connection.in_atomic_block:
        width = 1  # other threads' connections would not see this transaction's rows
    tried: dict[int, int] = {}
    while True:
        debate_requeue_expired(enqueue=False, job=job)
        job.refresh_from_db()
        if job.status != DebateJob.Status.RUNNING:
            return
        pending = [pk for pk in _pending_ids(job) if tried.get(pk, 0) <= MAX_ATTEMPTS]
        if not pending:
            _job_finish_if_done(job.pk)
            job.refresh_from_db()
            return
        for pk in pending:
            tried[pk] = tried.get(pk, 0) + 1
        if width > 1:
            _database_release()  # this thread's connection would idle while the threads run
        if not _run_batch(pending, width=width, on_debate=on_debate):
            return  # released: the job was paused or cancelled meanwhile


def _run_batch(
    pending: list[int], *, width: int, on_debate: Callable[[Debate], None] | None
) -> bool:
    """Run ``pending`` debates, ``width`` at a time; False when one was given back (the job
    stopped), after which no further debate starts."""
    ids = iter(pending)
    lock = threading.Lock()
    stop = threading.Event()
    errors: list[BaseException] = []

    def work(threaded: bool) -> None:
        try:
            while not stop.is_set():
                with lock:
                    pk = next(ids, None)
                if pk is None:
                    return
                debate = debate_run(debate=Debate(pk=pk), requeue=False, stop=stop)
                if on_debate is not None:
                    with lock:
                        on_debate(debate)
                if debate.status == Debate.Status.PENDING and not debate.last_error:
                    stop.set()
        except BaseException as exc:  # re-raised by the calling thread
            stop.set()
            errors.append(exc)
        finally:
            if threaded:
                connection.close()

    if width == 1:
        work(threaded=False)
    else:
        threads = [
            threading.Thread(target=work, args=(True,), name=f"debate-{n}", daemon=True)
            for n in range(min(width, len(pending)))
        ]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                thread.join()
        except BaseException:
            # Ctrl-C: the threads stop before their next call and give their debates back.
            stop.set()
            for thread in threads:
                thread.join()
            raise
    if errors:
        raise errors[0]
    return not stop.is_set()


# ---------------------------------------------------------------------------------------------
# Job controls


def debate_job_pause(*, job: DebateJob) -> None:
    """Pause a running job: queued debates do nothing, running ones stop before their next LLM
    call (turns kept). Raises DebateJobError unless the job is running."""
    if not DebateJob.objects.filter(pk=job.pk, status=DebateJob.Status.RUNNING).update(
        status=DebateJob.Status.PAUSED
    ):
        job.refresh_from_db()
        raise DebateJobError(f"job {job.pk} is {job.status}; only a running job can be paused")
    job.refresh_from_db()


def debate_job_resume(*, job: DebateJob, enqueue: bool = True) -> int:
    """Resume a paused job: enqueue its pending debates again (a debate queued twice runs
    once). Returns the number enqueued. Raises DebateJobError unless the job is paused."""
    with transaction.atomic():
        locked = _locked(job)
        if locked.status != DebateJob.Status.PAUSED:
            raise DebateJobError(f"job {job.pk} is {locked.status}; only a paused job resumes")
        locked.status = DebateJob.Status.RUNNING
        locked.started = locked.started or timezone.now()
        locked.save(update_fields=["status", "started"])
        pending = _pending_ids(locked)
        if enqueue:
            _enqueue(pending, queue=_job_queue(locked))
    _job_finish_if_done(job.pk)
    job.refresh_from_db()
    return len(pending)


def debate_job_cancel(*, job: DebateJob) -> None:
    """Cancel a running or paused job for good: no further debate starts, running ones stop
    before their next LLM call; finished debates and stored turns are kept.
    Raises DebateJobError for a finished or cancelled job."""
    if not DebateJob.objects.filter(
        pk=job.pk, status__in=[DebateJob.Status.RUNNING, DebateJob.Status.PAUSED]
    ).update(status=DebateJob.Status.CANCELLED, finished=timezone.now()):
        job.refresh_from_db()
        raise DebateJobError(f"job {job.pk} is {job.status}; it cannot be cancelled")
    job.refresh_from_db()


def debate_job_retry_failed(*, job: DebateJob, enqueue: bool = True) -> int:
    """Give the job's failed debates a fresh set of attempts: back to pending (stored turns and
    the last error kept), a finished job running again, and enqueued if the job is running.
    Returns how many. Raises DebateJobError for a cancelled job."""
    with transaction.atomic():
        locked = _locked(job)
        if locked.status == DebateJob.Status.CANCELLED:
            raise DebateJobError(f"job {job.pk} is cancelled")
        failed = list(
            locked.debates.filter(status=Debate.Status.FAILED).values_list("pk", flat=True)
        )
        Debate.objects.filter(pk__in=failed).update(
            status=Debate.Status.PENDING, attempts=0, finished=None
        )
        if failed and locked.status == DebateJob.Status.FINISHED:
            locked.status, locked.finished = DebateJob.Status.RUNNING, None
            locked.save(update_fields=["status", "finished"])
        if enqueue and locked.status == DebateJob.Status.RUNNING:
            _enqueue(failed, queue=_job_queue(locked))
    job.refresh_from_db()
    return len(failed)


def debate_requeue_expired(
    *, now: datetime | None = None, enqueue: bool = True, job: DebateJob | None = None
) -> int:
    """Requeue running debates whose lease expired (their worker died or hung).

    Each counts as a failed attempt ("worker lost"): back to pending and re-enqueued if its
    job is running, or ``failed`` after :data:`MAX_ATTEMPTS`. Also finishes running jobs with
    no open debate left. Returns how many debates were requeued or failed. Run periodically
    (Celery beat, :func:`debates.tasks.requeue_expired_debates`), and by
    :func:`debate_job_run_inline` for its ``job`` only (no beat without a broker).
    """
    now = now or timezone.now()
    touched_jobs: set[int] = set()
    to_enqueue: list[int] = []
    scope = Debate.objects.filter(job=job) if job is not None else Debate.objects.all()
    with transaction.atomic():
        expired = list(
            scope.select_for_update(skip_locked=True, of=("self",))
            .filter(status=Debate.Status.RUNNING, lease_expires_at__lt=now)
            .values_list(
                "pk",
                "job_id",
                "job__status",
                "attempts",
                "lease_expires_at",
                "job__agent_a",
                "job__agent_b",
            )
        )
        queues: dict[int, str] = {}
        for pk, job_id, job_status, attempts, expired_at, agent_a, agent_b in expired:
            failed = attempts + 1 >= MAX_ATTEMPTS
            Debate.objects.filter(pk=pk).update(
                status=Debate.Status.FAILED if failed else Debate.Status.PENDING,
                attempts=attempts + 1,
                last_error=(
                    f"worker lost: the lease expired at {expired_at.isoformat()} "
                    "(killed, out of memory or hung)"
                ),
                lease_token="",
                lease_expires_at=None,
                finished=now if failed else None,
            )
            touched_jobs.add(job_id)
            if not failed and job_status == DebateJob.Status.RUNNING:
                to_enqueue.append((pk, job_id))
                queues[job_id] = debate_queue(agent_a=agent_a, agent_b=agent_b)
        if enqueue:
            for queue in set(queues.values()):
                _enqueue([pk for pk, j in to_enqueue if queues[j] == queue], queue=queue)
    if expired:
        log.warning("requeued %d debate(s) whose lease expired", len(expired))
    running_jobs = DebateJob.objects.filter(status=DebateJob.Status.RUNNING)
    if job is not None:
        running_jobs = running_jobs.filter(pk=job.pk)
    for job_id in set(running_jobs.values_list("pk", flat=True)) | touched_jobs:
        _job_finish_if_done(job_id)
    return len(expired)


# ---------------------------------------------------------------------------------------------
# Progress


@dataclass(frozen=True)
class JobProgress:
    """Counts for one job, from the database. Tokens are counts, seconds wall time."""

    job_id: int
    status: str
    total: int
    pending: int
    running: int
    agreed: int
    escalated: int
    failed: int
    agreed_by_round: dict[int, int] = field(default_factory=dict)
    escalated_by_reason: dict[str, int] = field(default_factory=dict)
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def done(self) -> int:
        """Debates that reached an end: agreed, escalated or failed."""
        return self.agreed + self.escalated + self.failed

    def per_pair(self, value: float) -> float:
        """``value`` divided by the finished debates (0 when none)."""
        return value / self.done if self.done else 0.0


def debate_job_progress(*, job: DebateJob) -> JobProgress:
    """Count the job's debates by status, agreed ones by consensus round, escalated ones by
    reason, and sum calls, tokens and seconds (over all debates, finished or not)."""
    by_status = dict(
        job.debates.values_list("status").annotate(n=Count("pk")).values_list("status", "n")
    )
    agreed_by_round = dict(
        job.debates.filter(status=Debate.Status.AGREED)
        .values_list("consensus_round")
        .annotate(n=Count("pk"))
        .order_by("consensus_round")
        .values_list("consensus_round", "n")
    )
    escalated_by_reason = dict(
        job.debates.filter(status=Debate.Status.ESCALATED)
        .values_list("escalation_reason")
        .annotate(n=Count("pk"))
        .order_by("escalation_reason")
        .values_list("escalation_reason", "n")
    )
    sums = job.debates.aggregate(
        calls=Coalesce(Sum("calls"), 0),
        prompt_tokens=Coalesce(Sum("prompt_tokens"), 0),
        completion_tokens=Coalesce(Sum("completion_tokens"), 0),
        seconds=Coalesce(Sum("seconds"), 0.0),
    )
    status = DebateJob.objects.filter(pk=job.pk).values_list("status", flat=True).get()
    return JobProgress(
        job_id=job.pk,
        status=status,
        total=sum(by_status.values()),
        pending=by_status.get(Debate.Status.PENDING, 0),
        running=by_status.get(Debate.Status.RUNNING, 0),
        agreed=by_status.get(Debate.Status.AGREED, 0),
        escalated=by_status.get(Debate.Status.ESCALATED, 0),
        failed=by_status.get(Debate.Status.FAILED, 0),
        agreed_by_round=agreed_by_round,
        escalated_by_reason=escalated_by_reason,
        calls=sums["calls"],
        prompt_tokens=sums["prompt_tokens"],
        completion_tokens=sums["completion_tokens"],
        seconds=float(sums["seconds"]),
    )


# ---------------------------------------------------------------------------------------------
# Measuring the assessor on pairs whose gold label is known

# Benchmarks whose judgments are dense enough that an unjudged, top-ranked document of a
# judged query may be taken as irrelevant (see the evaluate_assessor README section).
DENSE_JUDGMENT_DATASETS = ("nfcorpus-test", "nfcorpus", "cranfield", "cisi", "med", "vaswani")


@dataclass(frozen=True)
class EvaluationSample:
    """A pool of gold-labelled pairs for measuring the assessor.

    ``negatives`` says where the irrelevant pairs came from: ``"judged"`` (grade <= 0 in the
    qrels) or ``"unjudged"`` (top-ranked by ``run`` at rank <= ``depth``, not judged).
    """

    pool: Pool
    relevant: int
    irrelevant: int
    negatives: str
    run: Any = None
    depth: int = 10


def evaluation_pool_create(
    *,
    dataset: Any,
    qrel_set: Any,
    sample: int,
    seed: int = 0,
    run: Any = None,
    depth: int = 10,
    unjudged_negatives: bool = False,
) -> EvaluationSample:
    """Create (or reuse) pool ``eval-<qrels>-n<sample>-seed<seed>`` of a stratified sample of
    pairs with a known gold label: half judged relevant (grade > 0), half irrelevant.

    Irrelevant pairs are the qrels' judged non-relevant ones (grade <= 0) when there are any;
    otherwise unjudged pairs ranked in the top ``depth`` of ``run`` for a judged query, which
    is only sound where judgments are dense: the dataset must be in
    :data:`DENSE_JUDGMENT_DATASETS` or ``unjudged_negatives`` must be given. The draw uses
    ``random.Random(seed)`` over pairs in canonical order, so it is reproducible. Pairs keep
    their grade (``original_relevance``; None for unjudged) and the pool re-judges judged
    pairs (``include_judged``). One transaction. Raises DebateJobError.
    """
    import random

    from corpora.models import PairSource, RunEntry

    from .assessment import stratified_sample

    if sample < 2:
        raise DebateJobError(f"sample must be at least 2, got {sample}")
    order = ("query__query_id", "document__doc_id")
    judged = qrel_set.qrels.order_by(*[_code_point(f) for f in order]).values_list(
        "query_id", "document_id", "relevance"
    )
    relevant = [(q, d, g) for q, d, g in judged if g > 0]
    negatives = [(q, d, g) for q, d, g in judged if g <= 0]
    source, entries = "judged", {}
    if not negatives:
        if not (unjudged_negatives or dataset.slug in DENSE_JUDGMENT_DATASETS):
            raise DebateJobError(
                f"qrels {qrel_set.name!r} of {dataset.slug!r} judge no pair non-relevant, and "
                "unjudged pairs count as irrelevant only where judgments are dense "
                f"({', '.join(DENSE_JUDGMENT_DATASETS)}); pass --unjudged-negatives to "
                "assume so"
            )
        if run is None:
            raise DebateJobError("a run is needed to take top-ranked unjudged pairs")
        source = "unjudged"
        judged_pairs = {(q, d) for q, d, _ in judged}
        judged_queries = {q for q, _, _ in judged}
        rows = (
            RunEntry.objects.filter(run=run, rank__lte=depth, query_id__in=judged_queries)
            .order_by(*[_code_point(f) for f in order])
            .values_list("query_id", "document_id", "rank", "score")
        )
        for q, d, rank, score in rows:
            if (q, d) not in judged_pairs:
                negatives.append((q, d, None))
                entries[(q, d)] = (rank, score)
    rel, irr = stratified_sample(relevant, negatives, size=sample, rng=random.Random(seed))
    name = f"eval-{qrel_set.name}-n{sample}-seed{seed}"
    with transaction.atomic():
        pool, created = Pool.objects.get_or_create(
            dataset=dataset,
            name=name,
            defaults={"qrel_set": qrel_set, "depth": depth, "include_judged": True},
        )
        if not created and pool.qrel_set_id != qrel_set.pk:
            raise DebateJobError(f"pool {name!r} exists for qrels {pool.qrel_set.name!r}")
        if run is not None and source == "unjudged":
            pool.runs.add(run)
        have = set(pool.pairs.values_list("query_id", "document_id"))
        new = [
            Pair(pool=pool, query_id=q, document_id=d, original_relevance=g)
            for q, d, g in rel + irr
            if (q, d) not in have
        ]
        Pair.objects.bulk_create(new)
        if entries:
            PairSource.objects.bulk_create(
                [
                    PairSource(pair=p, run=run, rank=entries[key][0], score=entries[key][1])
                    for p in new
                    if (key := (p.query_id, p.document_id)) in entries
                ]
            )
    return EvaluationSample(
        pool=pool, relevant=len(rel), irrelevant=len(irr), negatives=source, run=run, depth=depth
    )


def single_judge_run(
    *,
    pool: Pool,
    agent: dict[str, Any],
    rounds: int = 1,
    temperature: float = 0.0,
    max_tokens: int = 384,
    on_pair: Callable[[int], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    concurrency: int = 1,
) -> dict[int, TurnRecord | str]:
    """The single-LLM-judge baseline (:func:`debates.engine.judge_single`: one neutral call,
    at most one re-ask, no debate) on every pair of ``pool``, in this process.

    Returns ``{pair id: TurnRecord}``, or the error text when the LLM failed after the
    retries of :func:`llm_retry_attempts`. Nothing is stored. ``on_pair(pair_id)`` is called
    after each pair (one thread at a time). ``concurrency`` pairs are judged at once.
    """
    from debates.llm.base import LLMError

    config = DebateConfig(rounds=rounds, temperature=temperature, max_tokens=max_tokens)
    client = agent_client_get(config=agent_config_validate(agent))
    attempts = llm_retry_attempts()

    class _Retrying:
        model = client.model

        @property
        def context_window(self) -> int:
            return client.context_window

        def count_tokens(self, text: str) -> int:
            return client.count_tokens(text)

        def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
            return call_with_retry(
                lambda: client.chat(messages, params), attempts=attempts, sleep=sleep
            )

    results: dict[int, TurnRecord | str] = {}
    texts = [
        (pair.pk, pair_text_build(pair=pair))
        for pair in _pairs_in_order(pool).select_related("query", "document")
    ]
    lock = threading.Lock()

    def judge(item: tuple[int, PairText]) -> None:
        pk, text = item
        try:
            verdict: TurnRecord | str = engine.judge_single(text, _Retrying(), config)
        except LLMError as exc:
            verdict = _error_text(exc)
        with lock:
            results[pk] = verdict
            if on_pair is not None:
                on_pair(pk)

    if concurrency <= 1:
        for item in texts:
            judge(item)
    else:
        from concurrent.futures import ThreadPoolExecutor

        _database_release()  # nothing is read or written while the judges run
        with ThreadPoolExecutor(max_workers=min(concurrency, MAX_CONCURRENCY)) as executor:
            list(executor.map(judge, texts))
    return {pk: results[pk] for pk, _ in texts}


@dataclass(frozen=True)
class AssessorReport:
    """The debate job's and the single judge's scores on the same gold pairs."""

    debate: Any  # assessment.AssessorScores
    single: Any  # assessment.AssessorScores | None


def assessor_evaluate(
    *, job: DebateJob, baseline: dict[int, TurnRecord | str] | None = None
) -> AssessorReport:
    """Score a finished job on its pool's gold labels (see :mod:`debates.assessment`), and the
    single-judge ``baseline`` (from :func:`single_judge_run`) on the same pairs.

    Debates that are not agreed count as escalated (a human decides) or, when failed or not
    finished, as failed; a baseline reply that could not be read counts as escalated (not
    labelled), an LLM error as failed. Calls are LLM calls including re-asks.
    """
    from . import assessment

    rows, calls = [], 0
    gold_by_pair: dict[int, int] = {}
    for debate in job.debates.select_related("pair"):
        gold = assessment.gold_label(debate.pair.original_relevance)
        gold_by_pair[debate.pair_id] = gold
        calls += debate.calls
        if debate.status == Debate.Status.AGREED:
            rows.append((gold, int(debate.final_label)))
        elif debate.status == Debate.Status.ESCALATED:
            rows.append((gold, assessment.ESCALATED))
        else:
            rows.append((gold, assessment.FAILED))
    single = None
    if baseline is not None:
        single_rows, single_calls = [], 0
        for pair_id, gold in gold_by_pair.items():
            verdict = baseline.get(pair_id)
            if isinstance(verdict, TurnRecord):
                single_calls += verdict.attempts
                outcome = assessment.ESCALATED if verdict.label is None else verdict.label
            else:
                outcome = assessment.FAILED
            single_rows.append((gold, outcome))
        single = assessment.assessor_scores(single_rows, calls=single_calls)
    return AssessorReport(debate=assessment.assessor_scores(rows, calls=calls), single=single)


def debate_job_get(*, pk: int) -> DebateJob:
    """The job with this id. Raises ``DebateJob.DoesNotExist``."""
    return DebateJob.objects.select_related("pool__dataset").get(pk=pk)


__all__ = [
    "MAX_ATTEMPTS",
    "DebateJobError",
    "JobProgress",
    "agent_client_get",
    "agent_config_validate",
    "debate_job_cancel",
    "debate_job_create",
    "debate_job_extend",
    "debate_job_get",
    "debate_job_pause",
    "debate_job_progress",
    "debate_job_resume",
    "debate_job_retry_failed",
    "debate_job_run_inline",
    "debate_job_start",
    "debate_queue",
    "debate_requeue_expired",
    "default_concurrency",
    "debate_run",
    "evaluation_pool_create",
    "assessor_evaluate",
    "single_judge_run",
    "pair_text_build",
    "turn_record_build",
]
