"""How much of a debate job goes to humans: the audit share of agreed labels (a sample
humans check to estimate how often the LLM consensus is wrong) and the human budget (how many
pairs humans review at most, highest impact first). Both may change while the job runs; the
review queue (assess) reads them on every claim, and after each change (once committed) hears
of it through :data:`debates.signals.debate_job_human_changed`: assess draws the audits a
raised share adds and renumbers the items in budget order there, not on a page read."""

from __future__ import annotations

from django.db import transaction

from debates.models import DebateJob
from debates.services.common import MAX_GOLD_SHARE, DebateJobError
from debates.signals import debate_job_human_changed


def _announce(job_id: int, field: str) -> None:
    # After the commit, so that a receiver's own reads (and a debate ending meanwhile in a
    # worker) see the new value; at once outside a transaction.
    transaction.on_commit(
        lambda: debate_job_human_changed.send(sender=DebateJob, job_id=job_id, field=field)
    )


def debate_job_audit_share_set(*, job: DebateJob, share: float) -> DebateJob:
    """Set the share (0..1) of ``job``'s agreed labels drawn for a human audit.

    The draw is monotone (a pair audited at share s stays audited at any larger share, see
    ``assess.review.agreement.audit_draw``) and each stratum's stored probability only rises
    (``DebateJob.audit_inclusion``, :mod:`debates.audit_design`), so raising the share only
    adds audits; lowering it keeps the audit items already queued and the probabilities
    already committed to each stratum (a lower one would leave the sample without a known
    probability); the audits a raised share adds are queued once the change is committed
    (:data:`debates.signals.debate_job_human_changed`). Raises DebateJobError outside 0..1."""
    if not 0 <= share <= 1:
        raise DebateJobError(f"audit share must be between 0 and 1, got {share}")
    DebateJob.objects.filter(pk=job.pk).update(audit_share=share)
    job.audit_share = share
    _announce(job.pk, "audit_share")
    return job


def debate_job_gold_share_set(*, job: DebateJob, share: float) -> DebateJob:
    """Set the share (0..0.5) of each annotator's pairs on ``job`` that are known-answer
    pairs (``assess.review.gold``; 0 turns them off). Takes effect at the next claim; the
    gold pairs a raised share needs are drawn once the change is committed
    (:data:`debates.signals.debate_job_human_changed`, field ``"gold_share"``).
    Raises DebateJobError outside 0..0.5."""
    if not 0 <= share <= MAX_GOLD_SHARE:
        raise DebateJobError(f"gold share must be between 0 and {MAX_GOLD_SHARE}, got {share}")
    DebateJob.objects.filter(pk=job.pk).update(gold_share=share)
    job.gold_share = share
    _announce(job.pk, "gold_share")
    return job


def debate_job_budget_set(*, job: DebateJob, budget: int | None) -> DebateJob:
    """Set ``job``'s human budget: at most ``budget`` pairs go to humans (escalated and
    audited together), highest impact on the benchmark first; None removes the limit.
    Editable while the job runs: raising it releases the next pairs in order at the next
    claim; lowering it never takes back a pair a human already holds or judged (the items are
    renumbered once the change is committed, :data:`debates.signals.debate_job_human_changed`).
    Raises DebateJobError for a negative budget."""
    if budget is not None and budget < 0:
        raise DebateJobError(f"human budget must be 0 or more pairs, got {budget}")
    DebateJob.objects.filter(pk=job.pk).update(human_budget=budget)
    job.human_budget = budget
    _announce(job.pk, "human_budget")
    return job
