"""Celery tasks for corpora: thin wrappers that fetch a row by id and call one service.

A retrieval runs in time slices. ``retrieve_task`` has the soft and hard time limits
``DREAM_RETRIEVE_SOFT_TIME_LIMIT`` / ``DREAM_RETRIEVE_TIME_LIMIT`` (config/settings.py; the
hard one defaults to ``CELERY_TASK_TIME_LIMIT`` and, like it, stays below the broker's
visibility timeout). A dense run commits document vectors as it encodes them, so at the soft
limit the task hands the run back to the queue (:func:`corpora.services.runs.run_suspend`) and
the next task goes on from the stored vectors. A task killed outright leaves the run
"running" with its lock gone (the lock belongs to the dead process's database connection):
after a lost worker the message is delivered again (``acks_late``,
``reject_on_worker_lost``) and resumes the run; after the hard time limit Celery
acknowledges the message, and :func:`fail_stale_runs` (Celery beat) marks the run failed
with the reason, to be resumed by retrieving it again. This is the pattern of debate leases
(debates.services), with the advisory lock as the lease.
"""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings


# Each name is the one its service sends the task by (core.broker.task_named):
# corpora.services.runs.RETRIEVE_TASK, corpora.services.operations.OPERATION_TASK.
@shared_task(
    name="corpora.tasks.retrieve_task",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.DREAM_RETRIEVE_TIME_LIMIT,
    soft_time_limit=settings.DREAM_RETRIEVE_SOFT_TIME_LIMIT,
)
def retrieve_task(run_id: int) -> str:
    """Execute built-in Run ``run_id`` (see :func:`corpora.services.runs.run_retrieve`).

    Idempotent: a run already done, or deleted since it was queued, is left alone, and a
    run another worker is executing (a second delivery) too. At the soft time limit a run
    that made progress is queued again; one that did not is left failed with the reason.
    Returns the run's status afterwards (``"missing"`` for a deleted run).
    """
    from .models import Run
    from .services.runs import RunBusy, run_retrieve, run_suspend, run_vectors_stored

    run = Run.objects.filter(pk=run_id).first()
    if run is None:
        return "missing"
    before = run_vectors_stored(run=run)
    try:
        return run_retrieve(run=run).status
    except Run.DoesNotExist:
        return "missing"
    except RunBusy:
        return Run.Status.RUNNING
    except SoftTimeLimitExceeded:
        if run_suspend(
            run=run, vectors_before=before, seconds=settings.DREAM_RETRIEVE_SOFT_TIME_LIMIT
        ):
            retrieve_task.delay(run_id)
        # Read back: without a broker the queued task has already run in this process.
        return Run.objects.filter(pk=run_id).values_list("status", flat=True).first() or "missing"


@shared_task(name="corpora.fail_stale_runs", ignore_result=True)
def fail_stale_runs() -> int:
    """Periodic (Celery beat): mark failed the runs, and the uploads or pool builds
    (operations), left running by a task that died."""
    from .services.operations import operation_fail_stale
    from .services.runs import run_fail_stale

    return run_fail_stale() + operation_fail_stale()


@shared_task(name="corpora.operation", acks_late=True, reject_on_worker_lost=True)
def operation_task(operation_id: int) -> str:
    """Run operation ``operation_id`` (an upload imported, a pool built;
    :func:`corpora.services.operations.operation_run`). Idempotent: a second delivery finds
    the row no longer queued and does nothing. Returns the operation's status after."""
    from .services.operations import operation_run

    return operation_run(operation_id=operation_id).status
