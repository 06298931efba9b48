"""Running one debate, idempotently, and putting debates back in the queue. Each debate runs
as one Celery task (:func:`debates.tasks.run_debate`) calling :func:`debate_run`, which:
- claims the debate with a conditional UPDATE (pending → running, only while the job is
  running) and a lease (a random token and an expiry), so a second delivery of the same
  message finds nothing to claim and does nothing;
- stores every turn atomically before the debate's next LLM call, a round's two turns in one
  write and the last round's with the outcome (unique on (debate, round, agent); see
  :mod:`debates.services.turn_writer` and :mod:`debates.services.leases`), and passes the
  stored turns of a restarted debate back to the engine as ``done_turns``, so no LLM call
  for a stored turn is repeated;
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
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from django.db import connection, transaction
from django.utils import timezone

from corpora.models import Pair
from debates import engine
from debates.api_keys import ApiKeyError, api_keys_decrypt
from debates.check_judged import check_judged_outcome
from debates.engine import DebateConfig, PairText, TurnRecord
from debates.llm.base import ContextTooLongError
from debates.llm.config import AgentConfig
from debates.models import Debate, DebateJob, Turn
from debates.services import backends
from debates.services.claimed import ClaimedDebate, debate_claim_load
from debates.services.common import (
    MAX_ATTEMPTS,
    MAX_CONCURRENCY,
    database_release,
    debate_queue,
    error_text,
    llm_retry_attempts,
)
from debates.services.guarded import GuardedClient, Meter
from debates.services.jobs import debate_job_stop_refused
from debates.services.lane import lane_release, lane_run
from debates.services.leases import (
    JobStopped,
    Lease,
    LeaseLost,
    job_finish_if_done,
    lease_end,
    lease_fail,
    lease_release,
)
from debates.services.pool_batches import pool_batch_next
from debates.services.queue import debates_enqueue, debates_pending_ids
from debates.services.stage0_route import (
    debate_job_stage0_prepare,
    stage0_steps_requeue,
    stage0_waiting,
)
from debates.services.threads import LLMGate, helper_submit
from debates.services.turn_writer import TurnWriter
from debates.signals import debate_ended

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


def job_debate_config(*, job: DebateJob) -> DebateConfig:
    """The engine's settings of ``job``'s debates (rounds, budgets, prompt version, scale),
    the same for the direct and the batch path."""
    return DebateConfig(
        rounds=job.rounds,
        temperature=job.temperature,
        max_tokens=job.max_tokens,
        max_tokens_cap=job.max_tokens_cap,
        prompt_version=job.prompt_version,
        scale=job.scale,
        max_grade=job.max_grade,
        consensus=job.consensus,
        min_agreement_probability=job.min_agreement_probability,
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
        reasoning=turn.reasoning,
        reasoning_tokens=turn.reasoning_tokens,
        cached_tokens=turn.cached_tokens,
        cut_off=turn.cut_off,
        attempt_log=tuple(turn.attempt_log or ()),
        label_probability=turn.label_probability,
    )


def _pair_runner(
    first: Callable[[], TurnRecord], second: Callable[[], TurnRecord]
) -> tuple[
    tuple[TurnRecord | None, BaseException | None], tuple[TurnRecord | None, BaseException | None]
]:
    """:data:`debates.engine.PairRunner`: ``first`` on a helper thread
    (:func:`~debates.services.threads.helper_submit`), ``second`` in this one; each one's
    error, if any, is returned, not raised, once both ended."""
    future = helper_submit(first)
    try:
        mine: tuple[TurnRecord | None, BaseException | None] = (second(), None)
    except Exception as exc:
        mine = (None, exc)
    finally:
        futures.wait((future,))  # an interrupt of this thread too waits for the helper
    error = future.exception()
    theirs = (None, error) if error is not None else (future.result(), None)
    return theirs, mine


def debate_run(
    *,
    debate_id: int,
    requeue: bool = True,
    sleep: Callable[[float], None] = time.sleep,
    stop: threading.Event | None = None,
    gate: LLMGate | None = None,
) -> Debate:
    """Run (or resume) debate ``debate_id`` to its end; idempotent. Returns the debate as
    stored after. Raises ``Debate.DoesNotExist`` if there is no such debate.

    Claims the debate (:func:`~debates.services.claimed.debate_claim_load`: pending ->
    running, only while its job is running); if it cannot be claimed (already running
    elsewhere, finished, failed, or its job paused/cancelled) nothing happens. Stored turns
    are passed to :func:`debates.engine.debate_pair` as done turns; every new turn is stored
    before the next round's LLM calls, a round's two turns in one write, the last round's
    with the outcome (:mod:`debates.services.turn_writer`). On the outcome the debate becomes
    ``agreed`` (final label, consensus round) or ``escalated`` (reason "disagreement",
    "unparsed", "truncated" or "too_long"), the job ``finished`` when it was its last open
    debate, and :data:`debates.signals.debate_ended` is sent.

    Errors are recorded, never raised (:func:`_debate_give_up`): a TransientLLMError left
    after :func:`llm_retry_attempts` calls, or any other exception, is a failed attempt (see
    the module docstring); with ``requeue`` the debate is re-enqueued after
    :func:`retry_countdown`. A ContextTooLongError that reaches here (the backend refused the
    prompt as too long and stated no smaller context to fit to, or the refit to the one it
    stated was refused too) or an API key that cannot be decrypted leaves the debate
    ``failed`` at once: another attempt would meet the same fault. A prompt that the app's
    own count finds too long even with an empty chunk never reaches here: the engine ends
    that debate ``escalated`` as "too_long" (:class:`debates.turns.PromptTooLongError`).
    ``sleep`` is the wait used between LLM retries. KeyboardInterrupt and SystemExit give the
    debate back (pending, lease cleared, stored turns kept, no attempt counted) and are raised
    again; so does ``stop`` once set (checked before each LLM call; an in-process run sets it
    on Ctrl-C). ``gate``, an
    :class:`~debates.services.threads.LLMGate` shared by the threads of an in-process run or
    a thread-pool worker, bounds the LLM requests in flight;
    with a gate the two turns of a round are asked at once (see
    :func:`debates.engine.debate_pair`), each holding its own slot.

    No transaction or connection is held across an LLM call (see
    :func:`~debates.services.common.database_release`): the statements run on the database
    lane (:mod:`debates.services.lane`), a few threads whose connections close when idle.
    Every answered request is counted in the debate's calls and tokens, stored or not.
    """
    debate_run_status(debate_id=debate_id, requeue=requeue, sleep=sleep, stop=stop, gate=gate)
    return lane_run(lambda: Debate.objects.get(pk=debate_id))


@dataclass(frozen=True, slots=True)
class DebateRunStatus:
    """A debate's ``status`` and ``last_error`` right after :func:`debate_run_status` ran it."""

    status: str
    last_error: str


