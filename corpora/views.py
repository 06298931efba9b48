"""People-facing pages for datasets (the login page is :mod:`core.views`).

Who may open what (every view is wrapped in :func:`core.roles.role_required`):

| page                                   | annotator | researcher | admin |
|----------------------------------------|-----------|------------|-------|
| home                                   | yes       | yes        | yes   |
| datasets, dataset, documents, document | 403       | yes        | yes   |
| a pool (its runs' share, its pairs)    | 403       | yes        | yes   |
| qrels download (TREC, BEIR)            | 403       | yes        | yes   |
| new dataset (upload), dataset actions  | 403       | 403        | yes   |
| an upload's or a pool build's progress | 403       | yes        | yes   |

Anonymous users are redirected to the login page from every page but the login page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.utils.text import slugify

from core.htmx import htmx_view, wants_fragment
from core.roles import ROLES, Role, role_required, user_has_role

from . import formats
from .forms import PoolForm, QrelsUploadForm, RetrieveForm, RunUploadForm
from .models import Dataset, Document, Pool, QrelSet, Run
from .selectors import (
    dataset_counts_list,
    dataset_overview,
    document_get,
    document_judgments,
    documents_page,
    pool_overview,
    pool_pairs_page,
)
from .services.datasets import dataset_get, qrel_set_get, qrels_rows
from .services.pools import pool_get
from .simulated import qrel_set_simulated_counts, simulated_filename, simulated_response_mark

READERS = (Role.RESEARCHER, Role.ADMIN)
QRELS_DOWNLOADS = {
    # format: (file suffix, line formatter, header)
    "trec": (".qrels", formats.format_trec_qrel, ""),
    "beir": (".tsv", formats.format_beir_qrel, formats.BEIR_QRELS_HEADER),
}


# --- qrel sets of simulated labels ------------------------------------------------------------
# A refined qrel set made from simulated labels must say so wherever it is listed, but only
# assess knows a refined label's provenance, and corpora never imports assess: assess
# registers the function that tells which sets hold simulated labels (in AppConfig.ready()).
SimulatedQrelSets = Callable[[Sequence[QrelSet]], set[int]]
SIMULATED_QREL_SETS: list[SimulatedQrelSets] = []


def simulated_qrel_sets_register(find: SimulatedQrelSets) -> None:
    """Add a function giving the ids of the qrel sets (of those it is given) that hold
    simulated labels; the dataset page marks them "SIMULATED labels" (idempotent)."""
    if find not in SIMULATED_QREL_SETS:
        SIMULATED_QREL_SETS.append(find)


def simulated_qrel_sets(qrel_sets: Sequence[QrelSet]) -> set[int]:
    """The ids of ``qrel_sets`` that a registered function (:func:`simulated_qrel_sets_register`)
    says hold simulated labels; empty when none is registered."""
    return {pk for find in SIMULATED_QREL_SETS for pk in find(qrel_sets)} if qrel_sets else set()


def _dataset_or_404(slug: str) -> Dataset:
    try:
        return dataset_get(slug=slug)
    except Dataset.DoesNotExist:
        raise Http404(f"No dataset {slug!r}.") from None


@role_required(*ROLES)
def home(request: HttpRequest) -> HttpResponse:
    """The dashboard: links to what the user's roles may open."""
    return render(
        request,
        "corpora/home.html",
        {
            "can_read_datasets": user_has_role(request.user, *READERS),
            "is_annotator": user_has_role(request.user, Role.ANNOTATOR),
        },
    )


@role_required(*READERS)
def dataset_list(request: HttpRequest) -> HttpResponse:
    """Every dataset with its counts; a qrel set of simulated labels marked."""
    rows = dataset_counts_list()
    return render(
        request,
        "corpora/dataset_list.html",
        {
            "rows": rows,
            "simulated": simulated_qrel_sets(
                [stats.qrel_set for row in rows for stats in row.qrel_sets]
            ),
            "can_import": user_has_role(request.user, Role.ADMIN),
        },
    )


