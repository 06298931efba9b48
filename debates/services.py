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
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
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

    def renew(self) -> None:
        """Extend the lease; raise JobStopped if the job left "running", LeaseLost if another
        worker took the debate over."""
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


class _GuardedClient:
    """A client for one running debate: renews the lease before each call (stopping the debate
    if the job was paused or the lease lost) and retries transient errors with backoff."""

    def __init__(
        self,
        inner: LLMClient,
        *,
        lease: _Lease,
        attempts: int,
        sleep: Callable[[float], None],
    ) -> None:
        self.inner = inner
        self.model = inner.model
        self._lease, self._attempts, self._sleep = lease, attempts, sleep

    @property
    def context_window(self) -> int:
        # Read each time: the OpenAI client lowers it when a server states a smaller one.
        return self.inner.context_window

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        def once() -> LLMResult:
            self._lease.renew()
            return self.inner.chat(messages, params)

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
    point). One transaction. Raises DebateJobError for invalid settings or an empty pool.
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
            api_keys_encrypted=encrypted,
            created_by=created_by,
        )
        if not _add_debates(job, limit):
            raise DebateJobError(f"pool {pool} has no pairs to debate")
    return job


def _enqueue(debate_ids: Iterable[int], *, countdown: float | None = None) -> None:
    """Send one :func:`~debates.tasks.run_debate` message per debate once the transaction
    commits (at once when there is none)."""
    from .tasks import run_debate

    ids = list(debate_ids)
    if not ids:
        return

    def send() -> None:
        for pk in ids:
            run_debate.apply_async((pk,), countdown=countdown)

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
            _enqueue(pending)
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
            _enqueue(created)
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


def _store_turn(lease: _Lease, record: TurnRecord, *, prompt_version: str) -> None:
    """Persist one new turn (with the prompt version it was asked with) and add its cost to the
    debate, in one transaction; a turn already stored for (debate, round, agent) is never
    stored or counted twice."""
    with transaction.atomic():
        if lease.held() is None:
            raise LeaseLost(f"debate {lease.debate_id}: lease lost before storing a turn")
        _, created = Turn.objects.get_or_create(
            debate_id=lease.debate_id,
            round=record.round,
            agent=record.agent,
            defaults={
                "stance": record.stance,
                "label": record.label,
                "argument": record.argument,
                "evidence": list(record.evidence),
                "raw": record.raw,
                "raw_attempts": list(record.raw_attempts),
                "prompt_version": prompt_version,
                "parse_error": record.parse_error or "",
                "model": record.model[:200],
                "attempts": record.attempts,
                "prompt_tokens": record.prompt_tokens,
                "completion_tokens": record.completion_tokens,
                "latency_ms": record.latency_ms,
                "chunk_truncated": record.chunk_truncated,
                "finish_reason": (record.finish_reason or "")[:20],
            },
        )
        if created:
            cost: dict[str, Any] = {
                "calls": F("calls") + record.attempts,
                "prompt_tokens": F("prompt_tokens") + record.prompt_tokens,
                "completion_tokens": F("completion_tokens") + record.completion_tokens,
                "latency_ms": F("latency_ms") + record.latency_ms,
            }
            if record.chunk_truncated:
                cost["chunk_truncated"] = True
            Debate.objects.filter(pk=lease.debate_id).update(**cost)


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


