"""Datasets, uploads (as operations), qrel sets, runs and pools over HTTP.

Reading needs the researcher or admin role; uploading, retrieving and pooling the admin
role, as on the dataset page and as the commands assume. An upload answers 202 with the
operation to poll (``GET /api/v1/operations/<id>``); its errors are the commands' own.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Annotated, Any, Literal

from django.http import HttpRequest, StreamingHttpResponse
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from ninja import Field, File, Form, Router, Schema, Status, UploadedFile
from ninja.errors import HttpError
from pydantic import BeforeValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from core.fixes import error_worded
from core.names import NameRefused, name_problem, text_clean, title_check
from core.paths import source_shown
from corpora import formats
from corpora.models import Dataset, Operation, Pool, QrelSet, Run
from corpora.pool_strategies import MAX_BUDGET, PoolStrategyName, budget_read
from corpora.retrieval import BM25_B, BM25_K1
from corpora.selectors import dataset_counts_list
from corpora.services import RunError, qrels_rows, run_create
from corpora.services.datasets import dataset_slug_taken
from corpora.services.operations import OperationError, operation_create
from corpora.services.runs import run_start_background
from corpora.simulated import (
    qrel_set_simulated_counts,
    simulated_filename,
    simulated_response_mark,
)

from .common import (
    WRITE,
    OperationOut,
    PageNumber,
    RowId,
    StrictIn,
    Whole,
    dataset_or_404,
    page_bounds,
    qrel_set_or_404,
    run_or_404,
)
from .errors import error_responses

router = Router(tags=["datasets"])


class QrelSetOut(Schema):
    name: str
    origin: str
    rows: int
    queries: int
    relevant: int
    # Whether the set holds simulated labels, and how many of each kind (rows copied from
    # a refined set it was refined from included): never a benchmark when true.
    simulated: bool
    simulated_labels: dict[str, int]
    downloads: dict[str, str]


class RunOut(Schema):
    id: int
    name: str
    source: Literal["builtin", "imported"]
    status: Literal["pending", "running", "done", "failed"]
    system: str
    error: str
    seconds: float
    created: datetime
    url: str


class PoolOut(Schema):
    id: int
    name: str
    qrels: str
    depth: int
    include_judged: bool
    runs: list[str]
    query_ids: list[str] | None
    pairs: int
    strategy: PoolStrategyName = "depth"
    budget: int | None = None
    strategy_parameters: dict[str, Any] = {}


class DatasetOut(Schema):
    slug: str
    name: str
    source: str
    licence: str
    documents: int
    queries: int
    qrel_sets: list[QrelSetOut]
    runs: int
    pools: int
    url: str


def _qrels_out(dataset: Dataset, stats: Any) -> QrelSetOut:
    base = f"/api/v1/datasets/{dataset.slug}/qrels/{stats.qrel_set.name}/download"
    simulated = qrel_set_simulated_counts(qrel_set=stats.qrel_set)
    return QrelSetOut(
        name=stats.qrel_set.name,
        origin=stats.qrel_set.origin,
        rows=stats.rows,
        queries=stats.queries,
        relevant=stats.relevant,
        simulated=any(simulated.values()),
        simulated_labels=simulated,
        downloads={fmt: f"{base}?format={fmt}" for fmt in ("trec", "beir", "labels")},
    )


def _dataset_out(row: Any) -> DatasetOut:
    dataset = row.dataset
    return DatasetOut(
        slug=dataset.slug,
        name=dataset.name,
        source=source_shown(dataset.source),
        licence=dataset.licence,
        documents=row.documents,
        queries=row.queries,
        qrel_sets=[_qrels_out(dataset, s) for s in row.qrel_sets],
        runs=row.runs,
        pools=row.pools,
        url=f"/api/v1/datasets/{dataset.slug}",
    )


def _run_out(run: Run) -> RunOut:
    return RunOut(
        id=run.pk,
        name=run.name,
        source=run.source,  # type: ignore[arg-type]  # the model's choices: the enum
        status=run.status,  # type: ignore[arg-type]  # the model's choices: the enum
        system=run.system,
        error=run.error,
        seconds=run.seconds,
        created=run.created,
        url=f"/api/v1/datasets/{run.dataset.slug}/runs/{run.name}",
    )


def _pool_out(pool: Pool) -> PoolOut:
    return PoolOut(
        id=pool.pk,
        name=pool.name,
        qrels=pool.qrel_set.name,
        depth=pool.depth,
        include_judged=pool.include_judged,
        runs=sorted(r.name for r in pool.runs.all()),
        query_ids=pool.query_ids,
        pairs=pool.pairs.count(),
        strategy=pool.strategy,  # type: ignore[arg-type]  # the model's choices: the Literal
        budget=pool.budget,
        strategy_parameters=pool.strategy_parameters,
    )


class DatasetPage(Schema):
    """One page of datasets (``?page=N``) and the ``count`` of all."""

    items: list[DatasetOut]
    count: int


class QrelSetPage(Schema):
    items: list[QrelSetOut]
    count: int


class RunPage(Schema):
    items: list[RunOut]
    count: int


class PoolPage(Schema):
    items: list[PoolOut]
    count: int


@router.get("/datasets", response={200: DatasetPage, **error_responses(400, 422)})
def datasets_list(request: HttpRequest, page: PageNumber = 1) -> DatasetPage:
    """Datasets by slug, with their counts and qrel sets, a page at a time (``?page=N``):
    only the page's datasets are counted."""
    datasets = Dataset.objects.order_by("slug")
    start, stop = page_bounds(page)
    rows = dataset_counts_list(datasets=list(datasets[start:stop]))
    return DatasetPage(items=[_dataset_out(row) for row in rows], count=datasets.count())


