"""Pages of the evaluation side: re-benchmark (tables and plots) and RAG alignment.

Who may open what (every view is wrapped in :func:`core.roles.role_required`):

| page                                                | annotator | researcher | admin |
|-----------------------------------------------------|-----------|------------|-------|
| re-benchmark, plots, RAG                            | 403       | yes        | yes   |

Their URL names stay in the ``refined`` namespace (:mod:`assess.refined.urls` includes
:mod:`assess.evaluation.urls`). Plots are standalone SVG files served with ``image/svg+xml``
and shown with ``<img src>``, never inlined into the page. Database reads go through
:mod:`assess.evaluation.selectors` and the services; the views only choose, call and render.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from assess.models.bundled import refined_bundled_warning
from assess.models.simulated import qrel_sets_simulated, simulated_sentence
from core.roles import Role, role_required
from corpora.formats import relevance_level_check
from corpora.models import Dataset, QrelSet
from corpora.services import dataset_get

from . import plots
from .interval_deltas import DeltaIntervals, not_refined, not_refined_note, order_caption
from .metrics import NDCG10
from .rag_eval import rag_generators, rag_stored_report
from .rebench import (
    RebenchError,
    RebenchReport,
    rebench_compute,
    rebench_original_check,
    rebench_refined_from,
    rebench_runs,
)
from .refined_intervals import (
    COVERAGE_CAVEAT,
    RefinedIntervals,
    interval_tables,
    intervals_plot,
    refined_simulated,
    report_intervals,
)
from .selectors import qrel_sets_by_name, queries_with_answers_count, runs_finished
from .tables import (
    RAG_FORMULA,
    mean_deltas,
    per_query_changes_count,
    rag_table,
    rebench_tables,
    relevance_note,
)

READERS = (Role.RESEARCHER, Role.ADMIN)
PLOTS = ("ranks", "deltas", "holes", "intervals")
PLOT_ALT = {
    "ranks": "Slope chart of each system's rank on nDCG@10, original to refined qrels",
    "deltas": "Bars of each system's change in every measure, one panel per measure",
    "holes": "Histogram of holes filled per query",
    "intervals": "Each system's nDCG@10 on the original qrels and on the refined qrels with "
    "its 95% interval and the number of human labels behind it",
}
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'"


def _dataset_or_404(slug: str) -> Dataset:
    try:
        return dataset_get(slug=slug)
    except Dataset.DoesNotExist:
        raise Http404(f"No dataset {slug!r}.") from None


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
    chosen_refined = by_name.get(request.GET.get("refined", "")) or (
        refined[0] if refined else None
    )
    # By default a refined set is compared with the qrels it was refined from.
    origins = rebench_refined_from(refined=chosen_refined) if chosen_refined else []
    default_original = (
        origins[0] if origins else by_name.get("test") or (imported[0] if imported else None)
    )
    original = by_name.get(request.GET.get("original", "")) or default_original
    errors = []
    for field in ("original", "refined"):
        value = request.GET.get(field)
        if value and value not in by_name:
            errors.append(f"No qrel set {value!r} in {dataset.slug}.")
    if original is not None and chosen_refined is not None and not errors:
        try:
            rebench_original_check(original=original, refined=chosen_refined)
        except RebenchError as exc:
            errors.append(f"Original qrels: {exc}.")
    rel = request.GET.get("rel", "") or "1"
    valid = True
    # Only ASCII digits of a plausible length are read as a number ("²" is a digit to
    # str.isdigit but not to int, and a 5,000-digit number is refused by int itself): the
    # rest reaches the check as text, which it refuses in its own words.
    level = int(rel) if rel.isascii() and rel.isdigit() and len(rel) <= 4 else rel
    try:
        relevance_level_check(level)
    except ValueError as exc:
        valid = False
        errors.append(f"{str(exc)[0].upper()}{str(exc)[1:]}.")  # a sentence on the page
    return {
        "qrel_sets": qrel_sets,
        "original": original,
        "refined": chosen_refined,
        "errors": errors,
        "rel_level": int(rel) if valid else 1,
        "exp_gain": request.GET.get("exp") == "1",
    }


def _rebench_report(dataset: Dataset, choice: dict, names: list[str]) -> RebenchReport:
    """The re-benchmark of ``names`` (all finished runs when none) under the qrel sets and
    settings of ``choice`` (:func:`_rebench_choice`). Raises RebenchError."""
    runs = rebench_runs(dataset=dataset, names=names or None)
    return rebench_compute(
        dataset=dataset,
        original=choice["original"],
        refined=choice["refined"],
        runs=runs,
        rel_level=choice["rel_level"],
        exp_gain=choice["exp_gain"],
    )


@role_required(*READERS)
@require_GET
def rebenchmark(request: HttpRequest, slug: str) -> HttpResponse:
    """Leaderboards before/after, rank changes with Kendall's tau, paired tests and RBP, the
    ranking agreement (tau-b, tau_AP,b, top-10 tau, RBO), per-query changes and the plots
    (for a refined set also the intervals, as tables and a plot), for the chosen original
    and refined qrel sets and runs."""
    dataset = _dataset_or_404(slug)
    choice = _rebench_choice(request, dataset)
    all_runs = runs_finished(dataset=dataset)
    wanted = request.GET.getlist("runs")
    context = {"dataset": dataset, "all_runs": all_runs, "wanted": set(wanted), **choice}
    context["simulated_sets"] = qrel_sets_simulated(choice["qrel_sets"])
    if choice["refined"] is not None:
        context["bundled_warning"] = refined_bundled_warning(qrel_set=choice["refined"])
        if not hasattr(choice["refined"], "refinement"):
            context["not_refined_note"] = not_refined_note(choice["refined"].name)
    report = None
    if choice["original"] and choice["refined"] and all_runs and not choice["errors"]:
        try:
            report = _rebench_report(dataset, choice, wanted)
        except RebenchError as exc:
            context["errors"].append(str(exc))
    if report is not None:
        found = _found(report, choice)
        deltas = _deltas(found, choice)
        tables = rebench_tables(report.result, deltas=deltas)
        if found is not None:
            context["interval_tables"] = interval_tables(found)
            context["simulated_line"] = found.simulated_line
        context.update(
            {
                "report": report,
                "relevance_note": relevance_note(report.result),
                "tables": tables[:3] + report.effects_tables(),
                "per_query": tables[3],
                "per_query_count": per_query_changes_count(tables[3]),
                "ranking": tables[4],
                "plots": _plots(request, dataset, report, found, deltas),
            }
        )
    status = 400 if context["errors"] else 200
    return render(request, "assess/refined/rebenchmark.html", context, status=status)


def _found(report: RebenchReport, choice: dict) -> RefinedIntervals | None:
    """The intervals of the chosen refined set (None: not made by refine, no provenance)."""
    refined = choice["refined"]
    if not hasattr(refined, "refinement"):
        return None
    return report_intervals(
        report=report, original=choice["original"], refined=refined, rel_level=choice["rel_level"]
    )


def _deltas(found: RefinedIntervals | None, choice: dict) -> DeltaIntervals:
    """Each run's Δ interval, or why there is none."""
    return found.deltas() if found is not None else not_refined(choice["refined"].name)


