"""Running one debate, idempotently, and putting debates back in the queue. Each debate runs
as one Celery task (:func:`debates.tasks.run_debate`) calling :func:`debate_run`, which:
- claims the debate with a conditional UPDATE (pending → running, only while the job is
  running) and a lease (a random token and an expiry), so a second delivery of the same
  message finds nothing to claim and does nothing;
- stores every turn atomically as soon as the engine returns it (unique on (debate, round,
  agent); see :mod:`debates.services.leases`), and passes the stored turns of a restarted
  debate back to the engine as ``done_turns``, so no LLM call for a stored turn is repeated;
- renews the lease before every LLM call and holds no transaction or database connection
  across the call; a worker that lost its lease (it was too slow and the debate was
  requeued) stops without writing, and a paused or cancelled job makes the debate go back to
  pending, its turns kept; every answered request is counted in calls and tokens;
- retries transient LLM errors with exponential backoff and full jitter, honouring
  Retry-After (:func:`debates.retry.call_with_retry`); when retries run out, or on any other
  error, the attempt counts as failed: the debate goes back to pending with the error kept
  and is re-enqueued after a delay, and after :data:`~debates.services.common.MAX_ATTEMPTS`
  failed attempts it is ``failed`` (re-runnable with
  :func:`debates.services.jobs.debate_job_retry_failed`);
- leaves, when its worker is killed mid-debate, a lease that expires:
  :func:`debate_requeue_expired` (a periodic task) counts that as a failed attempt and
  re-enqueues the debate. :func:`debate_job_run_inline` runs a job's debates in this process
  (no broker), ``concurrency`` at a time."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from corpora.models import Pair
from debates import engine
from debates.api_keys import ApiKeyError, api_keys_decrypt
from debates.engine import DebateConfig, PairText, TurnRecord
from debates.llm.base import (
    ContextTooLongError,
)
from debates.models import Debate, DebateJob, Turn
from debates.services import backends
from debates.services.common import (
    LOCAL_QUEUE,
    MAX_ATTEMPTS,
    MAX_CONCURRENCY,
    _database_release,
    _error_text,
    _with_connection_retry,
    debate_queue,
    lease_seconds,
    llm_retry_attempts,
    retry_countdown,
)
from debates.services.leases import (
    _DEBATE,
    _JOB,
    JobStopped,
    LeaseLost,
    _GuardedClient,
    _Lease,
    _lease_claim,
    _lease_end,
    _Meter,
    _store_turn,
)

log = logging.getLogger(__name__)


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


def _job_queue(job: DebateJob) -> str:
    return debate_queue(agent_a=job.agent_a, agent_b=job.agent_b)


def _enqueue(
    debate_ids: Iterable[int], *, queue: str = LOCAL_QUEUE, countdown: float | None = None
) -> None:
    """Send one :func:`~debates.tasks.run_debate` message per debate to ``queue`` once the
    transaction commits (at once when there is none)."""
    from debates.tasks import run_debate

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


def _job_finish_if_done(job_id: int) -> bool:
    """Mark a running job finished when none of its debates is pending or running.

    Called after the debate's own transaction committed, so of two workers finishing the last
    two debates at once, the later check sees both.
    """
    # Once per debate: one statement without the ORM's compile step (see leases.py).
    with connection.cursor() as cursor:
        cursor.execute(
            _JOB_FINISH_SQL, [connection.ops.adapt_datetimefield_value(timezone.now()), job_id]
        )
        return bool(cursor.rowcount)


_JOB_FINISH_SQL = f"""
UPDATE {_JOB} SET status = 'finished', finished = %s
WHERE id = %s AND status = 'running' AND NOT EXISTS (
    SELECT 1 FROM {_DEBATE} WHERE job_id = {_JOB}.id AND status IN ('pending', 'running')
)
"""  # noqa: S608 (table names from the models; every value is a bound parameter)


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


def _pair_runner(
    first: Callable[[], TurnRecord], second: Callable[[], TurnRecord]
) -> tuple[
    tuple[TurnRecord | None, BaseException | None], tuple[TurnRecord | None, BaseException | None]
]:
    """:data:`debates.engine.PairRunner`: ``first`` in a helper thread, ``second`` in this
    one. The helper's database connection (a lease renewal opens one) is closed when it
    ends; its error, if any, is returned, not raised."""
    results: list[tuple[TurnRecord | None, BaseException | None]] = []

    def ask_first() -> None:
        try:
            results.append((first(), None))
        except BaseException as exc:  # handed to the debate's thread, which raises it
            results.append((None, exc))
        finally:
            connection.close()

    helper = threading.Thread(target=ask_first, name=f"{threading.current_thread().name}-A")
    helper.start()
    try:
        mine: tuple[TurnRecord | None, BaseException | None] = (second(), None)
    except Exception as exc:
        mine = (None, exc)
    finally:
        helper.join()
    return results[0], mine


def debate_run(
    *,
    debate: Debate,
    requeue: bool = True,
    sleep: Callable[[float], None] = time.sleep,
    stop: threading.Event | None = None,
    gate: threading.Semaphore | None = None,
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
    once set (checked before each LLM call; an in-process run sets it on Ctrl-C). ``gate``, a
    semaphore shared by the threads of an in-process run or a thread-pool worker, bounds the
    LLM requests in flight; with a gate the two turns of a round are asked at once (see
    :func:`debates.engine.debate_pair`), each holding its own slot.

    No transaction or connection is held across an LLM call (see :func:`_database_release`);
    every answered request is counted in the debate's calls and tokens, stored or not.
    """
    # A worker thread's connection may have been closed by the server while it waited for
    # this task; the claim is the first statement, so it is safe to try again.
    lease = _with_connection_retry(lambda: _lease_claim(debate.pk, lease_seconds()))
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
            scale=job.scale,
            max_grade=job.max_grade,
            consensus=job.consensus,
        )
        done = [turn_record_build(turn=t) for t in row.turns.order_by("round", "agent")]
        keys = api_keys_decrypt(token=job.api_keys_encrypted)
        clients = [
            _GuardedClient(
                backends.agent_client_get(config=cfg, api_key=keys.get(agent)),
                lease=lease,
                attempts=llm_retry_attempts(),
                sleep=sleep,
                meter=meter,
                stop=stop,
                gate=gate,
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
            # With a gate of slots the round's two requests can be in flight together; one
            # at a time (no gate) they stay one after the other.
            pair_runner=_pair_runner if gate is not None else None,
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
    elapsed = time.monotonic() - started
    ended = _with_connection_retry(lambda: _lease_end(lease, outcome, elapsed))
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


def _llm_gate(width: int) -> tuple[threading.Semaphore | None, int]:
    """``(gate, threads)`` for ``width`` LLM requests in flight: a semaphore of ``width``
    slots and ``width`` + ``width``/8 threads (1 to 4 spare), which store turns and load
    debates while the slots' requests are in flight, so no slot idles on a database write.
    Width 1: no gate, one thread."""
    if width <= 1:
        return None, 1
    return threading.Semaphore(width), width + min(4, max(1, width // 8))


# The LLM slots of this worker process (debate_worker_gate_install); None outside a thread
# pool worker.
_worker_gate: threading.Semaphore | None = None


def debate_worker_gate_install(*, slots: int) -> int:
    """Bound the LLM requests in flight in this worker process to ``slots`` (a thread pool
    worker's ``-c``) and return how many threads its pool should run (see :func:`_llm_gate`).
    Every :func:`~debates.tasks.run_debate` in this process then holds a slot for each call
    only (see ``_GuardedClient``), as an in-process run does. Raises ValueError if ``slots``
    < 1."""
    global _worker_gate
    if slots < 1:
        raise ValueError(f"a worker needs at least 1 LLM slot, got {slots}")
    _worker_gate, threads = _llm_gate(slots)
    return threads


def debate_worker_gate() -> threading.Semaphore | None:
    """The gate installed by :func:`debate_worker_gate_install` in this process, or None."""
    return _worker_gate


def _run_batch(
    pending: list[int], *, width: int, on_debate: Callable[[Debate], None] | None
) -> bool:
    """Run ``pending`` debates with ``width`` LLM requests in flight at most; False when one
    was given back (the job stopped), after which no further debate starts.

    With ``width`` > 1 a few more threads than ``width`` run debates and share a gate of
    ``width`` slots, held only for the LLM call: a thread storing its turn or loading its
    next debate leaves its slot to one whose request is ready (on the bench, 16 threads each
    holding a slot through their database writes kept 0.94 of a bare client's throughput).
    """
    ids = iter(pending)
    gate, thread_count = _llm_gate(width)
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
                debate = debate_run(debate=Debate(pk=pk), requeue=False, stop=stop, gate=gate)
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
            for n in range(min(thread_count, len(pending)))
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
