"""Celery tasks for corpora: thin wrappers that fetch a row by id and call one service."""

from __future__ import annotations

from celery import shared_task


@shared_task(acks_late=True)
def retrieve_task(run_id: int) -> str:
    """Execute built-in Run ``run_id`` (see :func:`corpora.services.run_retrieve`).

    Idempotent: a run already done, or deleted since it was queued, is left alone.
    Returns the run's final status.
    """
    from .models import Run
    from .services import run_retrieve

    run = Run.objects.filter(pk=run_id).first()
    if run is None:
        return "missing"
    return run_retrieve(run=run).status