def _order_caption(found: RefinedIntervals | None, deltas: DeltaIntervals) -> str:
    """The rank plot's words on how settled the refined order is, or why it is not known."""
    if found is None or found.ppi is None:
        return order_caption(None, deltas.missing)
    return order_caption(found.pairs)


def _plots(
    request: HttpRequest,
    dataset: Dataset,
    report: RebenchReport,
    found: RefinedIntervals | None,
    deltas: DeltaIntervals,
) -> list[dict]:
    """The page's figures: ``name``, ``alt``, ``url``, the delta panels' ``measures``, the
    ``caption`` the ranks and deltas plots carry in their files too (how settled the refined
    order is; what the Δ error bars are, with n) and, for the intervals plot (only for a
    refined set, whose provenance it needs), its ``caveat`` and, when the sample cannot
    support intervals, the ``error`` shown in its place."""
    captions = {
        "ranks": _order_caption(found, deltas),
        "deltas": deltas.plot_caption(report.result.measures, report.result.rel_level),
    }
    out = []
    for plot in PLOTS:
        if plot == "intervals" and found is None:
            continue
        out.append(
            {
                "name": plot,
                "alt": PLOT_ALT[plot],
                "url": _plot_url(request, dataset, plot),
                # The delta panels also come one measure a file.
                "measures": [
                    (m, _plot_url(request, dataset, plot, measure=m))
                    for m in (report.result.measures if plot == "deltas" else ())
                ],
                "error": found.error if plot == "intervals" and found else "",
                "caveat": COVERAGE_CAVEAT if plot == "intervals" else "",
                "caption": captions.get(plot, ""),
            }
        )
    return out


