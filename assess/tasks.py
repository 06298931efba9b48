"""Celery tasks of the assess app, found by ``app.autodiscover_tasks()`` (which imports
``<app>.tasks`` only). Tasks live in their own modules and are imported here so that every
worker registers them; add new task modules below."""

from .refined.tasks import export_write_task  # noqa: F401  (refined benchmarks: exports)
from .review.tasks import sync_review_items  # noqa: F401  (human judging: review queue)