@htmx_view(no_store=True)
@role_required(*READERS)
def dataset_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """One dataset: counts, qrel sets with downloads, runs, pools, import history and, for
    admins, the forms of its actions; for htmx requests only the runs table (polled while a
    built-in run is pending or running)."""
    dataset = _dataset_or_404(slug)
    if wants_fragment(request):
        overview = dataset_overview(dataset=dataset)
        return render(
            request,
            "corpora/partials/runs.html",
            {"dataset": dataset, "overview": overview, "polling": _runs_busy(overview)},
        )
    return dataset_page(request, dataset)


def _runs_busy(overview) -> bool:
    return any(r.status in (Run.Status.PENDING, Run.Status.RUNNING) for r in overview.runs)


#: The folders an upload is laid out in (corpora.services.operations): not the file's name.
_UPLOAD_LAYOUT = ("unpacked", "beir", "qrels", "run", "archive")


def import_file_shown(path: str, uploads: Path) -> str:
    """What the import history shows of an import's ``path``: an uploaded file as "uploaded
    NAME" (its place under the ``uploads`` folder, the upload's own folder and layout left
    out: the folder is temporary and the server's own); a command's path by its last part,
    "NAME (on the server)" ("DATASET/qrels/NAME" for a BEIR qrels file): the page's readers
    are not the server's operator, and its folders are not theirs to know."""
    file = Path(path)
    if file.is_relative_to(uploads):
        parts = list(file.relative_to(uploads).parts[1:])  # [0]: the upload's own folder
        while parts and parts[0] in _UPLOAD_LAYOUT:
            parts.pop(0)
        return f"uploaded {'/'.join(parts)}" if parts else "uploaded files"
    # A BEIR file keeps its dataset's folder ("scifact/qrels/test.tsv"), so that two
    # datasets' test.tsv stay apart, as an upload's do.
    shown = "/".join(file.parts[-3:]) if file.parent.name == "qrels" else file.name
    return f"{shown or path} (on the server)"


def seconds_shown(seconds: float) -> str:
    """A duration for the history: one decimal, or "under 0.1" (never "0.0")."""
    return "under 0.1" if seconds < 0.05 else f"{seconds:,.1f}"


def upload_limit_text() -> str:
    """The upload limit for the pages, e.g. "2.0 GB" (``DREAM_UPLOAD_MAX_BYTES``)."""
    return f"{int(settings.DREAM_UPLOAD_MAX_BYTES) / 1e9:,.1f} GB"


def action_forms(dataset: Dataset, data=None, files=None, which: str = "") -> dict:
    """The dataset page's admin action forms by context name (``qrels_form``, ``run_form``,
    ``retrieve_form``, ``pool_form``); the one named ``which`` bound to the POST's ``data``
    and ``files`` (corpora.upload_views.dataset_action), the others unbound."""

    def bound(name: str):
        return (data, files) if name == which else (None, None)

    return {
        "qrels_form": QrelsUploadForm(*bound("qrels")),
        "run_form": RunUploadForm(*bound("run")),
        "retrieve_form": RetrieveForm(bound("retrieve")[0], dataset=dataset),
        "pool_form": PoolForm(bound("pool")[0], dataset=dataset),
    }


def dataset_page(
    request: HttpRequest, dataset: Dataset, *, forms: dict | None = None, status: int = 200
) -> HttpResponse:
    """Render the dataset page (``forms``: the admin action forms, bound when a POST of one
    was invalid; ``status`` 400 then)."""
    overview = dataset_overview(dataset=dataset)
    is_admin = user_has_role(request.user, Role.ADMIN)
    uploads = Path(settings.VAR_DIR) / "uploads"
    context = {
        "dataset": dataset,
        "overview": overview,
        "imports": [
            (r, import_file_shown(r.path, uploads), seconds_shown(r.seconds))
            for r in overview.imports
        ],
        "polling": _runs_busy(overview),
        "simulated": simulated_qrel_sets([stats.qrel_set for stats in overview.counts.qrel_sets]),
        "is_admin": is_admin,
        "limit": upload_limit_text(),
        **((forms or action_forms(dataset)) if is_admin else {}),
    }
    return render(request, "corpora/dataset_detail.html", context, status=status)


