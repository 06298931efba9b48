"""How much of a debate job goes to humans (issue 15): the audit share of agreed labels and
the human budget. Both may change while the job runs; the review queue (assess) reads them on
every sync and claim."""

from __future__ import annotations

from debates.models import DebateJob
from debates.services.common import DebateJobError


def debate_job_audit_share_set(*, job: DebateJob, share: float) -> DebateJob:
    """Set the share (0..1) of ``job``'s agreed labels drawn for a human audit.

    The draw is monotone (a pair audited at share s stays audited at any larger share, see
    ``assess.review.agreement.audit_draw``), so raising the share only adds audits; lowering
    it keeps the audit items already queued. Raises DebateJobError outside 0..1."""
    if not 0 <= share <= 1:
        raise DebateJobError(f"audit share must be between 0 and 1, got {share}")
    DebateJob.objects.filter(pk=job.pk).update(audit_share=share)
    job.audit_share = share
    return job


def debate_job_budget_set(*, job: DebateJob, budget: int | None) -> DebateJob:
    """Set ``job``'s human budget: at most ``budget`` pairs go to humans (escalated and
    audited together), highest impact on the benchmark first; None removes the limit.
    Editable while the job runs: raising it releases the next pairs in order at the next
    claim; lowering it never takes back a pair a human already holds or judged. Raises
    DebateJobError for a negative budget."""
    if budget is not None and budget < 0:
        raise DebateJobError(f"human budget must be 0 or more pairs, got {budget}")
    DebateJob.objects.filter(pk=job.pk).update(human_budget=budget)
    job.human_budget = budget
    return job