@router.get("/datasets/{slug}", response={200: DatasetOut, **error_responses(404)})
def dataset_detail(request: HttpRequest, slug: str) -> DatasetOut:
    """One dataset: counts and qrel sets with their download URLs."""
    return _dataset_out(dataset_counts_list(datasets=[dataset_or_404(slug)])[0])


def _operation_start(request: HttpRequest, **kwargs: Any) -> Status[OperationOut]:
    try:
        operation = operation_create(created_by=request.user, **kwargs)
    except OperationError as exc:
        raise HttpError(400, str(exc)) from None
    return Status(202, OperationOut.of(operation))


Policy = Literal["reject", "drop"]


def _names_check(**values: str) -> None:
    """400 unless each given value is a name by the one rule of :mod:`core.names`, as the
    forms and the import services require (a split or set name names a file, a slug a URL);
    the message names the field. Empty values are not checked (optional fields)."""
    for field, value in values.items():
        problem = name_problem(value, field=field) if value else None
        if problem:
            raise HttpError(400, problem)


def _texts_check(name: str, source: str, licence: str) -> dict[str, str]:
    """A dataset's title and free texts, cleaned (400 naming the field when refused)."""
    try:
        return {
            "name": title_check(name, field="name"),
            "source": text_clean(source, field="source", max_length=500),
            "licence": text_clean(licence, field="licence", max_length=200),
        }
    except NameRefused as exc:
        raise HttpError(400, str(exc)) from None


_UPLOAD = {202: OperationOut, **error_responses(400, 404, 413, 422)}
# A multipart upload: 415 for a body that is no form (JSON, say).
_FORM_UPLOAD = {202: OperationOut, **error_responses(400, 404, 413, 415, 422)}


