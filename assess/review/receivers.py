"""Where review items come from: the signals of :mod:`debates.signals`, connected by
:meth:`assess.apps.AssessConfig.ready` (debates cannot import assess, so it announces and
assess listens).

- :data:`~debates.signals.debate_ended`: an escalated debate gets its item, an agreed one
  drawn for the audit its audit item (:func:`assess.review.services.review_item_for_debate`).
  Sent by the worker that ran the debate, in the LLM hot path: an agreed debate not drawn
  costs one query.
- :data:`~debates.signals.debate_job_human_changed`: a changed audit share or human budget
  draws the audits and renumbers the items
  (:func:`assess.review.services.review_items_on_job_change`).
- ``pre_save`` of the user model: the simulated annotator keeps its name, and nobody else
  takes it (:func:`assess.review.simulated_annotators.on_user_save`).

No page creates review items when it is read; the periodic task and the ``review_sync``
command remain as a safety net (:func:`assess.review.services.review_items_sync_all`).
"""

from __future__ import annotations

from django.conf import settings
from django.db.models.signals import pre_save

from debates.models import DebateJob
from debates.signals import debate_ended, debate_job_human_changed

from .services import review_item_for_debate, review_items_on_job_change
from .simulated_annotators import on_user_save


def on_debate_ended(sender, *, debate_id: int, status: str | None = None, **kwargs) -> None:
    """Queue the debate for humans if it escalated or was drawn for the audit. ``status``
    is only a hint: a failed debate needs no query; otherwise the outcome is read back."""
    if status == "failed":
        return
    review_item_for_debate(debate_id=debate_id)


def on_job_human_changed(sender, *, job_id: int, field: str, **kwargs) -> None:
    """Draw the audits of a raised share, renumber the items for a changed budget."""
    job = DebateJob.objects.filter(pk=job_id).first()
    if job is not None:
        review_items_on_job_change(job=job, field=field)


def connect() -> None:
    """Connect the receivers (idempotent: fixed ``dispatch_uid``)."""
    debate_ended.connect(on_debate_ended, dispatch_uid="assess.review.on_debate_ended")
    debate_job_human_changed.connect(
        on_job_human_changed, dispatch_uid="assess.review.on_job_human_changed"
    )
    # The simulated annotator's name marks its labels: no save may rename it, or give a
    # person that name.
    pre_save.connect(
        on_user_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="assess.review.on_user_save"
    )
