"""Whether background work runs in this process or on Celery workers, asked in one place by
every app (the debate launch, background retrieval, exports)."""

from __future__ import annotations

import datetime as dt
import logging
import threading
from typing import Any

from celery import Task, current_app
from django.conf import settings
from django.db import close_old_connections, connections, transaction
from django.utils import timezone

log = logging.getLogger(__name__)


def tasks_run_in_process() -> bool:
    """True when no broker is configured, so tasks run in this process (eagerly); False when
    they are sent to Celery workers.

    Both Django's ``CELERY_TASK_ALWAYS_EAGER`` (set from ``CELERY_BROKER_URL`` in
    ``config/settings.py``) and the Celery app's own ``task_always_eager`` must say so: a test
    may point either one at a broker.
    """
    return bool(getattr(settings, "CELERY_TASK_ALWAYS_EAGER", True)) and bool(
        current_app.conf.task_always_eager
    )


def task_named(name: str) -> Task[Any, Any]:
    """The Celery task registered under ``name`` (the ``name=`` of its ``@shared_task``).

    A service sends its own task through this, by name, rather than importing the task
    module, which imports the service: the two would import each other. Each app's
    ``AppConfig.ready()`` imports its ``tasks`` module, so every process (web, worker,
    command) has the tasks registered. Raises ``celery.exceptions.NotRegistered`` for an
    unknown name."""
    return current_app.tasks[name]


def background_after_commit(task: Any, object_id: int, *, name: str) -> None:
    """Once the current transaction commits, run Celery ``task`` for ``object_id`` (a row's
    primary key): sent to the workers when a broker is configured, else run in a daemon
    thread of this process, so a web request answers at once either way. The thread closes
    its database connections when done; an error it meets is logged (a thread has no caller
    to raise to), and the row the task updates tells what happened."""

    def start() -> None:
        if not tasks_run_in_process():
            task.delay(object_id)
            return
        threading.Thread(target=_thread_run, args=(task, object_id), name=name, daemon=True).start()

    transaction.on_commit(start)


def _thread_run(task: Any, object_id: int) -> None:
    close_old_connections()
    try:
        task(object_id)  # the task's function, called directly in this thread
    except Exception:
        log.exception("background %s(%s) stopped with an error", task.name, object_id)
    finally:
        connections.close_all()


# How long background work may wait for a worker before its page suggests none is there: an
# idle worker takes a message within a second; a minute leaves room for a busy one.
WORKER_WAIT_SECONDS = 60
DEFAULT_QUEUE = "celery"  # Celery's default queue: every step the manual's prefork worker takes
# The worker the manual starts for that queue (docs/production.md).
DEFAULT_WORKER_COMMAND = "celery -A config worker -Q celery -P prefork -c 2"


def wait_span(seconds: float) -> str:
    """A wait in the unit a reader takes in at a glance, rounded down: "1 minute", "119
    minutes", then "2 hours" up to "47 hours", then "3 days"."""
    minutes = int(seconds // 60)
    hours, days = minutes // 60, minutes // (60 * 24)
    count, unit = (
        (days, "day") if hours >= 48 else (hours, "hour") if minutes >= 120 else (minutes, "minute")
    )
    return f"{count} {unit}{'s' if count != 1 else ''}"


def worker_wait_sentence(
    *, waited: dt.timedelta, queue: str = DEFAULT_QUEUE, what: str, waiting: str = "it waits",
    detail: str = "", command: str = "",
) -> str:  # fmt: skip
    """The warning for background work (``what``: "its debates", "this step") that no
    worker has taken for ``waited``, sent to Celery queue ``queue``: "``waiting`` on the
    Celery queue" ("2 debates wait"), then ``detail`` (", 2 debates behind it");
    ``command`` the worker command to suggest
    (default: one for that queue). "" when ``waited`` is under :data:`WORKER_WAIT_SECONDS`.
    Nothing in the app can see whether a worker listens on a queue: callers read how long
    their own rows have waited. Pure: no database, no broker."""
    seconds = waited.total_seconds()
    if seconds < WORKER_WAIT_SECONDS:
        return ""
    span = wait_span(seconds)
    command = command or (
        DEFAULT_WORKER_COMMAND if queue == DEFAULT_QUEUE else f"celery -A config worker -Q {queue}"
    )
    return (
        f'No worker has taken {what} for {span}: {waiting} on the Celery queue "{queue}"'
        f"{detail}. Is a worker listening on that queue, with the same CELERY_BROKER_URL? "
        f"Start one with: {command} (in a checkout set up by ./dream: .venv/bin/celery)."
    )


def background_wait_warning(*, status: str, queued: str, since: Any, now: Any = None) -> str:
    """The worker warning for a background row (an upload's operation, an export file)
    still at its first status: ``status`` is the row's, ``queued`` the status it has until a
    worker claims it, ``since`` when it was created (a datetime). "" without a broker (the
    step then runs in a thread of this process) or once a worker claimed it."""
    if status != queued or tasks_run_in_process():
        return ""
    return worker_wait_sentence(waited=(now or timezone.now()) - since, what="this step")
