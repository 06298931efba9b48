"""Downloads made in the background: a refined set's benchmark zip (BEIR layout with its
datasheet), labels, disagreements and transcripts, through the same export jobs as the
refined set's page (a second request reuses the first job; the file's sha256 is shown).
Researchers and admins may request them, as on the page."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from django.http import FileResponse, HttpRequest
from ninja import Router, Schema, Status
from ninja.errors import HttpError

from assess.models import ExportFile
from assess.refined.exports import (
    CONTENT_TYPE,
    ExportError,
    export_get,
    export_path,
    export_request,
    export_simulated_counts,
)
from corpora.simulated import simulated_response_mark

from .common import RowId, dataset_or_404, qrel_set_or_404
from .errors import error_responses

router = Router(tags=["exports"])

Kind = Literal["benchmark", "labels", "trec", "beir", "disagreements", "transcripts"]


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


@router.post(
    "/datasets/{slug}/refined/{name}/exports/{kind}",
    response={202: ExportOut, **error_responses(400, 404, 422)},
)
def export_create(request: HttpRequest, slug: str, name: str, kind: Kind) -> Status[ExportOut]:
    """Request export ``kind`` of refined set ``name`` (``benchmark``: the zip in BEIR layout
    with its datasheet; ``transcripts``: every turn of its pool's debates). 202 with the
    export to poll; its ``download`` URL serves the file once ``status`` is ``done``."""
    dataset = dataset_or_404(slug)
    qrel_set = qrel_set_or_404(dataset, name)
    refinement = getattr(qrel_set, "refinement", None)
    if refinement is None:
        raise HttpError(400, f"qrel set {name!r} was not refined: nothing to export")
    try:
        if kind == "transcripts":
            export, _ = export_request(kind=kind, pool=refinement.pool, requested_by=request.user)
        else:
            export, _ = export_request(kind=kind, qrel_set=qrel_set, requested_by=request.user)
    except ExportError as exc:
        raise HttpError(400, str(exc)) from None
    export.refresh_from_db()
    return Status(202, _export_out(export))


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
    response=error_responses(404, 409, 422),
    openapi_extra={
        "responses": {
            200: {
                "description": "The export's file (a zip, JSONL, TSV, TREC or CSV text).",
                "content": {
                    media: {"schema": {"type": "string", "format": "binary"}}
                    for media in sorted({t.split(";")[0] for t in CONTENT_TYPE.values()})
                },
            }
        }
    },
)
def export_download(request: HttpRequest, export_id: RowId) -> FileResponse:
    """The file of a done export, with its sha256 in ``X-Checksum-SHA256``; 409 while it
    is not ready."""
    export = _export_or_404(export_id)
    path = export_path(export=export)
    if export.status != ExportFile.Status.DONE or not path.is_file():
        raise HttpError(409, f"export {export_id} is {export.status}, not ready")
    response = FileResponse(
        open(path, "rb"),  # noqa: SIM115  (FileResponse closes it)
        as_attachment=True,
        filename=export.filename,
        content_type=CONTENT_TYPE[export.kind],
    )
    response["X-Checksum-SHA256"] = export.sha256
    simulated_response_mark(response, export_simulated_counts(export=export))
    return response
