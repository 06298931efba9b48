"""A debate job's failed pairs over HTTP: the schemas of a job's ``counts`` and ``failures``
(:mod:`api.jobs` shows them in every job body) and ``GET /jobs/{id}/failures``, all of a
job's failed pairs a page at a time (:func:`debates.services.failures.job_failures`).
``POST /jobs/{id}/retry-failed`` (in :mod:`api.jobs`, with the other controls) asks exactly
these pairs again."""

from __future__ import annotations

from datetime import datetime

from django.http import HttpRequest
from ninja import Router, Schema
from ninja.errors import HttpError

from debates.models import DebateJob
from debates.services.failures import JobCounts, JobFailure, job_failures
from debates.services.jobs import debate_job_get

from .common import PageNumber, RowId, page_bounds
from .errors import error_responses

router = Router(tags=["jobs"])


class JobCountsOut(Schema):
    """A job's pairs by outcome (``total`` = ``settled`` + ``escalated`` + ``failed`` +
    ``pending`` + ``running``): ``settled`` agreed labels (stage 0's included), ``escalated``
    sent to humans, ``failed`` left without an outcome by LLM errors; ``last_error`` the
    reason of the most recent failure ("" when none)."""

    total: int
    settled: int
    escalated: int
    failed: int
    pending: int
    running: int
    last_error: str

    @staticmethod
    def of(counts: JobCounts) -> JobCountsOut:
        return JobCountsOut(**counts.as_json())


class FailedPairOut(Schema):
    """The pair of a failed debate: the pool's pair ``id`` and the benchmark's ids."""

    id: int
    query_id: str
    doc_id: str


class FailureOut(Schema):
    """One failed debate: its ``pair``, ``last_error`` ("TypeName: message") and
    ``attempts`` (failed attempts since it was last given back: 3 when it ran out of
    attempts, 1 when it failed at once), and when it failed."""

    debate: int
    pair: FailedPairOut
    last_error: str
    attempts: int
    failed_at: datetime | None

    @staticmethod
    def of(failure: JobFailure) -> FailureOut:
        return FailureOut.model_validate(failure.as_json())


class FailurePage(Schema):
    """One page of a job's failed pairs (``?page=N``, ``NINJA_PAGINATION_PER_PAGE`` a page),
    as the other lists page: ``items`` and the ``count`` of all."""

    items: list[FailureOut]
    count: int


def failures_first_page(job: DebateJob, *, failed: int) -> list[FailureOut]:
    """The first page of ``job``'s failures (what a job body shows); ``failed`` is how many
    there are (no query when 0)."""
    if not failed:
        return []
    start, stop = page_bounds(1)
    return [FailureOut.of(f) for f in job_failures(job=job, start=start, stop=stop).items]


@router.get(
    "/jobs/{job_id}/failures", response={200: FailurePage, **error_responses(400, 404, 422)}
)
def job_failures_list(request: HttpRequest, job_id: RowId, page: PageNumber = 1) -> FailurePage:
    """The job's failed pairs, each once, in the pool's judging order, a page at a time:
    ``count`` is ``counts.failed`` of the job. ``POST /jobs/{id}/retry-failed`` (admin) asks
    exactly these pairs again."""
    try:
        job = debate_job_get(pk=job_id)
    except DebateJob.DoesNotExist:
        raise HttpError(404, f"no debate job {job_id}") from None
    start, stop = page_bounds(page)
    found = job_failures(job=job, start=start, stop=stop)
    return FailurePage(items=[FailureOut.of(f) for f in found.items], count=found.count)
