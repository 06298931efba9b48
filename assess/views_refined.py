"""Pages of the refined-benchmark side: refined qrel sets, exports, re-benchmark, RAG.

Who may open what (every view is wrapped in :func:`corpora.roles.role_required`):

| page                                                | annotator | researcher | admin |
|-----------------------------------------------------|-----------|------------|-------|
| refined sets, refined set, re-benchmark, plots, RAG | 403       | yes        | yes   |
| export request (POST), export status, download      | 403       | yes        | yes   |
| refine again (POST; its form on the refined sets)   | 403       | 403        | yes   |

Plots are standalone SVG files served with ``image/svg+xml`` and shown with ``<img src>``,
never inlined into the page.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header, urlencode
from django.views.decorators.http import require_GET, require_POST

from corpora.models import Dataset, QrelSet
from corpora.roles import Role, role_required, user_has_role
from corpora.services import dataset_get

from . import plots
from .exports import (
    CONTENT_TYPE,
    ExportError,
    export_get,
    export_key,
    export_path,
    export_request,
)
from .forms import RefineForm
from .metrics import NDCG10
from .models import ExportFile, Refinement
from .rag_eval import rag_stored_report
from .rebench import RebenchError, rebench_compute, rebench_runs
from .rebench_tables import RAG_FORMULA, rag_table, rebench_tables
from .refine import RefineError, qrels_refine, refinement_get, refinement_unresolved

READERS = (Role.RESEARCHER, Role.ADMIN)
UNRESOLVED_SHOWN = 200
PLOTS = ("ranks", "deltas", "holes")
EXPORT_KINDS = (
    ("labels", "Labels with provenance (JSONL)"),
    ("trec", "TREC qrels"),
    ("beir", "BEIR qrels (TSV)"),
    ("disagreements", "Disagreements and escalations (CSV)"),
    ("transcripts", "Debate transcripts (JSONL)"),
)
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'"


def _dataset_or_404(slug: str) -> Dataset:
    try:
        return dataset_get(slug=slug)
    except Dataset.DoesNotExist:
        raise Http404(f"No dataset {slug!r}.") from None


def _refinement_or_404(dataset: Dataset, name: str) -> Refinement:
    qrel_set = QrelSet.objects.filter(dataset=dataset, name=name).first()
    if qrel_set is None:
        raise Http404(f"No qrel set {name!r} in {dataset.slug}.")
    try:
        return refinement_get(qrel_set=qrel_set)
    except Refinement.DoesNotExist:
        raise Http404(f"Qrel set {name!r} was imported, not refined.") from None


def _exports_by_kind(refinement: Refinement) -> dict[str, ExportFile]:
    """The newest export of each kind that is still current for a refined set (its key
    matches: transcripts go out of date as the pool's debates go on)."""
    found: dict[str, ExportFile] = {}
    for kind, _ in EXPORT_KINDS:
        source = (
            {"pool": refinement.pool}
            if kind == "transcripts"
            else {"qrel_set": refinement.qrel_set}
        )
        export = (
            ExportFile.objects.filter(key=export_key(kind=kind, **source))
            .order_by("-created")
            .first()
        )
        if export is not None:
            found[kind] = export
    return found


def _refined_list_render(
    request: HttpRequest, dataset: Dataset, form: RefineForm | None = None, status: int = 200
) -> HttpResponse:
    """The refined sets page. Admins get the refine form (``form``, or a fresh one) when the
    dataset has a pool; everybody else, and a dataset without pools, none."""
    can_refine = user_has_role(request.user, Role.ADMIN)
    has_pools = dataset.pools.exists()
    if not (can_refine and has_pools):
        form = None
    elif form is None:
        form = RefineForm(dataset=dataset)
    refinements = (
        Refinement.objects.filter(qrel_set__dataset=dataset)
        .select_related("qrel_set", "pool", "original")
        .order_by("qrel_set__name")
    )
    return render(
        request,
        "assess/refined/refined_list.html",
        {
            "dataset": dataset,
            "refinements": refinements,
            "can_refine": can_refine,
            "has_pools": has_pools,
            "form": form,
        },
        status=status,
    )


@role_required(*READERS)
@require_GET
def refined_list(request: HttpRequest, slug: str) -> HttpResponse:
    """The dataset's refined qrel sets with their counts; for admins, the form that makes a
    new one from a pool (:func:`refine_create`)."""
    return _refined_list_render(request, _dataset_or_404(slug))


@role_required(Role.ADMIN)
@require_POST
def refine_create(request: HttpRequest, slug: str) -> HttpResponse:
    """Refine again: a new refined qrel set from a pool's current final labels
    (:func:`assess.refine.qrels_refine`), then its page (303). A form error or a refusal
    (name taken, too many unresolved pairs...) gives the refined sets page again with the
    message (400), having written nothing."""
    dataset = _dataset_or_404(slug)
    form = RefineForm(request.POST, dataset=dataset)
    if form.is_valid():
        data = form.cleaned_data
        try:
            report = qrels_refine(
                pool=data["pool"],
                name=data["name"],
                allow_partial=data["allow_partial"],
                created_by=request.user,
            )
        except RefineError as exc:
            form.add_error(None, str(exc))
        else:
            refinement = report.refinement
            messages.success(
                request,
                f"Refined qrel set {report.qrel_set.name} created: "
                f"{refinement.original_rows:,} original rows + "
                f"{refinement.new_relevant + refinement.new_nonrelevant:,} new labels, "
                f"{refinement.unresolved:,} pairs pending.",
            )
            url = reverse("refined:refined_detail", args=[dataset.slug, report.qrel_set.name])
            return HttpResponseRedirect(url, status=303)
    return _refined_list_render(request, dataset, form, status=400)


@role_required(*READERS)
@require_GET
def refined_detail(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    """One refined set: how it was made, labels by source, unresolved pairs, exports."""
    dataset = _dataset_or_404(slug)
    refinement = _refinement_or_404(dataset, name)
    unresolved = refinement_unresolved(refinement=refinement)
    exports = _exports_by_kind(refinement)
    return render(
        request,
        "assess/refined/refined_detail.html",
        {
            "dataset": dataset,
            "refinement": refinement,
            "counts": refinement.counts,
            # jsonb does not keep key order: sort for display.
            "by_source": sorted((refinement.counts.get("by_source") or {}).items()),
            "by_reason": sorted((refinement.counts.get("by_reason") or {}).items()),
            "unresolved_percent": f"{refinement.unresolved_share:.1%}",
            "threshold_percent": f"{refinement.max_unresolved_share:.1%}",
            "unresolved": unresolved[:UNRESOLVED_SHOWN],
            "unresolved_more": max(refinement.unresolved - UNRESOLVED_SHOWN, 0),
            "exports": [(kind, label, exports.get(kind)) for kind, label in EXPORT_KINDS],
            "rebench_url": reverse("refined:rebenchmark", args=[dataset.slug])
            + "?"
            + urlencode(
                {"original": refinement.original.name, "refined": refinement.qrel_set.name}
            ),
        },
    )


@role_required(*READERS)
@require_POST
def export_start(request: HttpRequest, slug: str, name: str, kind: str) -> HttpResponse:
    """Request export ``kind`` of refined set ``name`` (transcripts: of its pool). A second
    click reuses the pending, running or done job. htmx gets the status fragment."""
    dataset = _dataset_or_404(slug)
    refinement = _refinement_or_404(dataset, name)
    if kind not in dict(EXPORT_KINDS):
        raise Http404(f"Unknown export {kind!r}.")
    try:
        if kind == "transcripts":
            export, _ = export_request(kind=kind, pool=refinement.pool, requested_by=request.user)
        else:
            export, _ = export_request(
                kind=kind, qrel_set=refinement.qrel_set, requested_by=request.user
            )
    except ExportError as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    if getattr(request, "htmx", False):
        export.refresh_from_db()
        return render(
            request,
            "assess/refined/partials/export_status.html",
            {"export": export, "kind": kind, "dataset": dataset, "refinement": refinement},
        )
    return redirect("refined:refined_detail", slug=dataset.slug, name=name)


@role_required(*READERS)
@require_GET
def export_status(request: HttpRequest, pk: int) -> HttpResponse:
    """The status fragment of one export (polled by the page until done or failed)."""
    try:
        export = export_get(pk=pk)
    except ExportFile.DoesNotExist:
        raise Http404("No such export.") from None
    refinement = None
    if export.qrel_set_id:
        refinement = Refinement.objects.filter(qrel_set_id=export.qrel_set_id).first()
    elif export.pool_id:
        refinement = Refinement.objects.filter(pool_id=export.pool_id).order_by("-created").first()
    dataset = (export.qrel_set or export.pool).dataset
    return render(
        request,
        "assess/refined/partials/export_status.html",
        {"export": export, "kind": export.kind, "dataset": dataset, "refinement": refinement},
    )


@role_required(*READERS)
@require_GET
def export_download(request: HttpRequest, pk: int) -> FileResponse:
    """The file of a done export, as an attachment with its sha256 in ``X-Checksum-SHA256``."""
    try:
        export = export_get(pk=pk)
    except ExportFile.DoesNotExist:
        raise Http404("No such export.") from None
    path = export_path(export)
    if export.status != ExportFile.Status.DONE or not path.is_file():
        raise Http404("This export is not ready (or its file was removed); request it again.")
    response = FileResponse(
        open(path, "rb"),  # noqa: SIM115  (FileResponse closes it)
        as_attachment=True,
        filename=export.filename,
        content_type=CONTENT_TYPE[export.kind],
    )
    response["X-Checksum-SHA256"] = export.sha256
    return response


def _rebench_choice(request: HttpRequest, dataset: Dataset) -> dict:
    """The qrel sets and runs chosen on the re-benchmark and RAG pages (with defaults)."""
    qrel_sets = list(dataset.qrel_sets.order_by("name"))
    by_name = {q.name: q for q in qrel_sets}
    imported = [q for q in qrel_sets if q.origin == QrelSet.Origin.IMPORTED]
    refined = sorted(
        (q for q in qrel_sets if q.origin == QrelSet.Origin.REFINED),
        key=lambda q: q.created,
        reverse=True,
    )
    default_original = by_name.get("test") or (imported[0] if imported else None)
    original = by_name.get(request.GET.get("original", "")) or default_original
    chosen_refined = by_name.get(request.GET.get("refined", "")) or (
        refined[0] if refined else None
    )
    errors = []
    for field in ("original", "refined"):
        value = request.GET.get(field)
        if value and value not in by_name:
            errors.append(f"No qrel set {value!r} in {dataset.slug}.")
    return {
        "qrel_sets": qrel_sets,
        "original": original,
        "refined": chosen_refined,
        "errors": errors,
    }


@role_required(*READERS)
@require_GET
def rebenchmark(request: HttpRequest, slug: str) -> HttpResponse:
    """Leaderboards before/after, rank changes with Kendall's tau and paired tests, per-query
    changes and the three plots, for the chosen original and refined qrel sets and runs."""
    dataset = _dataset_or_404(slug)
    choice = _rebench_choice(request, dataset)
    all_runs = list(dataset.runs.filter(status="done").order_by("name"))
    wanted = request.GET.getlist("runs")
    context = {"dataset": dataset, "all_runs": all_runs, "wanted": set(wanted), **choice}
    report = None
    if choice["original"] and choice["refined"] and all_runs and not choice["errors"]:
        try:
            runs = rebench_runs(dataset=dataset, names=wanted or None)
            report = rebench_compute(
                dataset=dataset,
                original=choice["original"],
                refined=choice["refined"],
                runs=runs,
            )
        except RebenchError as exc:
            context["errors"].append(str(exc))
    if report is not None:
        tables = rebench_tables(report.result)
        query = request.GET.urlencode()
        context.update(
            {
                "report": report,
                "tables": tables[:3],
                "per_query": tables[3],
                "plots": [
                    (
                        plot,
                        reverse("refined:rebenchmark_plot", args=[dataset.slug, plot])
                        + (f"?{query}" if query else ""),
                    )
                    for plot in PLOTS
                ],
            }
        )
    status = 400 if context["errors"] else 200
    return render(request, "assess/refined/rebenchmark.html", context, status=status)


@role_required(*READERS)
@require_GET
def rebenchmark_plot(request: HttpRequest, slug: str, plot: str) -> HttpResponse:
    """One re-benchmark plot as an SVG file: ``ranks`` (slope chart of ranks before →
    after), ``deltas`` (change of nDCG@10 per system) or ``holes`` (holes filled per query).
    ``?download=1`` serves it as an attachment."""
    dataset = _dataset_or_404(slug)
    if plot not in PLOTS:
        raise Http404(f"Unknown plot {plot!r}.")
    choice = _rebench_choice(request, dataset)
    if choice["errors"] or not choice["original"] or not choice["refined"]:
        raise Http404("Choose an original and a refined qrel set.")
    try:
        runs = rebench_runs(dataset=dataset, names=request.GET.getlist("runs") or None)
        report = rebench_compute(
            dataset=dataset, original=choice["original"], refined=choice["refined"], runs=runs
        )
    except RebenchError as exc:
        raise Http404(str(exc)) from None
    result = report.result
    if plot == "ranks":
        svg = plots.rank_slope_svg(result.rank_changes)
    elif plot == "deltas":
        before = {r.system: r.scores[NDCG10] for r in result.before}
        svg = plots.delta_bars_svg(
            {r.system: r.scores[NDCG10] - before[r.system] for r in result.after}
        )
    else:
        holes = {q: report.holes_per_query.get(q, 0) for q in result.queries}
        svg = plots.holes_histogram_svg(holes)
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Content-Security-Policy"] = SVG_POLICY
    filename = f"{dataset.slug}-{choice['refined'].name}-{plot}.svg"
    response["Content-Disposition"] = content_disposition_header(
        request.GET.get("download") == "1", filename
    )
    return response


@role_required(*READERS)
@require_GET
def rag(request: HttpRequest, slug: str) -> HttpResponse:
    """RAG alignment from the stored generations (``rag_eval`` makes them): accuracy,
    Success@k and RAGAlign@k with the original and refined qrels, correlation, formula."""
    dataset = _dataset_or_404(slug)
    choice = _rebench_choice(request, dataset)
    try:
        k = int(request.GET.get("k", 10))
    except ValueError:
        k = 10
    report = None
    if choice["original"] and not choice["errors"]:
        report = rag_stored_report(
            dataset=dataset, original=choice["original"], refined=choice["refined"], k=k
        )
    return render(
        request,
        "assess/refined/rag.html",
        {
            "dataset": dataset,
            "k": k,
            "report": report,
            "table": rag_table(report) if report else None,
            "formula": RAG_FORMULA,
            "with_answers": dataset.queries.exclude(answers=[]).count(),
            **choice,
        },
        status=400 if choice["errors"] else 200,
    )
