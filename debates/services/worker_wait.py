"""Whether a running job is waiting for a Celery worker that is not taking its work.

With a broker configured, launching a job only sends messages; nothing in the app knows
whether a worker listens on the queue they went to. A newcomer who started the web server
but no worker (or a worker on the other queue) sees a job at 0% for ever. The job page, the
API and the commands that follow a job say so once no debate of the job has moved for
:data:`core.broker.WORKER_WAIT_SECONDS`, naming the queue and the worker command that takes it.

The database, not the broker, is the source of truth: the warning reads when the job last
showed a worker's hand (a debate started or finished, the stage-0 step claimed), so it never
asks Celery (``inspect ping`` waits a second per call and would slow every poll of the page).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from django.db.models import Count, Max
from django.utils import timezone

from core.broker import tasks_run_in_process, worker_wait_sentence
from core.text import plural
from debates.models import Debate, DebateJob, Stage0State
from debates.services.common import LOCAL_QUEUE, REMOTE_QUEUE
from debates.services.progress import JobProgress
from debates.services.queue import job_queue

ProgressWatch = Callable[[JobProgress], None]

# The worker command the manual gives for the remote queue (docs/production.md); the default
# queue's is core.broker's, as every background step's.
WORKER_COMMANDS = {REMOTE_QUEUE: "celery -A config worker -Q llm_remote -P threads -c 32"}


def worker_wait_describe(
    *, waited: dt.timedelta, queue: str, pending: int, stage0: bool = False, lost: int = 0
) -> str:
    """The warning for a job no worker has taken for ``waited``, with ``pending`` debates
    on Celery queue ``queue`` (``stage0``: its stage-0 step waits there first, the debates
    behind it; ``lost``: how many of the ``pending`` were held by a worker that stopped, their
    lease expired); "" under :data:`core.broker.WORKER_WAIT_SECONDS`. Pure."""
    debates = plural(pending, "debate")
    detail = f", {debates} behind it" if stage0 else ""
    if lost:
        detail += (
            f" ({lost} of them held by a worker that stopped answering: their lease expired, "
            "and a running `celery -A config beat` gives such debates back to the queue)"
        )
    return worker_wait_sentence(
        waited=waited,
        queue=queue,
        what="its stage-0 step" if stage0 else "its debates",
        waiting="it waits" if stage0 else f"{debates} wait{'s' if pending == 1 else ''}",
        detail=detail,
        command=WORKER_COMMANDS.get(queue, ""),
    )


def debate_job_worker_warning(
    *, job: DebateJob, progress: JobProgress, now: dt.datetime | None = None
) -> str:
    """A sentence when ``job`` runs on Celery workers, has debates waiting (pending, or held
    by a worker whose lease expired), no live worker holding one, and no worker has shown
    its hand for :data:`core.broker.WORKER_WAIT_SECONDS` since they were last sent (no
    debate started or finished, no stage-0 step claimed, no lease expired; a retry counts
    from the end of its back-off); "" otherwise, and always "" without a broker (the debates
    then run in the process that launched them), for a batch job (the provider's batch runs
    them) or while stage 0 trains or routes."""
    if tasks_run_in_process() or job.batch or progress.status != DebateJob.Status.RUNNING:
        return ""
    state = job.stage0_state
    if state in (Stage0State.TRAINING, Stage0State.ROUTING):
        return ""
    now = now or timezone.now()
    # A running debate whose lease expired has no worker: it was killed, ran out of memory
    # or hung, and waits for beat to give it back to the queue.
    lost = job.debates.filter(status=Debate.Status.RUNNING, lease_expires_at__lt=now).aggregate(
        n=Count("pk"), expired=Max("lease_expires_at")
    )
    if progress.running > lost["n"] or not (progress.pending or lost["n"]):
        return ""
    # The stage-0 step goes first, to the default queue; the debates wait for it.
    stage0 = state == Stage0State.WAITING
    queue = LOCAL_QUEUE if stage0 else job_queue(job)
    moved = job.debates.aggregate(started=Max("started"), finished=Max("finished"))
    marks = [job.started, job.sent, job.stage0_claimed, moved["started"], moved["finished"]]
    last = max(
        (mark for mark in [*marks, lost["expired"]] if mark is not None), default=job.created
    )
    return worker_wait_describe(
        waited=now - last,
        queue=queue,
        pending=progress.pending + lost["n"],
        stage0=stage0,
        lost=lost["n"],
    )


def worker_warning_watch(*, job: DebateJob, say: Callable[[str], None]) -> ProgressWatch:
    """A progress callback for a command following ``job`` on the workers: the first time
    :func:`debate_job_worker_warning` applies, it passes the sentence to ``say`` (once: a
    follower polling every second should not repeat it); after that warning, the first time
    a worker shows its hand (a debate running or one more finished) it says so, once, so
    that whoever started a worker on reading the warning sees that it worked."""
    warned_at: list[int] = []  # the finished debates when the warning was said
    cleared = [False]

    def watch(progress: JobProgress) -> None:
        if cleared[0]:
            return
        # The job as it is now: its stage-0 state and marks move while a command follows it.
        fresh = DebateJob.objects.filter(pk=job.pk).first()
        warning = fresh and debate_job_worker_warning(job=fresh, progress=progress)
        if not warned_at:
            if warning:
                warned_at.append(progress.done)
                say(warning)
            return
        # Taken: the warning no longer holds because a worker runs or finished a debate (a
        # debate "running" under an expired lease keeps the warning, so it is no sign).
        if not warning and (progress.running or progress.done > warned_at[0]):
            cleared[0] = True
            say(f"A worker took job {job.pk}'s work: following it.")

    return watch
