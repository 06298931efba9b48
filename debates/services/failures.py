"""A job's failed pairs and its outcome counts, as the job page, the HTTP API and
``debate_job ID failures`` show them: :func:`job_failures` lists each failed debate once (its
pair, its last error and its failed attempts), :func:`job_counts` counts the job's pairs by
outcome with the last failure's reason. These are the figures OpenSearch's Search Relevance
Workbench reports per judgment run (queries total, succeeded, failed, last failure reason),
in this project's words: a pair is *settled* when its label is agreed (by a debate or by
stage 0), *escalated* when it went to humans, *failed* when an LLM error left no outcome.

Where a failure is kept: on the debate, ``Debate.last_error`` ("TypeName: message", at most
:data:`~debates.services.common.ERROR_CHARS` characters, cleared when a later attempt ends
the debate) and ``Debate.attempts`` (failed attempts since the debate was last given back by
:func:`~debates.services.jobs.debate_job_retry_failed`, which keeps the error, the attempts,
the failure time and the stored turns until a worker asks the debate again and the count
starts afresh; a job cancelled before then puts such debates back failed, as they were)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from debates.models import Debate, DebateJob
from debates.services.progress import JobProgress, debate_job_progress


@dataclass(frozen=True)
class JobFailure:
    """One failed debate: its pair (``pair_id``, and the benchmark's ``query_id`` and
    ``doc_id``), its ``last_error`` and ``attempts`` (failed attempts since it was last given
    back: 3 when it ran out of attempts, 1 when it failed at once, e.g. a prompt that cannot
    fit the context), and when it failed (``failed_at``, None when never recorded)."""

    debate_id: int
    pair_id: int
    query_id: str
    doc_id: str
    attempts: int
    last_error: str
    failed_at: datetime | None

    def as_json(self) -> dict[str, Any]:
        """The failure as the API shows it: ``{"debate", "pair": {"id", "query_id",
        "doc_id"}, "last_error", "attempts", "failed_at"}`` (ISO 8601 or None)."""
        return {
            "debate": self.debate_id,
            "pair": {"id": self.pair_id, "query_id": self.query_id, "doc_id": self.doc_id},
            "last_error": self.last_error,
            "attempts": self.attempts,
            "failed_at": self.failed_at.isoformat() if self.failed_at else None,
        }


@dataclass(frozen=True)
class JobCounts:
    """A job's pairs by outcome: ``total`` = ``settled`` + ``escalated`` + ``failed`` +
    ``pending`` + ``running`` always (each pair has one debate in one status).
    ``settled`` counts agreed labels, stage 0's included; ``last_error`` is the most recently
    failed debate's error ("" when none failed)."""

    total: int
    settled: int
    escalated: int
    failed: int
    pending: int
    running: int
    last_error: str = ""

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def job_counts(*, job: DebateJob, progress: JobProgress | None = None) -> JobCounts:
    """``job``'s :class:`JobCounts`, from ``progress`` (counted now when not given) and, when
    a debate failed, one more query for the last failure's error."""
    progress = progress if progress is not None else debate_job_progress(job=job)
    last = ""
    if progress.failed:
        last = (
            job.debates.filter(status=Debate.Status.FAILED)
            .order_by("-finished", "-pk")
            .values_list("last_error", flat=True)
            .first()
        ) or ""
    return JobCounts(
        total=progress.total,
        settled=progress.agreed,
        escalated=progress.escalated,
        failed=progress.failed,
        pending=progress.pending,
        running=progress.running,
        last_error=last,
    )


@dataclass(frozen=True)
class JobFailures:
    """A slice of a job's failures (``items``) and how many there are in all (``count``)."""

    items: list[JobFailure]
    count: int


def job_failures(*, job: DebateJob, start: int = 0, stop: int | None = None) -> JobFailures:
    """``job``'s failed debates ``[start:stop]``, one per pair (a job holds one debate per
    pair), in the order the job's debates were made (the pool's judging order), and their
    count; two calls with adjacent slices never repeat or skip a failure unless debates fail
    or are retried in between. A job without failures gives no items and a count of 0."""
    failed = job.debates.filter(status=Debate.Status.FAILED)
    rows = failed.order_by("pk").values_list(
        "pk",
        "pair_id",
        "pair__query__query_id",
        "pair__document__doc_id",
        "attempts",
        "last_error",
        "finished",
    )
    return JobFailures(items=[JobFailure(*row) for row in rows[start:stop]], count=failed.count())