@router.post(
    "/datasets", response={202: OperationOut, **error_responses(400, 413, 415, 422)}, auth=WRITE
)
def dataset_create(
    request: HttpRequest,
    name: str = Form(..., min_length=1, max_length=200),
    slug: str = Form("", max_length=100),
    source: Form[str] = "",
    licence: Form[str] = "",
    split: Form[str] = "test",
    on_duplicate: Form[Literal["", "keep-last", "keep-max"]] = "",
    unknown_ids: Form[Policy] = "reject",
    identical_ids: Form[Literal["", "exclude", "keep"]] = "",
    archive: UploadedFile | None = File(None),  # noqa: B008 (ninja's parameter marker)
    corpus: UploadedFile | None = File(None),  # noqa: B008 (ninja's parameter marker)
    queries: UploadedFile | None = File(None),  # noqa: B008 (ninja's parameter marker)
    qrels: UploadedFile | None = File(None),  # noqa: B008 (ninja's parameter marker)
) -> Status[OperationOut]:
    """Import a benchmark (admin): a BEIR ``archive`` (.zip or .tar.gz), or its ``corpus``,
    ``queries`` and ``qrels`` (one split, named ``split``) as separate files; the options of
    ``import_beir``. Answers 202 with the operation to poll; a slug (given, or made from
    ``name``) a dataset has already is a 400 at once naming ``slug`` and a free one."""
    _names_check(slug=slug, split=split)
    if taken := dataset_slug_taken(name=name, slug=slug):
        raise HttpError(
            400,
            f"slug: a dataset with slug {taken[0]!r} exists already; send another "
            f'"slug" (e.g. "{taken[1]}"), or upload into the existing one with '
            f"POST /datasets/{taken[0]}/qrels or /runs",
        )
    files = {"archive": archive, "corpus": corpus, "queries": queries, "qrels": qrels}
    params = {
        **_texts_check(name, source, licence),
        "slug": slug,
        "split": split,
        "on_duplicate": on_duplicate,
        "unknown_ids": unknown_ids,
        "identical_ids": identical_ids,
    }
    return _operation_start(
        request,
        kind=Operation.Kind.IMPORT_BEIR,
        params=params,
        files={k: f for k, f in files.items() if f is not None},
    )


@router.get("/operations/{operation_id}", response={200: OperationOut, **error_responses(404, 422)})
def operation_detail(request: HttpRequest, operation_id: RowId) -> OperationOut:
    """A long step's status, stage, result (what it made) or error."""
    operation = Operation.objects.select_related("dataset").filter(pk=operation_id).first()
    if operation is None:
        raise HttpError(404, f"no operation {operation_id}")
    return OperationOut.of(operation)


_LIST = error_responses(400, 404, 422)


@router.get("/datasets/{slug}/qrels", response={200: QrelSetPage, **_LIST})
def qrels_list(request: HttpRequest, slug: str, page: PageNumber = 1) -> QrelSetPage:
    """The dataset's qrel sets (original, imported and refined) by name, with download
    URLs, a page at a time."""
    dataset = dataset_or_404(slug)
    row = dataset_counts_list(datasets=[dataset])[0]
    start, stop = page_bounds(page)
    items = [_qrels_out(dataset, s) for s in row.qrel_sets[start:stop]]
    return QrelSetPage(items=items, count=len(row.qrel_sets))


def _attachment(response: StreamingHttpResponse, filename: str) -> StreamingHttpResponse:
    disposition = content_disposition_header(True, filename)
    if disposition:
        response["Content-Disposition"] = disposition
    return response


@router.get(
    "/datasets/{slug}/qrels/{path:name}/download",
    response=error_responses(400, 404, 422),
    openapi_extra={
        "responses": {
            200: {
                "description": "TREC qrels (text), BEIR TSV or labels JSONL, as `format` says.",
                "content": {
                    media: {"schema": {"type": "string"}}
                    for media in ("application/x-ndjson", "text/plain")
                },
            }
        }
    },
)
def qrels_download(
    request: HttpRequest, slug: str, name: str, format: Literal["trec", "beir", "labels"] = "trec"
) -> StreamingHttpResponse:
    """A qrel set as TREC qrels, BEIR TSV, or labels JSONL with each label's provenance
    (byte-identical to ``export_qrels`` / ``export_labels``)."""
    dataset = dataset_or_404(slug)
    qrel_set = qrel_set_or_404(dataset, name)
    # A set with simulated labels says so in its file name and a header (corpora.simulated).
    simulated = qrel_set_simulated_counts(qrel_set=qrel_set)
    stem = simulated_filename(f"{dataset.slug}-{slugify(qrel_set.name) or 'qrels'}", simulated)
    if format == "labels":
        from assess.refined.export_rows import labels_lines

        lines: Iterator[str] = labels_lines(qrel_set=qrel_set)
        response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
        simulated_response_mark(response, simulated)
        return _attachment(response, f"{stem}-labels.jsonl")
    line = formats.format_trec_qrel if format == "trec" else formats.format_beir_qrel

    def rows() -> Iterator[str]:
        if format == "beir":
            yield formats.BEIR_QRELS_HEADER
        for query_id, doc_id, grade in qrels_rows(qrel_set=qrel_set):
            yield line(query_id, doc_id, grade)

    response = StreamingHttpResponse(rows(), content_type="text/plain; charset=utf-8")
    simulated_response_mark(response, simulated)
    return _attachment(response, f"{stem}{'.qrels' if format == 'trec' else '.tsv'}")


