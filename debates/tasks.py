"""Celery tasks for debates: thin wrappers that fetch a row by id and call one service.

``run_debate`` is idempotent (see :func:`debates.services.run.debate_run`): it acknowledges its
message only after the debate ran (``acks_late``) and hands the message back if the worker
process dies under it (``reject_on_worker_lost``); a message delivered twice does nothing
the second time. ``deliver_webhook`` sends one webhook delivery and ``resend_due_webhooks``
(periodic) the deliveries whose message was lost; both are idempotent in the same way.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_init
from django.conf import settings


@worker_init.connect
def _worker_boot(sender: Any, **_: object) -> None:
    """Before the worker's pool starts: import the openai backend (a worker is ready only once
    its code is loaded, and prefork children inherit the import), and give a thread pool
    worker ``-c N`` N LLM slots shared by a few more threads (``debate_worker_gate_install``),
    so at most N requests are in flight and none waits for another debate's database write."""
    from celery.concurrency import get_implementation
    from celery.concurrency.thread import TaskPool as ThreadPool

    import debates.llm.openai_backend  # noqa: F401

    from .services.run import debate_worker_gate_install

    pool = get_implementation(sender.pool_cls)
    threaded = isinstance(pool, type) and issubclass(pool, ThreadPool)
    # "-c auto" and --autoscale size the pool themselves: left as they are, without a gate.
    if threaded and isinstance(sender.concurrency, int) and not sender.options.get("autoscale"):
        sender.concurrency = debate_worker_gate_install(slots=sender.concurrency)


# Each name is the one its service sends the task by (core.broker.task_named):
# debates.services.queue.RUN_DEBATE_TASK, debates.services.webhooks.DELIVER_WEBHOOK_TASK.
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
    from .services.run import debate_run_status, debate_worker_gate

    # debate_run_status loads the row itself (its claim is the first statement) and reads
    # nothing back once the outcome is stored: no extra query.
    try:
        return debate_run_status(debate_id=debate_id, gate=debate_worker_gate()).status
    except Debate.DoesNotExist:
        return "missing"


@shared_task(
    name="debates.run_stage0",
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.CELERY_TASK_TIME_LIMIT,
    ignore_result=True,
)
def run_stage0(job_id: int) -> str:
    """Run job ``job_id``'s stage-0 step (train a judge if needed, settle the pairs it is sure
    of), then enqueue its pending debates; return its stage-0 state after. Idempotent: the
    step runs once (a claimed row), and a debate queued twice runs once."""
    from .models import DebateJob
    from .services.jobs import debate_job_stage0_continue

    job = DebateJob.objects.filter(pk=job_id).first()
    if job is None:
        return "missing"
    return debate_job_stage0_continue(job=job)


@shared_task(name="debates.requeue_expired_debates", ignore_result=True)
def requeue_expired_debates() -> int:
    """Periodic (Celery beat, every minute): requeue debates whose worker lease expired."""
    from .services.run import debate_requeue_expired

    return debate_requeue_expired()


@shared_task(name="debates.deliver_webhook", acks_late=True, ignore_result=True)
def deliver_webhook(delivery_id: int) -> str:
    """Make one attempt at webhook delivery ``delivery_id`` if it is pending and due; return
    its status after. Idempotent: a second message finds the delivery claimed or done."""
    from .services.webhooks import webhook_deliver

    return webhook_deliver(delivery_id=delivery_id)


@shared_task(name="debates.resend_due_webhooks", ignore_result=True)
def resend_due_webhooks() -> int:
    """Periodic (Celery beat, every minute): send again the webhook deliveries that are due
    but were not sent (message lost, sender died, a retry too far off for a countdown)."""
    from .services.webhooks import webhook_resend_due

    return webhook_resend_due()
