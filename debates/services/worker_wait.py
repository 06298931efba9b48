"""Whether a running job is waiting for a Celery worker that is not taking its work.

With a broker configured, launching a job only sends messages; nothing in the app knows
whether a worker listens on the queue they went to. A newcomer who started the web server
but no worker (or a worker on the other queue) sees a job at 0% for ever. The job page, the
API and the commands that follow a job say so once no debate of the job has moved for
:data:`WORKER_WAIT_SECONDS`, naming the queue and the worker command that takes it.

The database, not the broker, is the source of truth: the warning reads when the job last
showed a worker's hand (a debate started or finished, the stage-0 step claimed), so it never
asks Celery (``inspect ping`` waits a second per call and would slow every poll of the page).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from django.db.models import Max
from django.utils import timezone

from core.broker import tasks_run_in_process
from debates.models import DebateJob, Stage0State
from debates.services.common import LOCAL_QUEUE, REMOTE_QUEUE
from debates.services.progress import JobProgress
from debates.services.queue import job_queue

# A worker takes a message within a second when it is idle; a minute leaves room for a
# busy one (another job's debates ahead in its queue) before we suggest none is there.
WORKER_WAIT_SECONDS = 60

ProgressWatch = Callable[[JobProgress], None]

# The worker command the manual gives for each queue (docs/production.md).
WORKER_COMMANDS = {
    REMOTE_QUEUE: "celery -A config worker -Q llm_remote -P threads -c 32",
    LOCAL_QUEUE: "celery -A config worker -Q celery -P prefork -c 2",
}


def worker_wait_describe(*, waited: dt.timedelta, queue: str, pending: int, what: str) -> str:
    """The warning for a job whose ``what`` ("its debates", "its stage-0 step") no worker
    has taken for ``waited``, ``pending`` debates waiting on Celery queue ``queue``; "" when
    ``waited`` is under :data:`WORKER_WAIT_SECONDS`. Pure: no database, no broker."""
    seconds = waited.total_seconds()
    if seconds < WORKER_WAIT_SECONDS:
        return ""
    minutes = int(seconds // 60)
    span = f"{minutes} minute{'s' if minutes != 1 else ''}"
    command = WORKER_COMMANDS.get(queue, f"celery -A config worker -Q {queue}")
    return (
        f"No worker has taken {what} for {span} ({pending:,} debate"
        f'{"s" if pending != 1 else ""} waiting on the Celery queue "{queue}"). '
        f"Is a worker listening on that queue, with the same CELERY_BROKER_URL? "
        f"Start one with: {command}"
    )


def debate_job_worker_warning(
    *, job: DebateJob, progress: JobProgress, now: dt.datetime | None = None
) -> str:
    """A sentence when ``job`` runs on Celery workers, has pending debates, none running, and
    no worker has shown its hand for :data:`WORKER_WAIT_SECONDS` (no debate started or
    finished, no stage-0 step claimed, since the job started); "" otherwise, and always ""
    without a broker (the debates then run in the process that launched them), for a batch
    job (the provider's batch runs them) or while stage 0 trains or routes."""
    if tasks_run_in_process() or job.batch or progress.status != DebateJob.Status.RUNNING:
        return ""
    if progress.running or not progress.pending:
        return ""
    state = job.stage0_state
    if state in (Stage0State.TRAINING, Stage0State.ROUTING):
        return ""
    if state == Stage0State.WAITING and job.stage0_claimed is None:
        # The stage-0 step goes first, to the default queue; the debates wait for it.
        queue, what = LOCAL_QUEUE, "its stage-0 step"
    else:
        queue, what = job_queue(job), "its debates"
    moved = job.debates.aggregate(started=Max("started"), finished=Max("finished"))
    marks = [job.started, job.stage0_claimed, moved["started"], moved["finished"]]
    last = max((mark for mark in marks if mark is not None), default=job.created)
    return worker_wait_describe(
        waited=(now or timezone.now()) - last, queue=queue, pending=progress.pending, what=what
    )


def worker_warning_watch(*, job: DebateJob, say: Callable[[str], None]) -> ProgressWatch:
    """A progress callback for a command following ``job`` on the workers: the first time
    :func:`debate_job_worker_warning` applies, it passes the sentence to ``say`` (once: a
    follower polling every second should not repeat it)."""
    said = [False]

    def watch(progress: JobProgress) -> None:
        if said[0]:
            return
        warning = debate_job_worker_warning(job=job, progress=progress)
        if warning:
            said[0] = True
            say(warning)

    return watch