def debate_run_status(
    *,
    debate_id: int,
    requeue: bool = True,
    sleep: Callable[[float], None] = time.sleep,
    stop: threading.Event | None = None,
    gate: LLMGate | None = None,
) -> DebateRunStatus:
    """:func:`debate_run` for the callers that only need the debate's status after (the
    Celery task, the in-process runner): a debate whose outcome was stored is not read back
    (its status is the outcome's, its error cleared by the write); any other ending is. Raises
    ``Debate.DoesNotExist`` if there is no such debate."""
    # Every statement goes through the database lane (debates.services.lane): this thread,
    # which waits on the LLM, holds no connection.
    claimed = lane_run(lambda: _debate_claim(debate_id))
    if claimed is None:
        return lane_run(lambda: _status_read(debate_id))
    row, lease, done = claimed
    refusal = _agents_refusal(row)
    if refusal:
        lane_run(partial(_job_stop_refused, row, lease, refusal))
        return lane_run(lambda: _status_read(debate_id))
    started = time.monotonic()
    meter = Meter()
    writer: TurnWriter | None = None
    try:
        # Inside the try: a stored config this worker cannot read (a prompt version from
        # other code) is a failed attempt recorded now, not a lease left to expire.
        writer = TurnWriter(
            lease=lease, prompt_version=row.engine_config().prompt_version, meter=meter
        )
        outcome = _debate_ask(row, done, lease, meter, writer, sleep=sleep, stop=stop, gate=gate)
        elapsed = time.monotonic() - started
        with writer.taken() as turns:
            stored = lane_run(lambda: _debate_store(row, lease, outcome, elapsed, turns, meter))
    except BaseException as exc:
        elapsed = time.monotonic() - started
        cause = _turns_keep(writer, exc, debate_id) if writer is not None else exc
        lane_run(partial(_debate_give_up, row, lease, meter, cause, elapsed, requeue=requeue))
        if not isinstance(exc, Exception):
            raise  # Ctrl-C or exit: the debate was given back
        return lane_run(lambda: _status_read(debate_id))
    if stored is not None:
        return DebateRunStatus(status=stored, last_error="")
    return lane_run(lambda: _status_read(debate_id))


