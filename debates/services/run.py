"""Running one debate, idempotently, and putting debates back in the queue. Each debate runs
as one Celery task (:func:`debates.tasks.run_debate`) calling :func:`debate_run`, which:
- claims the debate with a conditional UPDATE (pending → running, only while the job is
  running) and a lease (a random token and an expiry), so a second delivery of the same
  message finds nothing to claim and does nothing;
- stores every turn in its own transaction as soon as the engine returns it
  (``get_or_create`` on (debate, round, agent)), and passes the stored turns of a restarted
  debate back to the engine as ``done_turns``, so no LLM call for a stored turn is repeated;
- renews the lease before every LLM call; a worker that lost its lease (it was too slow and
  the debate was requeued) stops without writing, and a paused or cancelled job makes the
  debate go back to pending, its turns kept;
- retries transient LLM errors with exponential backoff and full jitter, honouring
  Retry-After (:func:`debates.retry.call_with_retry`); when retries run out, or on any other
  error, the attempt counts as failed: the debate goes back to pending with the error kept
  and is re-enqueued after a delay, and after :data:`~debates.services.common.MAX_ATTEMPTS`
  failed attempts it is ``failed`` (re-runnable with
  :func:`debates.services.jobs.debate_job_retry_failed`);
- leaves, when its worker is killed mid-debate, a lease that expires:
  :func:`debate_requeue_expired` (a periodic task) counts that as a failed attempt and
  re-enqueues the debate. :func:`debate_job_run_inline` runs a job's debates in this process
  (no broker)."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Exists, F, OuterRef, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from corpora.models import Pair
from debates import engine
from debates.api_keys import ApiKeyError, api_keys_decrypt
from debates.engine import DebateConfig, PairText, TurnRecord
from debates.llm.base import (
    ChatMessage,
    ContextTooLongError,
    GenerationParams,
    LLMClient,
    LLMResult,
)
from debates.models import Debate, DebateJob, Turn
from debates.retry import call_with_retry
from debates.services import backends
from debates.services.common import (
    MAX_ATTEMPTS,
    _error_text,
    lease_seconds,
    llm_retry_attempts,
    retry_countdown,
)

log = logging.getLogger(__name__)


class LeaseLost(Exception):
    """This worker no longer holds the debate (its lease expired and it was requeued)."""


class JobStopped(Exception):
    """The debate's job was paused or cancelled while the debate was running."""


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


def _enqueue(debate_ids: Iterable[int], *, countdown: float | None = None) -> None:
    """Send one :func:`~debates.tasks.run_debate` message per debate once the transaction
    commits (at once when there is none)."""
    from debates.tasks import run_debate

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
            scale=job.scale,
            max_grade=job.max_grade,
            consensus=job.consensus,
        )
        keys = api_keys_decrypt(token=job.api_keys_encrypted)
        clients = [
            _GuardedClient(
                backends.agent_client_get(config=cfg, api_key=keys.get(agent)),
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
