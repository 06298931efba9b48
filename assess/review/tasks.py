"""Celery task of the review queue (registered through ``assess.tasks``)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="assess.sync_review_items", ignore_result=True)
def sync_review_items() -> int:
    """Periodic (Celery beat): put every job's newly escalated debates, and its newly drawn
    audit samples, in the review queue (:func:`assess.review.services.review_items_sync_all`).
    Idempotent; returns the number of review items created."""
    from .services import review_items_sync_all

    return review_items_sync_all()
