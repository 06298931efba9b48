"""Downloads made in the background: a refined set's benchmark zip (BEIR layout with its
datasheet), labels, disagreements and transcripts, through the same export jobs as the
refined set's page (a second request reuses the first job; the file's sha256 is shown).
Researchers and admins may request them, as on the page."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import FileResponse, HttpRequest
from ninja import Router, Schema, Status
from ninja.errors import HttpError

from assess.models import ExportFile
from assess.refined.exports import (
    CONTENT_TYPE,
    ExportError,
    export_get,
    export_key,
    export_outdated_find,
    export_path,
    export_request,
    export_simulated_counts,
)
from corpora.simulated import simulated_response_mark

from .common import RowId, dataset_or_404, qrel_set_or_404
from .errors import error_responses

router = Router(tags=["exports"])

Kind = Literal["benchmark", "labels", "trec", "beir", "disagreements", "transcripts"]

# A route that answers an export's file: its 200 in the OpenAPI document.
_FILE_RESPONSE = {
    "description": "The export's file (a zip, JSONL, TSV, TREC or CSV text).",
    "content": {
        media: {"schema": {"type": "string", "format": "binary"}}
        for media in sorted({t.split(";")[0] for t in CONTENT_TYPE.values()})
    },
}


class ExportOut(Schema):
    id: int
    kind: Kind
    status: Literal["pending", "running", "done", "failed"]
    filename: str
    sha256: str
    error: str
    created: datetime
    url: str
    download: str
    #: A sentence when the export has waited a minute for a Celery worker that never took it
    #: (naming the queue and the worker command); "" otherwise.
    warning: str = ""


def _export_out(export: ExportFile) -> ExportOut:
    return ExportOut(
        id=export.pk,
        kind=export.kind,  # type: ignore[arg-type]  # the model's choices: the enum
        status=export.status,  # type: ignore[arg-type]  # the model's choices: the enum
        filename=export.filename,
        sha256=export.sha256,
        error=export.error,
        created=export.created,
        url=f"/api/v1/exports/{export.pk}",
        download=f"/api/v1/exports/{export.pk}/download",
        warning=export.worker_warning,
    )


def _sources(slug: str, name: str, kind: str) -> dict[str, Any]:
    """The source export ``kind`` of refined set ``name`` is made from: ``{"pool": ...}``
    for transcripts (every turn of its pool's debates), else ``{"qrel_set": ...}``; 404 for
    no such set, 400 for a set that was not refined."""
    qrel_set = qrel_set_or_404(dataset_or_404(slug), name)
    refinement = getattr(qrel_set, "refinement", None)
    if refinement is None:
        raise HttpError(400, f"qrel set {name!r} was not refined: nothing to export")
    return {"pool": refinement.pool} if kind == "transcripts" else {"qrel_set": qrel_set}


@router.post(
    "/datasets/{slug}/refined/{name}/exports/{kind}",
    response={202: ExportOut, **error_responses(400, 404, 422)},
)
def export_create(request: HttpRequest, slug: str, name: str, kind: Kind) -> Status[ExportOut]:
    """Request export ``kind`` of refined set ``name`` (``benchmark``: the zip in BEIR layout
    with its datasheet; ``transcripts``: every turn of its pool's debates). 202 with the
    export to poll; its ``download`` URL, or a GET of this URL, serves the file once
    ``status`` is ``done``."""
    try:
        export, _ = export_request(
            kind=kind, requested_by=request.user, **_sources(slug, name, kind)
        )
    except ExportError as exc:
        raise HttpError(400, str(exc)) from None
    export.refresh_from_db()
    return Status(202, _export_out(export))


@router.get(
    "/datasets/{slug}/refined/{name}/exports/{kind}",
    response=error_responses(400, 404, 409, 410, 422),
    openapi_extra={"responses": {200: _FILE_RESPONSE}},
)
def export_built(request: HttpRequest, slug: str, name: str, kind: Kind) -> FileResponse:
    """The file of export ``kind`` of refined set ``name`` once it is built (the refined set's
    ``downloads.benchmark`` link): what ``GET /exports/{id}/download`` serves, so a link
    works in a browser or ``curl -O``. Builds nothing (a GET changes nothing): 404 when
    no current one was requested (``POST`` this URL to build it), naming the newest one that
    is out of date (its id, when it was built and what changed since) when there is one; 409
    while it is being built."""
    sources = _sources(slug, name, kind)
    try:
        key = export_key(kind=kind, **sources)
    except ExportError as exc:
        raise HttpError(400, str(exc)) from None
    export = (
        ExportFile.objects.filter(key=key, status__in=["pending", "running", "done"])
        .order_by("-pk")
        .first()
    )
    if export is None:
        raise HttpError(404, _not_current(kind=kind, name=name, key=key, sources=sources))
    return _file_response(export)


def _not_current(*, kind: str, name: str, key: str, sources: dict[str, Any]) -> str:
    """The 404's words when no current export of ``kind`` exists: an older one that is out of
    date is named (its id, when built, why), since "never built" would be untrue."""
    then = "POST this URL to build {}, poll the answer's url until its status is done, then GET "
    then += "this URL again"
    outdated = export_outdated_find(kind=kind, key=key, **sources)
    if outdated is None:
        return f"no {kind} export of {name!r} built yet: " + then.format("it")
    old, why = outdated
    when = (
        f"built {old.finished.isoformat(timespec='seconds')}"
        if old.status == ExportFile.Status.DONE and old.finished is not None
        else f"requested {old.created.isoformat(timespec='seconds')}, still {old.status}"
    )
    return (
        f"the newest {kind} export of {name!r}, export {old.pk} ({when}), is out of date: "
        f"{why}; " + then.format("the current one")
    )


def _export_or_404(export_id: int) -> ExportFile:
    try:
        return export_get(pk=export_id)
    except ExportFile.DoesNotExist:
        raise HttpError(404, f"no export {export_id}") from None


@router.get("/exports/{export_id}", response={200: ExportOut, **error_responses(404, 422)})
def export_detail(request: HttpRequest, export_id: RowId) -> ExportOut:
    """An export's status (pending, running, done, failed), file name and sha256."""
    return _export_out(_export_or_404(export_id))


@router.get(
    "/exports/{export_id}/download",
    response=error_responses(404, 409, 410, 422),
    openapi_extra={"responses": {200: _FILE_RESPONSE}},
)
def export_download(request: HttpRequest, export_id: RowId) -> FileResponse:
    """The file of a done export, with its sha256 in ``X-Checksum-SHA256``; 409 while it
    is not ready."""
    return _file_response(_export_or_404(export_id))


def _file_response(export: ExportFile) -> FileResponse:
    """``export``'s file as a download (sha256 and simulated labels in headers); 409 while
    it is not ready; 410 when it was built but its file is no longer on disk (polling would
    never change that: a new ``POST`` builds it again)."""
    path = export_path(export=export)
    if export.status == ExportFile.Status.DONE and not path.is_file():
        raise HttpError(
            410,
            f"export {export.pk} was built but its file is gone from the server's disk: POST "
            "the refined set's export URL to build it again",
        )
    if export.status != ExportFile.Status.DONE:
        raise HttpError(
            409,
            f"export {export.pk} is {export.status}, not ready: poll /api/v1/exports/{export.pk}",
        )
    response = FileResponse(
        open(path, "rb"),  # noqa: SIM115  (FileResponse closes it)
        as_attachment=True,
        filename=export.filename,
        content_type=CONTENT_TYPE[export.kind],
    )
    response["X-Checksum-SHA256"] = export.sha256
    simulated_response_mark(response, export_simulated_counts(export=export))
    return response