def _agents_refusal(row: ClaimedDebate) -> str:
    """Why a claimed debate may not call: for a job made in the browser or the API, its
    agents against the operator's settings as this process reads them now
    (:func:`~debates.services.backends.stored_agents_refusal`; an endpoint, key variable,
    models folder or truth folder withdrawn since the launch, then the workers restarted);
    "" when it may, and always for a job a command made (the operator's own endpoints)."""
    if row.launched_from == DebateJob.LaunchedFrom.COMMAND:
        return ""
    return backends.stored_agents_refusal(agents=row.agents_stored)


def _job_stop_refused(row: ClaimedDebate, lease: Lease, refusal: str) -> None:
    """A claimed debate whose agents the operator no longer allows: given back (pending, no
    attempt counted, no call made) and its job paused with ``refusal`` as its stop note
    (:func:`~debates.services.jobs.debate_job_stop_refused`), so no other debate of it is
    claimed; resuming it asks the settings again."""
    lease_release(lease=lease, elapsed=0.0)
    if debate_job_stop_refused(job_id=row.job_id, note=refusal):
        log.warning("job %s paused: %s", row.job_id, refusal)


def _status_read(debate_id: int) -> DebateRunStatus:
    """The debate's stored status and last error. Raises ``Debate.DoesNotExist``."""
    status, error = Debate.objects.values_list("status", "last_error").get(pk=debate_id)
    return DebateRunStatus(status=status, last_error=error)


def _debate_claim(debate_id: int) -> tuple[ClaimedDebate, Lease, list[TurnRecord]] | None:
    """Claim and read the debate (:func:`~debates.services.claimed.debate_claim_load`), with
    its stored turns as done turns (asked for only when there are some: a debate's first
    attempt has none); None when it could not be claimed."""
    claimed = debate_claim_load(debate_id=debate_id)
    if claimed is None:
        return None
    lease, row = claimed
    if not row.turns_stored:
        return row, lease, []
    turns = Turn.objects.filter(debate_id=debate_id).order_by("round", "agent")
    return row, lease, [turn_record_build(turn=t) for t in turns]


def _turns_keep(writer: TurnWriter, exc: BaseException, debate_id: int) -> BaseException:
    """Before a run gives its debate up: write the turns answered but not written yet, so a
    resumed debate reuses them. Returns what the give-up acts on: ``exc``, or the LeaseLost
    the write met (then nothing more is written). A write that fails otherwise is logged and
    the give-up still runs (the turns' requests stay on the meter, counted on the debate by
    the give-up; the next attempt asks them again, within the round's calls)."""
    try:
        writer.flush()
    except LeaseLost as lost:
        return lost
    except Exception:
        log.exception("debate %s: could not store its last turns", debate_id)
    return exc


def _debate_store(
    row: ClaimedDebate,
    lease: Lease,
    outcome: engine.DebateOutcome,
    elapsed: float,
    turns: list[TurnRecord],
    meter: Meter,
) -> str | None:
    """Store ``outcome`` with ``turns`` (not stored yet) under ``lease``; then the follow-up
    work of a debate's end (:func:`_debate_ended`). The status stored when stored; None
    (nothing written, the turns' requests counted on the debate all the same) if the lease
    was lost. A check-judged job's consensus is compared with the original grade first
    (:func:`debates.check_judged.check_judged_outcome`), so the status may differ from
    ``outcome``'s."""
    outcome = check_judged_outcome(outcome, original=row.original_to_check)
    ended = lease_end(
        lease=lease,
        outcome=outcome,
        elapsed=elapsed,
        turns=turns,
        prompt_version=row.engine_config().prompt_version,
    )
    if not ended.stored:
        log.warning("debate %s finished after losing its lease; not stored", row.debate_id)
        meter.unstored_count(debate_id=row.debate_id)
        return None
    for record in turns:
        meter.stored(record)
    _debate_ended(row, outcome.status, adds_batches=ended.adds_batches)
    return outcome.status


