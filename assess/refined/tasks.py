"""Celery tasks of the refined-benchmark side: thin wrappers that fetch a row by id and call
one service. (Registered with workers through ``assess.tasks``, which imports this module.)"""

from __future__ import annotations

from celery import shared_task


@shared_task(name="assess.export_write", acks_late=True, ignore_result=True)
def export_write_task(export_id: int) -> str:
    """Write ExportFile ``export_id`` (see :func:`assess.refined.exports.export_write`).

    Idempotent: an export already running or done elsewhere, or deleted since it was queued,
    is left alone. Returns the export's status after (``"missing"`` if deleted).
    """
    from ..models import ExportFile
    from .exports import export_write

    export = ExportFile.objects.filter(pk=export_id).first()
    if export is None:
        return "missing"
    return export_write(export=export).status
