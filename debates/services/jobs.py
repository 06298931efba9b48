"""Debate jobs and their controls, once created (see :mod:`debates.services.launch`):
:func:`debate_job_start` marks a job started and enqueues its debates,
:func:`debate_job_extend` adds debates for pairs added to the pool since;
:func:`debate_job_pause`, :func:`debate_job_resume`, :func:`debate_job_cancel` and
:func:`debate_job_retry_failed` change a job's status, each in one transaction with its
debates sent to Celery only after commit (:func:`debates.services.queue.debates_enqueue`); a
pause or cancel stores the job's webhook event in that transaction
(:func:`debates.services.webhooks.webhook_job_event`). A worker pauses a job whose agents
the operator no longer allows with :func:`debate_job_stop_refused`."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.db.models.functions import Coalesce
from django.utils import timezone

from debates.models import Debate, DebateJob, WebhookDelivery
from debates.services.common import DebateJobError, pairs_in_order
from debates.services.leases import job_finish_if_done
from debates.services.pool_batches import pool_batch_next, pool_batch_room
from debates.services.queue import debates_enqueue, debates_pending_ids, job_queue
from debates.services.reuse import debates_reuse, reuse_note_set
from debates.services.stage0_route import (
    debate_job_stage0_prepare,
    stage0_step_enqueue,
    stage0_waiting,
)
from debates.services.webhooks import webhook_job_event


def debates_add(*, job: DebateJob, limit: int | None) -> list[int]:
    """Create a pending Debate for each pair of the job's pool that has none yet, in canonical
    order, at most ``limit``; return their ids. A check-judged job takes only the pairs the
    qrels judge. Those an earlier job with the job's reuse key settled as agreed are settled
    at once (:func:`debates.services.reuse.debates_reuse`), and the job's note of the pairs
    it shares with other jobs is written again."""
    pairs = pairs_in_order(job.pool).exclude(
        Exists(Debate.objects.filter(job=job, pair=OuterRef("pk")))
    )
    if job.check_judged:
        pairs = pairs.filter(original_relevance__isnull=False)
    pair_ids = list(
        pairs.values_list("pk", flat=True)[:limit] if limit else pairs.values_list("pk", flat=True)
    )
    created = Debate.objects.bulk_create(
        [Debate(job=job, pair_id=pk) for pk in pair_ids], batch_size=2000
    )
    ids = [d.pk for d in created]
    if ids:
        debates_reuse(job=job, debate_ids=ids)
        reuse_note_set(job=job)
    return ids


def _locked(job: DebateJob) -> DebateJob:
    return DebateJob.objects.select_for_update().get(pk=job.pk)


def debate_job_start(*, job: DebateJob, enqueue: bool = True) -> int:
    """Mark a running job started and enqueue its pending debates after commit.

    With ``enqueue=False`` nothing is sent (the caller runs the debates in-process, see
    :func:`debates.services.run.debate_job_run_inline`). Returns the number of pending
    debates. Raises DebateJobError unless the job is running.
    """
    with transaction.atomic():
        locked = _locked(job)
        if locked.status != DebateJob.Status.RUNNING:
            raise DebateJobError(f"job {job.pk} is {locked.status}; only a running job starts")
        if locked.started is None:
            locked.started = timezone.now()
            locked.save(update_fields=["started"])
        pending = debates_pending_ids(locked)
        if enqueue:
            _pending_send(locked, pending)
    job.refresh_from_db()
    return len(pending)


def _pending_send(job: DebateJob, pending: list[int]) -> None:
    """Enqueue a running job's pending debates after commit; a job whose stage-0 step is not
    done sends that step instead, which enqueues the debates stage 0 leaves once it ends."""
    # When they went out: a worker-wait warning counts from here, not from the job's start
    # (a job resumed after a long pause has waited for no worker yet).
    DebateJob.objects.filter(pk=job.pk).update(sent=timezone.now())
    if stage0_waiting(job):
        stage0_step_enqueue(job_id=job.pk)
    else:
        debates_enqueue(pending, queue=job_queue(job))


def debate_job_stage0_continue(*, job: DebateJob) -> str:
    """On a worker: run ``job``'s stage-0 step
    (:func:`~debates.services.stage0_route.debate_job_stage0_prepare`; once, whoever asks),
    then enqueue the debates it left pending, and finish the job when stage 0 settled every
    pair. Returns the job's stage-0 state after ("missing" when it was deleted). Idempotent:
    a debate queued twice runs once."""
    debate_job_stage0_prepare(job=job)
    job.refresh_from_db()
    if job.stage0_state == "done" and job.status == DebateJob.Status.RUNNING:
        try:
            debate_job_start(job=job, enqueue=True)
        except DebateJobError:
            return job.stage0_state  # paused or cancelled meanwhile: resume sends them
        # Stage 0 may have settled a whole batch of an adaptive pool: the next one first.
        pool_batch_next(job_id=job.pk)
        job_finish_if_done(job_id=job.pk)
    return job.stage0_state


def debate_job_extend(*, job: DebateJob, limit: int | None = None, enqueue: bool = True) -> int:
    """Create Debates for the pool's pairs that have none in this job (pairs added to the pool
    since), at most ``limit``, in canonical order; earlier debates are never repeated.

    A finished job runs again; the new debates of a running job are enqueued after commit.
    A job with a pair limit (its pool's budget) never passes it, and on an adaptive pool adds
    at most one batch in the stored order (the next ones follow as labels arrive).
    Returns the number created. Raises DebateJobError for a cancelled job.
    """
    with transaction.atomic():
        locked = _locked(job)
        if locked.status == DebateJob.Status.CANCELLED:
            raise DebateJobError(f"job {job.pk} is cancelled")
        limit = pool_batch_room(job=locked, limit=limit)
        created = debates_add(job=locked, limit=limit) if limit != 0 else []
        if created and locked.status == DebateJob.Status.FINISHED:
            locked.status, locked.finished = DebateJob.Status.RUNNING, None
            locked.save(update_fields=["status", "finished"])
        if created and locked.stage0 and locked.stage0_state == "done":
            # The new pairs go through stage 0 too (those it scored before stay as they are).
            locked.stage0_state = "waiting"
            locked.save(update_fields=["stage0_state"])
        # A batch job's new debates go out with its next export, never as direct calls.
        if created and enqueue and not locked.batch and locked.status == DebateJob.Status.RUNNING:
            _pending_send(locked, created)
        if created:
            job_finish_if_done(job_id=locked.pk)  # every new pair reused: nothing to run
    job.refresh_from_db()
    return len(created)


def debate_job_pause(*, job: DebateJob) -> None:
    """Pause a running job: queued debates do nothing, running ones stop before their next LLM
    call (turns kept); a job with a callback URL sends ``job.paused``. Raises DebateJobError
    unless the job is running."""
    with transaction.atomic():
        paused = DebateJob.objects.filter(pk=job.pk, status=DebateJob.Status.RUNNING).update(
            status=DebateJob.Status.PAUSED
        )
        if paused and job.callback_url:  # stored with the pause, sent after commit
            webhook_job_event(job_id=job.pk, event=WebhookDelivery.Event.PAUSED)
    if not paused:
        job.refresh_from_db()
        raise DebateJobError(f"job {job.pk} is {job.status}; only a running job can be paused")
    job.refresh_from_db()


def debate_job_stop_refused(*, job_id: int, note: str) -> bool:
    """On a worker: pause running job ``job_id``, whose agents the operator's settings no
    longer allow, with ``note`` (the refusal, naming the agent, the field and the setting) as
    its ``stop_note``, which the job page and the API show until it is resumed; a job with a
    callback URL sends ``job.paused``. True when this call paused it (False: it was no longer
    running). Its pending debates stay pending, to be resumed once the operator allows
    the agents again (resuming checks them)."""
    with transaction.atomic():
        paused = DebateJob.objects.filter(pk=job_id, status=DebateJob.Status.RUNNING).update(
            status=DebateJob.Status.PAUSED, stop_note=note[:500]
        )
        if paused:  # stored with the pause, sent after commit (none without a callback)
            webhook_job_event(job_id=job_id, event=WebhookDelivery.Event.PAUSED)
    return bool(paused)


def debate_job_resume(*, job: DebateJob, enqueue: bool = True) -> int:
    """Resume a paused job: enqueue its pending debates again (a debate queued twice runs
    once). Returns the number enqueued. Raises DebateJobError unless the job is paused."""
    with transaction.atomic():
        locked = _locked(job)
        if locked.status != DebateJob.Status.PAUSED:
            raise DebateJobError(f"job {job.pk} is {locked.status}; only a paused job resumes")
        locked.status = DebateJob.Status.RUNNING
        locked.started = locked.started or timezone.now()
        locked.stop_note = ""  # why the workers paused it, if they did: no longer so
        locked.save(update_fields=["status", "started", "stop_note"])
        pending = debates_pending_ids(locked)
        if enqueue and not locked.batch:
            _pending_send(locked, pending)
    # A batch of an adaptive pool that ended while the job was paused: the next one first.
    pending += pool_batch_next(job_id=job.pk)
    job_finish_if_done(job_id=job.pk)
    job.refresh_from_db()
    return len(pending)


def debate_job_cancel(*, job: DebateJob) -> None:
    """Cancel a running or paused job for good: no further debate starts, running ones stop
    before their next LLM call; finished debates and stored turns are kept. Debates that
    :func:`debate_job_retry_failed` gave back and no worker has asked again (pending, with the
    time they failed) will never run: they end failed again, as they were (error, attempts,
    time), so the job's failures still list them. A job with a callback URL sends
    ``job.cancelled``. Raises DebateJobError for a finished or cancelled job."""
    with transaction.atomic():
        cancelled = DebateJob.objects.filter(
            pk=job.pk, status__in=[DebateJob.Status.RUNNING, DebateJob.Status.PAUSED]
        ).update(status=DebateJob.Status.CANCELLED, finished=timezone.now())
        if cancelled:
            Debate.objects.filter(
                job_id=job.pk, status=Debate.Status.PENDING, finished__isnull=False
            ).update(status=Debate.Status.FAILED)
        if cancelled and job.callback_url:  # stored with the cancel, sent after commit
            webhook_job_event(job_id=job.pk, event=WebhookDelivery.Event.CANCELLED)
    if not cancelled:
        job.refresh_from_db()
        raise DebateJobError(f"job {job.pk} is {job.status}; it cannot be cancelled")
    job.refresh_from_db()


def debate_job_retry_failed(*, job: DebateJob, enqueue: bool = True) -> int:
    """Give the job's failed debates a fresh set of attempts: back to pending (stored turns and
    the last error kept), a finished job running again, and enqueued if the job is running.
    Returns how many. Raises DebateJobError for a cancelled job.

    Each keeps its failed ``attempts`` and the time it failed (``finished``) until a worker
    claims it (:data:`debates.services.leases.LeaseSQL.CLAIM` then zeroes both), so that a
    cancel before it runs again can put it back failed as it was (:func:`debate_job_cancel`)
    instead of leaving a pending pair whose failure no list shows."""
    with transaction.atomic():
        locked = _locked(job)
        if locked.status == DebateJob.Status.CANCELLED:
            raise DebateJobError(f"job {job.pk} is cancelled")
        failed = list(
            locked.debates.filter(status=Debate.Status.FAILED).values_list("pk", flat=True)
        )
        # A failed debate has its finish time; one without (a row written by hand) gets now,
        # since the claim tells a given-back debate by it.
        Debate.objects.filter(pk__in=failed).update(
            status=Debate.Status.PENDING, finished=Coalesce(F("finished"), timezone.now())
        )
        if failed and locked.status == DebateJob.Status.FINISHED:
            locked.status, locked.finished = DebateJob.Status.RUNNING, None
            locked.save(update_fields=["status", "finished"])
        if locked.batch:
            # A batch job's failed debates go out in the next batch: their given-up requests
            # are due again, with a fresh count of failures.
            from debates.models import BatchRequest

            BatchRequest.objects.filter(
                debate_id__in=failed, status=BatchRequest.Status.FAILED
            ).update(status=BatchRequest.Status.DUE, failures=0)
        elif enqueue and locked.status == DebateJob.Status.RUNNING and failed:
            DebateJob.objects.filter(pk=locked.pk).update(sent=timezone.now())
            debates_enqueue(failed, queue=job_queue(locked))
    job.refresh_from_db()
    return len(failed)


def debate_job_get(*, pk: int) -> DebateJob:
    """The job with this id. Raises ``DebateJob.DoesNotExist``."""
    return DebateJob.objects.select_related("pool__dataset").get(pk=pk)