def _record_failure(
    lease: _Lease, job_id: int, elapsed: float, error: str, *, requeue: bool, final: bool = False
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
                _enqueue([debate.pk], countdown=retry_countdown(attempts))
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
    cleared, stored turns kept, no attempt counted) and are raised again.
    """
    lease = _claim(debate.pk, lease_seconds())
    if lease is None:
        return Debate.objects.get(pk=debate.pk)
    # Callers may pass an unloaded Debate(pk=...): the job is read from the row.
    job_id = Debate.objects.filter(pk=debate.pk).values_list("job_id", flat=True).get()
    started = time.monotonic()
    try:
        row = Debate.objects.select_related("job", "pair__query", "pair__document").get(
            pk=debate.pk
        )
        job = row.job
        config = DebateConfig(
            rounds=job.rounds,
            temperature=job.temperature,
            max_tokens=job.max_tokens,
            prompt_version=job.prompt_version,
        )
        keys = api_keys_decrypt(token=job.api_keys_encrypted)
        clients = [
            _GuardedClient(
                agent_client_get(config=cfg, api_key=keys.get(agent)),
                lease=lease,
                attempts=llm_retry_attempts(),
                sleep=sleep,
            )
            for agent, cfg in (("A", job.agent_a), ("B", job.agent_b))
        ]
        done = [turn_record_build(turn=t) for t in row.turns.order_by("round", "agent")]
        outcome = engine.debate_pair(
            pair_text_build(pair=row.pair),
            clients[0],
            clients[1],
            config,
            done_turns=done,
            on_turn=lambda record: _store_turn(lease, record, prompt_version=job.prompt_version),
        )
    except LeaseLost as exc:
        log.warning("%s; another worker owns it now", exc)
        return Debate.objects.get(pk=debate.pk)
    except JobStopped:
        _release(lease, time.monotonic() - started)
        return Debate.objects.get(pk=debate.pk)
    except (ContextTooLongError, ApiKeyError) as exc:
        # The same prompt cannot fit the next time either, and an undecryptable key stays
        # so: failed at once, not retried.
        _record_failure(
            lease,
            job_id,
            time.monotonic() - started,
            _error_text(exc),
            requeue=False,
            final=True,
        )
        return Debate.objects.get(pk=debate.pk)
    except Exception as exc:  # every failure is recorded on the debate, never lost
        _record_failure(
            lease, job_id, time.monotonic() - started, _error_text(exc), requeue=requeue
        )
        return Debate.objects.get(pk=debate.pk)
    except BaseException:
        # Ctrl-C or exit (in-process runs): give the debate back with its stored turns, so
        # the next run resumes it at once instead of waiting for the lease to expire.
        try:
            _release(lease, time.monotonic() - started)
        except Exception:  # e.g. the interrupt broke the connection: the lease will expire
            log.exception("debate %s: could not give the debate back", debate.pk)
        raise
    with transaction.atomic():
        if lease.held() is None:
            log.warning("debate %s finished after losing its lease; not stored", debate.pk)
            return Debate.objects.get(pk=debate.pk)
        Debate.objects.filter(pk=debate.pk).update(
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
    _job_finish_if_done(job_id)
    return Debate.objects.get(pk=debate.pk)


def debate_job_run_inline(
    *, job: DebateJob, on_debate: Callable[[Debate], None] | None = None
) -> None:
    """Run a job's pending debates one after another in this process (no broker needed).

    A debate whose attempt failed is run again right away until it finishes or fails for
    good (:data:`MAX_ATTEMPTS`). Debates of this job left running by a process that died
    (lease expired) are requeued first (:func:`debate_requeue_expired`, one failed attempt
    each) and resumed from their stored turns: without a broker there is no Celery beat to do
    it. Stops early when the job leaves "running". ``on_debate`` is called after each debate
    run (e.g. to move a progress bar).
    """
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
            debate = debate_run(debate=Debate(pk=pk), requeue=False)
            if on_debate is not None:
                on_debate(debate)
            if debate.status == Debate.Status.PENDING and not debate.last_error:
                return  # released: the job was paused or cancelled meanwhile


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
            _enqueue(pending)
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
            _enqueue(failed)
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
            .values_list("pk", "job_id", "job__status", "attempts", "lease_expires_at")
        )
        for pk, job_id, job_status, attempts, expired_at in expired:
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
                to_enqueue.append(pk)
        if enqueue:
            _enqueue(to_enqueue)
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
    self_pairs_skipped: int = 0  # i13: judged or ranked self-pairs left out of the draw


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
    pairs (``include_judged``). When the dataset excludes identical ids, no pair of a query
    with its own document is sampled. One transaction. Raises DebateJobError.
    """
    import random

    from corpora.models import PairSource, RunEntry
    from corpora.selectors import excluded_pk_pairs

    from .assessment import stratified_sample

    if sample < 2:
        raise DebateJobError(f"sample must be at least 2, got {sample}")
    order = ("query__query_id", "document__doc_id")
    judged = qrel_set.qrels.order_by(*[_code_point(f) for f in order]).values_list(
        "query_id", "document_id", "relevance"
    )
    # i13: a query's own document is never gold-sampled when the dataset excludes it.
    excluded = excluded_pk_pairs(dataset=dataset)
    relevant = [(q, d, g) for q, d, g in judged if g > 0 and (q, d) not in excluded]
    negatives = [(q, d, g) for q, d, g in judged if g <= 0 and (q, d) not in excluded]
    skipped = sum(1 for q, d, _ in judged if (q, d) in excluded)
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
            skipped += (q, d) in excluded
            if (q, d) not in judged_pairs and (q, d) not in excluded:
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
        pool=pool,
        relevant=len(rel),
        irrelevant=len(irr),
        negatives=source,
        run=run,
        depth=depth,
        self_pairs_skipped=skipped,
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
) -> dict[int, TurnRecord | str]:
    """The single-LLM-judge baseline (:func:`debates.engine.judge_single`: one neutral call,
    at most one re-ask, no debate) on every pair of ``pool``, in this process.

    Returns ``{pair id: TurnRecord}``, or the error text when the LLM failed after the
    retries of :func:`llm_retry_attempts`. Nothing is stored. ``on_pair(pair_id)`` is called
    after each pair.
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
    pairs = _pairs_in_order(pool).select_related("query", "document")
    for pair in pairs:
        try:
            results[pair.pk] = engine.judge_single(pair_text_build(pair=pair), _Retrying(), config)
        except LLMError as exc:
            results[pair.pk] = _error_text(exc)
        if on_pair is not None:
            on_pair(pair.pk)
    return results


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
    "debate_requeue_expired",
    "debate_run",
    "evaluation_pool_create",
    "assessor_evaluate",
    "single_judge_run",
    "pair_text_build",
    "turn_record_build",
]
