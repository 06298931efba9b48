"""Pages of the refined-benchmark side: refined qrel sets, exports, re-benchmark, RAG.

Who may open what (every view is wrapped in :func:`corpora.roles.role_required`):

| page                                                | annotator | researcher | admin |
|-----------------------------------------------------|-----------|------------|-------|
| refined sets, refined set, re-benchmark, plots, RAG | 403       | yes        | yes   |
| export request (POST), export status, download      | 403       | yes        | yes   |
| refine again (POST; its form on the refined sets)   | 403       | 403        | yes   |

Plots are standalone SVG files served with ``image/svg+xml`` and shown with ``<img src>``,
never inlined into the page. Database reads go through :mod:`assess.selectors_refined` and
the services; the views only choose, call and render.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header, urlencode
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from corpora.htmx import htmx_view, wants_fragment
from corpora.models import Dataset, QrelSet
from corpora.roles import Role, role_required, user_has_role
from corpora.services import dataset_get

from . import plots
from .exports import CONTENT_TYPE, ExportError, export_get, export_path, export_request
from .forms import RefineForm
from .models import ExportFile, Refinement
from .rag_eval import rag_generators, rag_stored_report
from .rebench import RebenchError, rebench_compute, rebench_runs
from .rebench_tables import RAG_FORMULA, mean_deltas, rag_table, rebench_tables
from .refine import RefineError, qrels_refine, refinement_get, refinement_unresolved
from .selectors_refined import (
    dataset_has_pools,
    export_refinement,
    exports_current,
    qrel_set_find,
    qrel_sets_by_name,
    queries_with_answers_count,
    refinements_of,
    runs_finished,
)

READERS = (Role.RESEARCHER, Role.ADMIN)
UNRESOLVED_SHOWN = 200
PLOTS = ("ranks", "deltas", "holes")
PLOT_ALT = {
    "ranks": "Slope chart of each system's rank on nDCG@10, original to refined qrels",
    "deltas": "Bars of each system's change in every measure, one panel per measure",
    "holes": "Histogram of holes filled per query",
}
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
    qrel_set = qrel_set_find(dataset=dataset, name=name)
    if qrel_set is None:
        raise Http404(f"No qrel set {name!r} in {dataset.slug}.")
    try:
        return refinement_get(qrel_set=qrel_set)
    except Refinement.DoesNotExist:
        raise Http404(f"Qrel set {name!r} was imported, not refined.") from None


def _refined_list_render(
    request: HttpRequest, dataset: Dataset, form: RefineForm | None = None, status: int = 200
) -> HttpResponse:
    """The refined sets page. Admins get the refine form (``form``, or a fresh one) when the
    dataset has a pool; everybody else, and a dataset without pools, none."""
    can_refine = user_has_role(request.user, Role.ADMIN)
    has_pools = dataset_has_pools(dataset=dataset)
    if not (can_refine and has_pools):
        form = None
    elif form is None:
        form = RefineForm(dataset=dataset)
    refinements = refinements_of(dataset=dataset)
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
    exports = exports_current(refinement=refinement, kinds=[kind for kind, _ in EXPORT_KINDS])
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


@htmx_view(no_store=True)
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
    if wants_fragment(request):
        export.refresh_from_db()
        return render(
            request,
            "assess/refined/partials/export_status.html",
            {"export": export, "kind": kind, "dataset": dataset, "refinement": refinement},
        )
    return redirect("refined:refined_detail", slug=dataset.slug, name=name)


@htmx_view(no_store=True)
@role_required(*READERS)
@require_GET
def export_status(request: HttpRequest, pk: int) -> HttpResponse:
    """The status fragment of one export (polled by the page until done or failed)."""
    try:
        export = export_get(pk=pk)
    except ExportFile.DoesNotExist:
        raise Http404("No such export.") from None
    refinement = export_refinement(export=export)
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
    path = export_path(export=export)
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
    qrel_sets = qrel_sets_by_name(dataset=dataset)
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
    all_runs = runs_finished(dataset=dataset)
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
        context.update(
            {
                "report": report,
                "tables": tables[:3],
                "per_query": tables[3],
                "plots": [
                    {
                        "name": plot,
                        "alt": PLOT_ALT[plot],
                        "url": _plot_url(request, dataset, plot),
                        # The delta panels also come one measure a file.
                        "measures": [
                            (m, _plot_url(request, dataset, plot, measure=m))
                            for m in (report.result.measures if plot == "deltas" else ())
                        ],
                    }
                    for plot in PLOTS
                ],
            }
        )
    status = 400 if context["errors"] else 200
    return render(request, "assess/refined/rebenchmark.html", context, status=status)


def _plot_url(request: HttpRequest, dataset: Dataset, plot: str, **extra: str) -> str:
    """The plot's address with the page's choices (qrel sets, runs) and ``extra``."""
    query = request.GET.copy()
    for key, value in extra.items():
        query[key] = value
    url = reverse("refined:rebenchmark_plot", args=[dataset.slug, plot])
    return f"{url}?{query.urlencode()}" if query else url


@role_required(*READERS)
@require_GET
def rebenchmark_plot(request: HttpRequest, slug: str, plot: str) -> HttpResponse:
    """One re-benchmark plot as an SVG file: ``ranks`` (slope chart of ranks before →
    after), ``deltas`` (each system's change in every measure, one panel per measure; with
    ``?measure=LABEL`` that measure's bars alone) or ``holes`` (holes filled per query).
    ``?download=1`` serves it as an attachment. An unknown plot or measure is a 404."""
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
    name = plot
    if plot == "ranks":
        svg = plots.rank_slope_svg(result.rank_changes)
    elif plot == "deltas":
        deltas = mean_deltas(result)
        measure = request.GET.get("measure")
        if measure is None:
            svg = plots.delta_panels_svg(deltas)
        elif measure in deltas:
            svg = plots.delta_bars_svg(deltas[measure], measure=measure)
            name = f"{plot}-{slugify(measure)}"
        else:
            raise Http404(f"Unknown measure {measure!r} (known: {', '.join(deltas)}).")
    else:
        holes = {q: report.holes_per_query.get(q, 0) for q in result.queries}
        svg = plots.holes_histogram_svg(holes)
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Content-Security-Policy"] = SVG_POLICY
    filename = f"{dataset.slug}-{choice['refined'].name}-{name}.svg"
    response["Content-Disposition"] = content_disposition_header(
        request.GET.get("download") == "1", filename
    )
    return response


@role_required(*READERS)
@require_GET
def rag(request: HttpRequest, slug: str) -> HttpResponse:
    """RAG alignment from the stored generations (``rag_eval`` makes them): accuracy,
    Success@k and RAGAlign@k with the original and refined qrels, correlation, formula.
    ``?generator=KEY`` chooses whose answers (:func:`assess.rag_eval.generator_key`; default:
    the generator with the most answers at k); an unknown one is reported (400)."""
    dataset = _dataset_or_404(slug)
    choice = _rebench_choice(request, dataset)
    try:
        k = int(request.GET.get("k", 10))
    except ValueError:
        k = 10
    generators = rag_generators(dataset=dataset, k=k)
    known = {g.key for g in generators}
    generator = request.GET.get("generator") or None
    if generator is not None and generator not in known:
        choice["errors"].append(f"No stored answers from generator {generator!r} at k = {k}.")
        generator = None
    elif generator is None and generators:
        generator = generators[0].key  # the one with the most answers
    report = None
    if choice["original"] and generator and not choice["errors"]:
        report = rag_stored_report(
            dataset=dataset,
            original=choice["original"],
            refined=choice["refined"],
            k=k,
            generator=generator,
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
            "with_answers": queries_with_answers_count(dataset=dataset),
            "generators": generators,
            "generator": generator,
            **choice,
        },
        status=400 if choice["errors"] else 200,
    )
