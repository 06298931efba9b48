"""Whether background work runs in this process or on Celery workers, asked in one place by
every app (the debate launch, background retrieval, exports)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import Task, current_app
from django.conf import settings
from django.db import close_old_connections, connections, transaction

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