def _debate_ask(
    row: ClaimedDebate,
    done: list[TurnRecord],
    lease: Lease,
    meter: Meter,
    writer: TurnWriter,
    *,
    sleep: Callable[[float], None],
    stop: threading.Event | None,
    gate: LLMGate | None,
) -> engine.DebateOutcome:
    """The engine's debate of ``row``'s pair under ``lease``: each agent's client guarded by
    the lease, the stored turns given back as done, each new turn kept by ``writer`` and
    stored before the next round's calls."""
    config = row.engine_config()
    keys = api_keys_decrypt(token=row.api_keys_encrypted)
    client_a, client_b = (
        GuardedClient(
            backends.agent_client_get(config=agent_config, api_key=keys.get(agent)),
            lease=lease,
            attempts=llm_retry_attempts(),
            sleep=sleep,
            meter=meter,
            stop=stop,
            gate=gate,
            before_call=writer.before_call,
        )
        for agent, agent_config in zip(("A", "B"), row.agent_configs(), strict=True)
    )
    return engine.debate_pair(
        row.pair,
        client_a,
        client_b,
        config,
        done_turns=done,
        on_turn=writer.add,
        # With a gate of slots the round's two requests can be in flight together; one
        # at a time (no gate) they stay one after the other.
        pair_runner=writer.pair_runner(_pair_runner) if gate is not None else None,
    )


def _debate_give_up(
    row: ClaimedDebate,
    lease: Lease,
    meter: Meter,
    exc: BaseException,
    elapsed: float,
    *,
    requeue: bool,
) -> None:
    """The one failure path of :func:`debate_run`: count the answered requests whose turn was
    not stored, then, by what went wrong: a lost lease writes nothing more (another worker
    owns the debate); a stopped job or an interrupt gives the debate back (no attempt
    counted); an error that would recur fails the debate at once; any other error is a failed
    attempt (retried later, or failed after MAX_ATTEMPTS)."""
    try:
        meter.unstored_count(debate_id=row.debate_id)
        if isinstance(exc, LeaseLost):
            log.warning("%s; another worker owns it now", exc)
        elif isinstance(exc, JobStopped) or not isinstance(exc, Exception):
            lease_release(lease=lease, elapsed=elapsed)
        else:
            final = isinstance(exc, ContextTooLongError | ApiKeyError)
            status = lease_fail(
                lease=lease,
                elapsed=elapsed,
                error=error_text(exc),
                final=final,
                requeue=requeue and not final,
                queue=_queue_of(row),
            )
            _debate_failure_log(row.debate_id, exc, status)
            if status == Debate.Status.FAILED:
                _debate_ended(row, Debate.Status.FAILED)
    except Exception:
        if isinstance(exc, Exception):
            raise
        # An interrupt may have broken the connection: the lease will expire instead.
        log.exception("debate %s: could not give the debate back", row.debate_id)


def _queue_of(row: ClaimedDebate) -> str:
    """The Celery queue of ``row``'s job (:func:`~debates.services.common.debate_queue`)."""
    agent_a, agent_b = row.agent_configs()
    return debate_queue(agent_a=agent_a, agent_b=agent_b)


def _debate_failure_log(debate_id: int, exc: BaseException, status: str | None) -> None:
    if status is None:
        log.warning("debate %s failed after losing its lease: %s", debate_id, error_text(exc))
        return
    now = " (now failed)" if status == Debate.Status.FAILED else ""
    log.warning("debate %s attempt failed%s: %s", debate_id, now, error_text(exc))


def _debate_ended(row: ClaimedDebate, status: str, *, adds_batches: bool = True) -> None:
    """After a debate's outcome is stored: finish its job if it was the last open debate,
    and tell other apps (the review queue) through :data:`debates.signals.debate_ended`.
    A job on an adaptive pool gets its next batch first (:func:`pool_batch_next`); with
    ``adds_batches`` False (the outcome's write said the job is no such job) that is not
    asked."""
    if adds_batches:
        pool_batch_next(job_id=row.job_id)
    job_finish_if_done(job_id=row.job_id)
    debate_ended.send_robust(
        sender=Debate, debate_id=row.debate_id, job_id=row.job_id, status=status
    )