@router.post("/datasets/{slug}/qrels", response=_FORM_UPLOAD, auth=WRITE)
def qrels_upload(
    request: HttpRequest,
    slug: str,
    name: str = Form(..., min_length=1, max_length=100),
    # Optional here so that a missing or empty file is the service's 400 naming the field.
    qrels: UploadedFile | None = File(None),  # noqa: B008 (ninja's parameter marker)
    fmt: Form[Literal["trec", "beir"]] = "trec",
    on_duplicate: Form[Literal["", "keep-last", "keep-max"]] = "",
    unknown_ids: Form[Policy] = "reject",
) -> Status[OperationOut]:
    """Import a qrels file (TREC or BEIR TSV) as a new qrel set ``name`` (admin); 202."""
    problem = name_problem(name, field="name")  # required: empty is refused too
    if problem:
        raise HttpError(400, problem)
    params = {"name": name, "fmt": fmt, "on_duplicate": on_duplicate, "unknown_ids": unknown_ids}
    return _operation_start(
        request,
        kind=Operation.Kind.IMPORT_QRELS,
        params=params,
        files={"qrels": qrels} if qrels is not None else {},
        dataset=dataset_or_404(slug),
    )


@router.get("/datasets/{slug}/runs", response={200: RunPage, **_LIST})
def runs_list(request: HttpRequest, slug: str, page: PageNumber = 1) -> RunPage:
    """The dataset's runs (imported and built-in) by name with their status, a page at a
    time."""
    runs = dataset_or_404(slug).runs.select_related("dataset").order_by("name")
    start, stop = page_bounds(page)
    return RunPage(items=[_run_out(r) for r in runs[start:stop]], count=runs.count())


@router.get("/datasets/{slug}/runs/{name}", response={200: RunOut, **error_responses(404)})
def run_detail(request: HttpRequest, slug: str, name: str) -> RunOut:
    """One run: its status (a built-in run goes pending → running → done or failed)."""
    return _run_out(run_or_404(dataset_or_404(slug), name))


@router.post("/datasets/{slug}/runs", response=_FORM_UPLOAD, auth=WRITE)
def run_upload(
    request: HttpRequest,
    slug: str,
    # Optional here so that a missing or empty file is the service's 400 naming the field.
    run: UploadedFile | None = File(None),  # noqa: B008 (ninja's parameter marker)
    name: str = Form("", max_length=100),
    system: Form[str] = "",
    unknown_ids: Form[Policy] = "reject",
) -> Status[OperationOut]:
    """Import a TREC run file (admin; ``name`` defaults to the file's tag); 202."""
    _names_check(name=name)
    params = {"name": name, "system": system, "unknown_ids": unknown_ids}
    return _operation_start(
        request,
        kind=Operation.Kind.IMPORT_RUN,
        params=params,
        files={"run": run} if run is not None else {},
        dataset=dataset_or_404(slug),
    )


class RetrieveIn(StrictIn):
    retriever: Literal["bm25", "dense"]
    k: Whole = Field(100, ge=1, le=10_000)
    queries: str = Field("test", max_length=100)
    name: str = Field("", max_length=100, pattern=r"^[-a-zA-Z0-9_]*$")
    k1: float | None = Field(
        None, ge=0, le=10, description=f"BM25 only: term frequency saturation (default {BM25_K1})."
    )
    b: float | None = Field(
        None,
        ge=0,
        le=1,
        description=f"BM25 only: document length normalisation (default {BM25_B}).",
    )