@role_required(*READERS)
def document_list(request: HttpRequest, slug: str) -> HttpResponse:
    """The dataset's documents by id, 50 a page, filtered by an id prefix (``?prefix=``)."""
    dataset = _dataset_or_404(slug)
    prefix = request.GET.get("prefix", "").strip()
    page = documents_page(dataset=dataset, prefix=prefix, page=request.GET.get("page", 1))
    return render(
        request,
        "corpora/document_list.html",
        {"dataset": dataset, "page": page, "prefix": prefix},
    )


@role_required(*READERS)
def document_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """One document (``?id=<doc_id>``, any characters) and the qrels rows judging it."""
    dataset = _dataset_or_404(slug)
    doc_id = request.GET.get("id", "")
    try:
        document = document_get(dataset=dataset, doc_id=doc_id)
    except Document.DoesNotExist:
        raise Http404(f"No document {doc_id!r} in {dataset.slug}.") from None
    return render(
        request,
        "corpora/document_detail.html",
        {
            "dataset": dataset,
            "document": document,
            "judgments": document_judgments(document=document),
        },
    )


#: Panels other apps add to a pool's page: ``panel(request, pool) -> str`` (HTML rendered by
#: the template engine, autoescaped), as debates adds the jobs on the pool.
POOL_PANELS: list[Callable[[HttpRequest, Pool], str]] = []


def pool_panel_register(panel: Callable[[HttpRequest, Pool], str]) -> None:
    """Add a panel to every pool page (idempotent), shown below the pool's facts."""
    if panel not in POOL_PANELS:
        POOL_PANELS.append(panel)


@role_required(*READERS)
def pool_detail(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    """One pool: how it was built, each run's contribution (pairs found, pairs only it
    found) and its pairs in judging order with the runs and ranks that put each there, 50 a
    page, filtered to one query (``?query=<query id>``)."""
    dataset = _dataset_or_404(slug)
    try:
        pool = pool_get(dataset=dataset, name=name)
    except Pool.DoesNotExist:
        raise Http404(f"No pool {name!r} in {dataset.slug}.") from None
    query_id = request.GET.get("query", "").strip()
    page = pool_pairs_page(pool=pool, query_id=query_id, page=request.GET.get("page", 1))
    return render(
        request,
        "corpora/pool_detail.html",
        {
            "dataset": dataset,
            "overview": pool_overview(pool=pool),
            "page": page,
            "query_id": query_id,
            "is_admin": user_has_role(request.user, Role.ADMIN),
            "panels": [panel(request, pool) for panel in POOL_PANELS],
        },
    )


@role_required(*READERS)
def qrels_download(request: HttpRequest, slug: str, name: str, fmt: str) -> StreamingHttpResponse:
    """Stream a qrel set as TREC qrels or BEIR TSV, byte-identical to ``export_qrels``."""
    dataset = _dataset_or_404(slug)
    if fmt not in QRELS_DOWNLOADS:
        raise Http404(f"Unknown qrels format {fmt!r}.")
    try:
        qrel_set = qrel_set_get(dataset=dataset, name=name)
    except QrelSet.DoesNotExist:
        raise Http404(f"No qrel set {name!r} in {dataset.slug}.") from None
    suffix, line, header = QRELS_DOWNLOADS[fmt]

    def lines() -> Iterator[str]:
        if header:
            yield header
        for query_id, doc_id, relevance in qrels_rows(qrel_set=qrel_set):
            yield line(query_id, doc_id, relevance)

    response = StreamingHttpResponse(lines(), content_type="text/plain; charset=utf-8")
    # A set with simulated labels says so in its file name and a header (.simulated).
    simulated = qrel_set_simulated_counts(qrel_set=qrel_set)
    simulated_response_mark(response, simulated)
    stem = f"{dataset.slug}-{slugify(qrel_set.name) or 'qrels'}"
    filename = simulated_filename(stem + suffix, simulated)
    disposition = content_disposition_header(True, filename)
    if disposition:  # None only for an inline response without a file name
        response["Content-Disposition"] = disposition
    return response
