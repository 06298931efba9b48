"""The Celery application, wired the standard way (tasks autodiscovered from apps).

A worker refuses to start when the broker could redeliver a task that is still running:
with Redis (and SQS) an unacknowledged message is handed to another worker once the
broker's visibility timeout passes, so the timeout must exceed the task time limit
(:func:`check_visibility_timeout`, run as a worker boot step).
"""

import os

from celery import Celery, bootsteps
from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("dream")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Transports that redeliver an unacknowledged message after a visibility timeout.
_VISIBILITY_TRANSPORTS = ("redis", "rediss", "sentinel", "sqs")
KOMBU_DEFAULT_VISIBILITY_TIMEOUT = 3600  # seconds, kombu's Redis and SQS default


def check_visibility_timeout(conf) -> None:
    """Raise ImproperlyConfigured unless the broker's visibility timeout (seconds) is longer
    than the task time limit (seconds), for brokers that redeliver by timeout.

    ``conf`` is a Celery app's configuration (``broker_url``, ``task_time_limit``,
    ``broker_transport_options``). Without a time limit a task could outlive any timeout,
    so a limit is required too.
    """
    url = conf.broker_url or ""
    if url.split("://", 1)[0].split("+")[0] not in _VISIBILITY_TRANSPORTS:
        return
    limit = conf.task_time_limit
    if not limit:
        raise ImproperlyConfigured(
            "CELERY_TASK_TIME_LIMIT must be set with a Redis or SQS broker: a task running "
            "past the broker's visibility timeout is delivered a second time"
        )
    options = conf.broker_transport_options or {}
    timeout = options.get("visibility_timeout", KOMBU_DEFAULT_VISIBILITY_TIMEOUT)
    if timeout <= limit:
        raise ImproperlyConfigured(
            f"the broker's visibility timeout ({timeout} s, CELERY_VISIBILITY_TIMEOUT) must be "
            f"longer than the task time limit ({limit} s, CELERY_TASK_TIME_LIMIT), or a task "
            "still running is delivered to a second worker"
        )
    # The retrieval task has its own, possibly longer, limit (corpora.tasks.retrieve_task).
    from django.conf import settings

    retrieve = getattr(settings, "DREAM_RETRIEVE_TIME_LIMIT", 0)
    if retrieve and timeout <= retrieve:
        raise ImproperlyConfigured(
            f"the broker's visibility timeout ({timeout} s, CELERY_VISIBILITY_TIMEOUT) must be "
            f"longer than the retrieval task's time limit ({retrieve} s, "
            "DREAM_RETRIEVE_TIME_LIMIT), or a retrieval still running is delivered again"
        )


class StartupChecks(bootsteps.Step):
    """Worker boot step: configuration checks that must stop a worker from starting.

    (A signal handler cannot do this: Celery logs and swallows exceptions raised in signal
    receivers.)
    """

    def __init__(self, parent, **kwargs):
        check_visibility_timeout(parent.app.conf)
        super().__init__(parent, **kwargs)


app.steps["worker"].add(StartupChecks)