def _intervals_svg(report: RebenchReport, choice: dict) -> str:
    """The intervals plot of a re-benchmark of a refined set. Http404 with the words of what
    is missing when the set was not refined or its sample cannot support intervals."""
    refined = choice["refined"]
    if not hasattr(refined, "refinement"):
        raise Http404(f"Qrel set {refined.name!r} was not refined: it has no intervals.")
    found = report_intervals(
        report=report, original=choice["original"], refined=refined, rel_level=choice["rel_level"]
    )
    if found.ppi is None:
        raise Http404(f"No interval: {found.error}.")
    return intervals_plot(found=found)


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
    after, ties labelled "=k", its caption saying how many run pairs' refined order is
    settled at 95%), ``deltas`` (each system's change in every measure, one panel per
    measure, the Δ intervals as error bars and their n in the caption; with
    ``?measure=LABEL`` that measure's bars alone), ``holes`` (holes filled per query) or
    ``intervals`` (nDCG@10 per system, original and refined with its 95% interval and
    sample size: a refined set only). ``?download=1`` serves it as an attachment. An
    unknown plot or measure is a 404, as are intervals the sample cannot support (the 404
    says what is missing)."""
    try:
        dataset, choice, name, svg = _plot_svg(request, slug, plot)
    except Http404 as exc:
        # The app's own 404 page with the words of what is missing, whatever DEBUG says:
        # Django's debug 404 (every URL pattern listed) is no answer to a missing plot.
        return render(request, "404.html", {"exception": str(exc)}, status=404)
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Content-Security-Policy"] = SVG_POLICY
    filename = f"{dataset.slug}-{choice['refined'].name}-{name}.svg"
    disposition = content_disposition_header(request.GET.get("download") == "1", filename)
    if disposition:  # None only for an inline response without a file name
        response["Content-Disposition"] = disposition
    return response


def _plot_svg(request: HttpRequest, slug: str, plot: str) -> tuple[Dataset, dict, str, str]:
    """``(dataset, choice, file name stem, SVG text)`` of :func:`rebenchmark_plot`. Raises
    Http404 with the words of what is missing."""
    dataset = _dataset_or_404(slug)
    if plot not in PLOTS:
        raise Http404(f"Unknown plot {plot!r}.")
    choice = _rebench_choice(request, dataset)
    if choice["errors"] or not choice["original"] or not choice["refined"]:
        raise Http404("Choose an original and a refined qrel set.")
    try:
        report = _rebench_report(dataset, choice, request.GET.getlist("runs"))
    except RebenchError as exc:
        raise Http404(str(exc)) from None
    result = report.result
    name = plot
    if plot == "intervals":
        return dataset, choice, name, _intervals_svg(report, choice)  # marked when drawn
    mark = simulated_sentence(refined_simulated(refined=choice["refined"]))
    if plot == "ranks":
        svg = _ranks_svg(report, choice, mark)
    elif plot == "deltas":
        name, svg = _deltas_svg(report, choice, request.GET.get("measure"), mark)
    else:
        holes = {q: report.holes_per_query.get(q, 0) for q in result.queries}
        svg = plots.holes_histogram_svg(holes, mark=mark)
    return dataset, choice, name, svg


def _ranks_svg(report: RebenchReport, choice: dict, mark: str) -> str:
    """The rank plot: ties labelled alike, and how settled the refined order is."""
    result = report.result
    after = {row.system: row.scores[NDCG10] for row in result.after}
    scores = {row.system: (row.scores[NDCG10], after[row.system]) for row in result.before}
    found = _found(report, choice)
    caption = _order_caption(found, _deltas(found, choice))
    return plots.rank_slope_svg(result.rank_changes, scores=scores, caption=caption, mark=mark)


def _deltas_svg(
    report: RebenchReport, choice: dict, measure: str | None, mark: str
) -> tuple[str, str]:
    """``(file name stem, SVG)`` of the Δ plot, every measure's panel or ``measure``'s bars
    alone, each Δ interval as error bars. Http404 for an unknown measure."""
    result = report.result
    deltas = mean_deltas(result)
    if measure is not None and measure not in deltas:
        raise Http404(f"Unknown measure {measure!r} (known: {', '.join(deltas)}).")
    intervals = _deltas(_found(report, choice), choice)
    caption = intervals.plot_caption(
        list(deltas) if measure is None else [measure], result.rel_level
    )
    if measure is None:
        svg = plots.delta_panels_svg(
            deltas, intervals=intervals.intervals, caption=caption, mark=mark
        )
        return "deltas", svg
    svg = plots.delta_bars_svg(
        deltas[measure], measure=measure, intervals=intervals.intervals.get(measure),
        caption=caption, mark=mark,
    )  # fmt: skip
    return f"deltas-{slugify(measure)}", svg


@role_required(*READERS)
@require_GET
def rag(request: HttpRequest, slug: str) -> HttpResponse:
    """RAG alignment from the stored generations (``rag_eval`` makes them): accuracy, Success@k and
    RAGAlign@k with the original and refined qrels, correlation, formula. ``?generator=KEY`` chooses
    whose answers (:func:`assess.evaluation.rag_eval.generator_key`; default: the generator with the
    most answers at k); an unknown one is reported (400)."""
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
            "simulated_sets": qrel_sets_simulated(choice["qrel_sets"]),
            # The refined qrels' simulated labels, said above the table as on the re-benchmark.
            "simulated_line": (
                simulated_sentence(refined_simulated(refined=choice["refined"]))
                if report and choice["refined"]
                else ""
            ),
            **choice,
        },
        status=400 if choice["errors"] else 200,
    )
