"""Annotation guidelines over HTTP: read the version in force for a dataset or a debate job,
and (admin) store a new version, as the guidelines page does.

Reading needs the researcher or admin role (every route's default); writing the admin role.
A new version is a new row (annotators confirm it again before judging under it); posting
the text of the current version stores nothing and answers with that version.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from django.http import HttpRequest
from ninja import Field, Router, Schema, Status
from ninja.errors import HttpError

from assess.models import Guidelines
from assess.review.guidelines import (
    GuidelinesError,
    guidelines_create,
    guidelines_in_force,
    guidelines_render,
)
from corpora.models import Dataset
from debates.models import DebateJob

from .common import WRITE, RowId, StrictIn, dataset_or_404
from .errors import error_responses

router = Router(tags=["guidelines"])


class GuidelinesIn(StrictIn):
    # The service refuses an empty text or one over its limit with a 400 naming it.
    text: str = Field(
        ..., description="Markdown (CommonMark with tables); raw HTML is shown as text."
    )


class GuidelinesOut(Schema):
    """One version of guidelines: its Markdown and its sanitised HTML rendering."""

    version: int
    scope: Literal["job", "dataset", "default"] = Field(
        ..., description="Whose guidelines these are: the job's, the dataset's or the default."
    )
    markdown: str
    html: str
    created: datetime
    created_by: str | None


def _out(guidelines: Guidelines) -> GuidelinesOut:
    scope: Literal["job", "dataset", "default"] = (
        "job" if guidelines.job_id else "dataset" if guidelines.dataset_id else "default"
    )
    author = guidelines.created_by
    return GuidelinesOut(
        version=guidelines.version,
        scope=scope,
        markdown=guidelines.text,
        html=guidelines_render(guidelines.text),
        created=guidelines.created,
        created_by=author.get_username() if author is not None else None,
    )


def _job_or_404(job_id: int) -> DebateJob:
    job = DebateJob.objects.select_related("pool__dataset").filter(pk=job_id).first()
    if job is None:
        raise HttpError(404, f"no debate job {job_id}")
    return job


def _in_force_or_404(found: Guidelines | None) -> GuidelinesOut:
    if found is None:
        raise HttpError(404, "no guidelines apply, not even the built-in default")
    return _out(found)


def _create(
    request: HttpRequest,
    payload: GuidelinesIn,
    *,
    dataset: Dataset | None = None,
    job: DebateJob | None = None,
) -> Status[GuidelinesOut]:
    try:
        saved = guidelines_create(text=payload.text, dataset=dataset, job=job, user=request.user)
    except GuidelinesError as exc:
        raise HttpError(400, str(exc)) from None
    return Status(201, _out(saved))


_READ = {200: GuidelinesOut, **error_responses(404, 422)}
_WRITE = {201: GuidelinesOut, **error_responses(400, 404, 413, 422)}


@router.get("/datasets/{slug}/guidelines", response=_READ)
def dataset_guidelines_get(request: HttpRequest, slug: str) -> GuidelinesOut:
    """The guidelines in force for the dataset's pairs: its newest version, else the
    built-in default's (``scope`` says which). A job may have its own
    (``/jobs/{job_id}/guidelines``). 404 when none apply."""
    return _in_force_or_404(guidelines_in_force(dataset=dataset_or_404(slug)))


@router.post("/datasets/{slug}/guidelines", response=_WRITE, auth=WRITE)
def dataset_guidelines_create(
    request: HttpRequest, slug: str, payload: GuidelinesIn
) -> Status[GuidelinesOut]:
    """Store ``text`` as the dataset's next guidelines version (admin). 400 for an empty
    text or one over 50,000 characters; the current text again stores nothing (201 with
    the current version)."""
    return _create(request, payload, dataset=dataset_or_404(slug))


@router.get("/jobs/{job_id}/guidelines", response=_READ)
def job_guidelines_get(request: HttpRequest, job_id: RowId) -> GuidelinesOut:
    """The guidelines in force for the job's pairs: its newest version, else its dataset's,
    else the default's (``scope`` says which). 404 when none apply."""
    job = _job_or_404(job_id)
    return _in_force_or_404(guidelines_in_force(dataset=job.pool.dataset, job=job))


@router.post("/jobs/{job_id}/guidelines", response=_WRITE, auth=WRITE)
def job_guidelines_create(
    request: HttpRequest, job_id: RowId, payload: GuidelinesIn
) -> Status[GuidelinesOut]:
    """Store ``text`` as the job's next guidelines version (admin); they win over the
    dataset's for this job's pairs. Errors as for a dataset's."""
    return _create(request, payload, job=_job_or_404(job_id))
