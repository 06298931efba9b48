"""Sending debates to the Celery workers: which queue a job's debates go to, which of its
debates are pending, and the message per debate, sent only once the transaction commits (a
worker must find the rows it is told about)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from core.broker import task_named
from debates.models import Debate, DebateJob
from debates.services.common import LOCAL_QUEUE, debate_queue

#: The registered name of :func:`debates.tasks.run_debate`, the task that runs one debate.
RUN_DEBATE_TASK = "debates.run_debate"


def job_queue(job: DebateJob) -> str:
    """The Celery queue of ``job``'s debates (:func:`~debates.services.common.debate_queue`)."""
    agent_a, agent_b = job.agents
    return debate_queue(agent_a=agent_a, agent_b=agent_b)


def debates_pending_ids(job: DebateJob) -> list[int]:
    """Ids of ``job``'s pending debates, oldest first."""
    return list(
        job.debates.filter(status=Debate.Status.PENDING).order_by("pk").values_list("pk", flat=True)
    )


def debates_enqueue(
    debate_ids: Iterable[int], *, queue: str = LOCAL_QUEUE, countdown: float | None = None
) -> None:
    """Send one :func:`~debates.tasks.run_debate` message per debate to ``queue`` (after
    ``countdown`` seconds) once the transaction commits (at once when there is none)."""
    ids = list(debate_ids)
    if not ids:
        return

    def send() -> None:
        run_debate = task_named(RUN_DEBATE_TASK)
        for pk in ids:
            # celery-types says countdown: float; Celery takes None as "no delay".
            run_debate.apply_async((pk,), countdown=countdown, queue=queue)  # type: ignore[arg-type]

    transaction.on_commit(send)