def stage0_run_first(*, job: DebateJob, poll_seconds: float = 1.0) -> None:
    """Before a job's debates run here: run its stage-0 step
    (:func:`~debates.services.stage0_route.debate_job_stage0_prepare`), or, when another
    process holds it, wait until it is done, so no pair stage 0 would settle is debated."""
    while stage0_waiting(job) and job.status == DebateJob.Status.RUNNING:
        if not debate_job_stage0_prepare(job=job):
            time.sleep(poll_seconds)
        job.refresh_from_db()


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
    if job.batch:
        return  # a batch job's debates advance through batch files (debates.services.batch)
    stage0_run_first(job=job)
    width = concurrency if concurrency is not None else job.concurrency
    width = max(1, min(int(width or 1), MAX_CONCURRENCY))
    if connection.in_atomic_block:
        width = 1  # other threads' connections would not see this transaction's rows
    tried: dict[int, int] = {}
    while True:
        debate_requeue_expired(enqueue=False, job=job)
        job.refresh_from_db()
        stage0_run_first(job=job)  # a new batch of an adaptive pool may wait for stage 0
        if job.status != DebateJob.Status.RUNNING:
            return
        pending = [pk for pk in debates_pending_ids(job) if tried.get(pk, 0) <= MAX_ATTEMPTS]
        if not pending and pool_batch_next(job_id=job.pk):
            continue  # stage 0 settled a whole batch of an adaptive pool: the next one
        if not pending:
            job_finish_if_done(job_id=job.pk)
            job.refresh_from_db()
            return
        for pk in pending:
            tried[pk] = tried.get(pk, 0) + 1
        if width > 1:
            database_release()  # this thread's connection would idle while the threads run
        try:
            if not _run_batch(pending, width=width, on_debate=on_debate):
                return  # released: the job was paused or cancelled meanwhile
        finally:
            lane_release()  # the run's connections are not kept until the lane idles


def _llm_gate(width: int) -> tuple[LLMGate | None, int]:
    """``(gate, threads)`` for ``width`` LLM requests in flight: a gate of ``width``
    slots and ``width`` + ``width``/8 threads (1 to 4 spare), which store turns and load
    debates while the slots' requests are in flight, so no slot idles on a database write.
    Width 1: no gate, one thread."""
    if width <= 1:
        return None, 1
    return LLMGate(width), width + min(4, max(1, width // 8))


# The LLM slots of this worker process (debate_worker_gate_install); None outside a thread
# pool worker.
_worker_gate: LLMGate | None = None


def debate_worker_gate_install(*, slots: int) -> int:
    """Bound the LLM requests in flight in this worker process to ``slots`` (a thread pool
    worker's ``-c``) and return how many threads its pool should run (see :func:`_llm_gate`).
    Every :func:`~debates.tasks.run_debate` in this process then holds a slot for each call
    only (see :class:`~debates.services.guarded.GuardedClient`), as an in-process run does.
    Raises ValueError if ``slots`` < 1."""
    global _worker_gate
    if slots < 1:
        raise ValueError(f"a worker needs at least 1 LLM slot, got {slots}")
    _worker_gate, threads = _llm_gate(slots)
    return threads


def debate_worker_gate() -> LLMGate | None:
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
                ran = debate_run_status(debate_id=pk, requeue=False, stop=stop, gate=gate)
                if on_debate is not None:
                    debate = lane_run(partial(Debate.objects.get, pk=pk))
                    with lock:
                        on_debate(debate)
                if ran.status == Debate.Status.PENDING and not ran.last_error:
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
    to_enqueue: dict[str, list[int]] = {}  # Celery queue -> debate ids
    sent_jobs: set[int] = set()  # the jobs of those debates: sent to the workers again now
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
        for pk, job_id, job_status, attempts, expired_at, agent_a, agent_b in expired:
            assert expired_at is not None  # lease_expires_at__lt leaves out NULL
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
                queue = debate_queue(
                    agent_a=AgentConfig.stored(agent_a), agent_b=AgentConfig.stored(agent_b)
                )
                to_enqueue.setdefault(queue, []).append(pk)
                sent_jobs.add(job_id)
        if enqueue:
            DebateJob.objects.filter(pk__in=sent_jobs).update(sent=now)
            for queue, ids in to_enqueue.items():
                debates_enqueue(ids, queue=queue)
    if expired:
        log.warning("requeued %d debate(s) whose lease expired", len(expired))
    if enqueue and job is None:
        stage0_steps_requeue(now=now)
    running_jobs = DebateJob.objects.filter(status=DebateJob.Status.RUNNING)
    if job is not None:
        running_jobs = running_jobs.filter(pk=job.pk)
    for job_id in set(running_jobs.values_list("pk", flat=True)) | touched_jobs:
        pool_batch_next(job_id=job_id)
        job_finish_if_done(job_id=job_id)
    return len(expired)
