"""Celery tasks for debates: thin wrappers that fetch a row by id and call one service.

``run_debate`` is idempotent (see :func:`debates.services.run.debate_run`): it acknowledges its
message only after the debate ran (``acks_late``) and hands the message back if the worker
process dies under it (``reject_on_worker_lost``); a message delivered twice does nothing
the second time.
"""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_init
from django.conf import settings


@worker_init.connect
def _load_the_openai_backend(**_: object) -> None:
    """Import the openai backend while the worker boots, before its pool starts: a worker is
    ready only once its code is loaded, and prefork children inherit the import."""
    import debates.llm.openai_backend  # noqa: F401


@shared_task(
    name="debates.run_debate",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.CELERY_TASK_TIME_LIMIT,
    ignore_result=True,
)
def run_debate(debate_id: int) -> str:
    """Run debate ``debate_id`` if it is pending and its job running; return its status
    after (``"missing"`` if it was deleted since it was queued)."""
    from .models import Debate
    from .services.run import debate_run

    # debate_run loads the row itself (its claim is the first statement): no extra query.
    try:
        return debate_run(debate=Debate(pk=debate_id)).status
    except Debate.DoesNotExist:
        return "missing"


@shared_task(name="debates.requeue_expired_debates", ignore_result=True)
def requeue_expired_debates() -> int:
    """Periodic (Celery beat, every minute): requeue debates whose worker lease expired."""
    from .services.run import debate_requeue_expired

    return debate_requeue_expired()
