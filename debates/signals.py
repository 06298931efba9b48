"""Signals other apps listen to, since debates may not import them (corpora ← debates ← assess).

:data:`debate_ended` is sent once a debate's outcome is stored: ``sender`` is
:class:`debates.models.Debate`; keyword arguments ``debate_id`` (int), ``job_id`` (int) and
``status`` (``"agreed"``, ``"escalated"`` or ``"failed"``). It is sent from the worker that ran
the debate (a Celery worker, an in-process thread), after the write committed, outside any
transaction of ours; a receiver that raises is logged and does not undo the outcome
(``send_robust``). The review queue (``assess.review``) uses it to queue escalated pairs and
drawn audits at once, so no page has to create them when it is read.

:data:`debate_job_human_changed` is sent after a job's audit share or human budget was
changed and committed (:mod:`debates.services.human`): ``sender`` is
:class:`debates.models.DebateJob`; keyword arguments ``job_id`` (int) and ``field``
(``"audit_share"``, ``"gold_share"`` or ``"human_budget"``). The review queue draws the
audits a raised share adds, the gold pairs a raised gold share needs, and renumbers the
job's items in budget order there. A receiver that raises makes the
service raise (the new value is stored already).
"""

from __future__ import annotations

from django.dispatch import Signal

debate_ended = Signal()
debate_job_human_changed = Signal()