@router.post(
    "/datasets/{slug}/retrieve",
    response={202: RunOut, **error_responses(400, 404, 413, 422)},
    auth=WRITE,
)
def run_start(request: HttpRequest, slug: str, payload: RetrieveIn) -> Status[RunOut]:
    """Start a built-in BM25 or dense run (admin) over the queries of qrel set ``queries``
    (or ``all``), keeping the top ``k`` (BM25: ``k1`` and ``b`` if given); 202 with the run
    to poll."""
    _names_check(name=payload.name)
    dataset = dataset_or_404(slug)
    try:
        run = run_create(
            dataset=dataset,
            retriever=payload.retriever,
            k=payload.k,
            queries=payload.queries,
            name=payload.name or None,
            k1=payload.k1,
            b=payload.b,
        )
    except RunError as exc:
        # The API cannot replace a run: a taken name is answered without that option.
        raise HttpError(400, error_worded(exc, "plain")) from None
    if run.status != Run.Status.DONE:
        run_start_background(run=run)
    return Status(202, _run_out(run))


@router.get("/datasets/{slug}/pools", response={200: PoolPage, **_LIST})
def pools_list(request: HttpRequest, slug: str, page: PageNumber = 1) -> PoolPage:
    """The dataset's pools by name with their runs, depth and size, a page at a time."""
    dataset = dataset_or_404(slug)
    pools = dataset.pools.select_related("qrel_set").prefetch_related("runs").order_by("name")
    start, stop = page_bounds(page)
    return PoolPage(items=[_pool_out(p) for p in pools[start:stop]], count=pools.count())


def _number_only(value: Any) -> Any:
    """``value`` when it is a JSON number; one "valid number" error otherwise (a union of
    int and float would give two)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PydanticCustomError("float_type", "Input should be a valid number")
    return value


# A pool's budget as the JSON number was written: int before float, so 1 stays the int 1 (one
# pair) and 1.0 a float, which pool_create refuses (corpora.pool_strategies.budget_read).
PoolBudget = Annotated[
    int | float,
    BeforeValidator(_number_only),
    Field(ge=0.000001, le=MAX_BUDGET),
    WithJsonSchema({"type": "number", "minimum": 0.000001, "maximum": MAX_BUDGET}),
]


class PoolIn(StrictIn):
    qrels: str = Field("test", max_length=100)
    runs: list[str]
    depth: Whole = Field(10, ge=1, le=1000)
    include_judged: bool = False
    name: str = Field("", max_length=100, pattern=r"^[-a-zA-Z0-9_]*$")
    queries: list[str] | None = None
    strategy: PoolStrategyName = Field(
        "depth", description="Judging order: depth, rbp, rrf, bandit (MaxMean) or mtc"
    )
    budget: PoolBudget | None = Field(
        None,
        description="Pairs a job judges at most: a whole number of pairs (1 is one pair; 1.0 "
        "or 2.5 are refused), or below 1 a share of the pool; empty: every pair",
    )


@router.post("/datasets/{slug}/pools", response=_UPLOAD, auth=WRITE)
def pool_create(request: HttpRequest, slug: str, payload: PoolIn) -> Status[OperationOut]:
    """Build (or extend) a pool of the unjudged pairs the ``runs`` rank in their top
    ``depth`` for the queries judged in ``qrels`` (admin), ordered by ``strategy`` with a
    ``budget`` of pairs to judge (a count, or below 1 a share); 202 with the operation."""
    _names_check(name=payload.name)
    dataset = dataset_or_404(slug)
    if not payload.runs:
        raise HttpError(400, "runs: name at least one run")
    if payload.depth < 1:
        raise HttpError(400, f"depth: must be at least 1, got {payload.depth}")
    if not QrelSet.objects.filter(dataset=dataset, name=payload.qrels).exists():
        raise HttpError(400, f"qrels: no qrel set {payload.qrels!r} in {dataset.slug}")
    if payload.budget is not None:
        try:
            budget_read(payload.budget)
        except ValueError as exc:
            raise HttpError(400, f"budget: {exc}") from None
    known = sorted(dataset.runs.values_list("name", flat=True))
    if missing := [name for name in payload.runs if name not in known]:
        names = ", ".join(repr(name) for name in missing)
        raise HttpError(
            400, f"runs: no run {names} in {dataset.slug} (known: {', '.join(known) or 'none'})"
        )
    return _operation_start(
        request, kind=Operation.Kind.BUILD_POOL, params=payload.dict(), dataset=dataset
    )
