"""A debate job's progress, always counted from the database: :func:`debate_job_progress`
counts its debates by status, agreed ones by consensus round and escalated ones by reason,
and sums their LLM calls, tokens and seconds into a :class:`JobProgress` (what the job page,
the commands' progress bars and the pipeline show)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Count, Sum
from django.db.models.functions import Coalesce

from debates.models import Debate, DebateJob


@dataclass(frozen=True)
class JobProgress:
    """Counts for one job, from the database. Tokens are counts, seconds wall time."""

    job_id: int
    status: str
    total: int
    pending: int
    running: int
    agreed: int
    escalated: int
    failed: int
    agreed_by_round: dict[int, int] = field(default_factory=dict)
    escalated_by_reason: dict[str, int] = field(default_factory=dict)
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    reasoning_tokens: int = 0  # part of completion_tokens
    cached_tokens: int = 0  # part of prompt_tokens
    # Part of agreed: labels taken over from earlier jobs with the same reuse key (no call).
    reused: int = 0

    @property
    def done(self) -> int:
        """Debates that reached an end: agreed, escalated or failed."""
        return self.agreed + self.escalated + self.failed

    def per_pair(self, value: float) -> float:
        """``value`` divided by the finished debates (0 when none)."""
        return value / self.done if self.done else 0.0


def debate_job_progress(*, job: DebateJob) -> JobProgress:
    """Count the job's debates by status, agreed ones by consensus round, escalated ones by
    reason, and sum calls, tokens and seconds (over all debates, finished or not); ``reused``
    counts the agreed labels taken over from earlier jobs (:mod:`debates.services.reuse`)."""
    by_status = dict(
        job.debates.values_list("status").annotate(n=Count("pk")).values_list("status", "n")
    )
    agreed_by_round = {
        round: n
        for round, n in job.debates.filter(status=Debate.Status.AGREED)
        .values_list("consensus_round")
        .annotate(n=Count("pk"))
        .order_by("consensus_round")
        .values_list("consensus_round", "n")
        if round is not None  # an agreed debate has its round; the column is nullable
    }
    escalated_by_reason = dict(
        job.debates.filter(status=Debate.Status.ESCALATED)
        .values_list("escalation_reason")
        .annotate(n=Count("pk"))
        .order_by("escalation_reason")
        .values_list("escalation_reason", "n")
    )
    sums = job.debates.aggregate(
        calls=Coalesce(Sum("calls"), 0),
        prompt_tokens=Coalesce(Sum("prompt_tokens"), 0),
        completion_tokens=Coalesce(Sum("completion_tokens"), 0),
        reasoning_tokens=Coalesce(Sum("reasoning_tokens"), 0),
        cached_tokens=Coalesce(Sum("cached_tokens"), 0),
        seconds=Coalesce(Sum("seconds"), 0.0),
    )
    status = DebateJob.objects.filter(pk=job.pk).values_list("status", flat=True).get()
    # Agreed labels only: an escalation reused for a pair people had answered has no label.
    reused = (
        job.debates.filter(settled_by="reused", status=Debate.Status.AGREED).count()
        if job.reuse
        else 0
    )
    return JobProgress(
        job_id=job.pk,
        status=status,
        total=sum(by_status.values()),
        pending=by_status.get(Debate.Status.PENDING, 0),
        running=by_status.get(Debate.Status.RUNNING, 0),
        agreed=by_status.get(Debate.Status.AGREED, 0),
        escalated=by_status.get(Debate.Status.ESCALATED, 0),
        failed=by_status.get(Debate.Status.FAILED, 0),
        agreed_by_round=agreed_by_round,
        escalated_by_reason=escalated_by_reason,
        calls=sums["calls"],
        prompt_tokens=sums["prompt_tokens"],
        completion_tokens=sums["completion_tokens"],
        reasoning_tokens=sums["reasoning_tokens"],
        cached_tokens=sums["cached_tokens"],
        seconds=float(sums["seconds"]),
        reused=reused,
    )


# --- notes other apps add to a job's progress summary -----------------------------------------
# debates cannot import assess (corpora ← debates ← assess), yet `debate_job ID progress` should
# print the audit estimate that assess computes: assess registers a note provider in its
# AppConfig.ready(), the same way it adds its panel to the job page.
JobNotes = Callable[[DebateJob], list[str]]
JOB_NOTES: list[JobNotes] = []


def job_notes_register(notes: JobNotes) -> None:
    """Add a provider of extra summary lines for a job (idempotent). ``notes(job)`` returns
    plain-text lines; they are printed after the progress by ``debate_job ID progress``."""
    if notes not in JOB_NOTES:
        JOB_NOTES.append(notes)


def debate_job_notes(*, job: DebateJob) -> list[str]:
    """The lines every registered provider (:func:`job_notes_register`) gives for ``job``."""
    return [line for notes in JOB_NOTES for line in notes(job)]
