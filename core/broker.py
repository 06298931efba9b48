"""Whether background work runs in this process or on Celery workers, asked in one place by
every app (the debate launch, background retrieval, exports)."""

from __future__ import annotations

from celery import current_app
from django.conf import settings


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
