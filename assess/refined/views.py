"""Pages of the refined-benchmark side: refined qrel sets and their exports.

Who may open what (every view is wrapped in :func:`core.roles.role_required`):

| page                                                | annotator | researcher | admin |
|-----------------------------------------------------|-----------|------------|-------|
| refined sets, refined set                           | 403       | yes        | yes   |
| export request (POST), export status, download      | 403       | yes        | yes   |
| refine again (POST; its form on the refined sets)   | 403       | 403        | yes   |
| a refinement's progress (its operation)             | 403       | yes        | yes   |

The re-benchmark, plot and RAG pages share this URL namespace (``refined``) but live in
:mod:`assess.evaluation.views`. Database reads go through :mod:`assess.refined.selectors` and
the services; the views only choose, call and render.
"""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from core.fixes import error_worded
from core.htmx import htmx_view, wants_fragment
from core.http import post_only
from core.roles import Role, role_required, user_has_role
from corpora.models import Dataset, Operation
from corpora.services import dataset_get
from corpora.services.operations import operation_fix
from corpora.simulated import simulated_response_mark

from ..models import ExportFile, Refinement
from ..models.bundled import refined_bundled_warning
from ..models.simulated import simulated_sentence
from .cost import cost_rows
from .detail import refined_detail_get
from .exports import (
    CONTENT_TYPE,
    ExportError,
    export_get,
    export_path,
    export_refinement,
    export_request,
    export_simulated_counts,
)
from .forms import RefineForm
from .operations import refinement_operation_get, refinement_start
from .refine import (
    RefineError,
    open_disagreements_count,
    open_disagreements_sentence,
    refinement_budgets_get,
    refinement_get,
)
from .selectors import (
    dataset_has_pools,
    qrel_set_find,
    refinements_of,
    refinements_simulated,
)

READERS = (Role.RESEARCHER, Role.ADMIN)
UNRESOLVED_SHOWN = 200
EXPORT_KINDS = (
    ("benchmark", "Benchmark: corpus, queries, refined qrels and datasheet (BEIR zip)"),
    ("labels", "Labels with provenance (JSONL)"),
    ("trec", "TREC qrels"),
    ("beir", "BEIR qrels (TSV)"),
    ("disagreements", "Disagreements and escalations (CSV)"),
    ("transcripts", "Debate transcripts (JSONL)"),
)


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
    refinements = list(refinements_of(dataset=dataset))
    # Each set's budget (pool pairs = pairs + beyond it): one COUNT for the legacy ones.
    budgets = refinement_budgets_get(refinements=refinements)
    return render(
        request,
        "assess/refined/refined_list.html",
        {
            "dataset": dataset,
            "refinements": [(r, budgets[r.pk]) for r in refinements],
            "simulated": refinements_simulated(refinements=refinements),
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
@post_only
def refine_create(request: HttpRequest, slug: str) -> HttpResponse:
    """Refine again: start a new refined qrel set from a pool's current final labels in the
    background (:func:`assess.refined.operations.refinement_start`) and open its progress
    page (303), which ends in a link to the set. A form error or a refusal known at once
    (name taken, relevant grade above the qrels' top grade...) gives the refined sets page
    again with the message (400), having written nothing; one found while refining (too
    many unresolved pairs) is shown on the progress page."""
    dataset = _dataset_or_404(slug)
    form = RefineForm(request.POST, dataset=dataset)
    if form.is_valid():
        data = form.cleaned_data
        try:
            operation = refinement_start(
                pool=data["pool"],
                name=data["name"],
                allow_partial=data["allow_partial"],
                created_by=request.user,
                relevant_grade=data["relevant_grade"],
                exclude_flagged=data["exclude_flagged"],
            )
        except RefineError as exc:
            form.add_error(None, error_worded(exc, "browser", form))
        else:
            url = reverse("refined:refine_operation", args=[dataset.slug, operation.pk])
            return HttpResponseRedirect(url, status=303)
    return _refined_list_render(request, dataset, form, status=400)


@htmx_view(no_store=True)
@role_required(*READERS)
@require_GET
def refine_operation(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A refinement's progress page (its operation: status, stage, error); htmx polls its
    fragment until it ends, in a link to the refined set or the error with its fix."""
    dataset = _dataset_or_404(slug)
    try:
        operation = refinement_operation_get(dataset=dataset, pk=pk)
    except Operation.DoesNotExist:
        raise Http404(f"No refinement {pk} in {dataset.slug}.") from None
    fix = operation_fix(operation=operation)
    context = {
        "dataset": dataset,
        "operation": operation,
        "polling": not operation.ended,
        # The option that gets past the error, in the words of the refine form.
        "fix_words": fix.browser_words(RefineForm(dataset=dataset)) if fix else "",
    }
    if wants_fragment(request):
        return render(request, "assess/refined/partials/refine_status.html", context)
    return render(request, "assess/refined/refine_operation.html", context)


@role_required(*READERS)
@require_GET
def refined_detail(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    """One refined set: how it was made (the budget it was refined under), labels by
    source, unresolved pairs and those beyond the budget apart, exports."""
    dataset = _dataset_or_404(slug)
    refinement = _refinement_or_404(dataset, name)
    page = refined_detail_get(
        refinement=refinement, shown=UNRESOLVED_SHOWN, export_kinds=[k for k, _ in EXPORT_KINDS]
    )
    return render(
        request,
        "assess/refined/refined_detail.html",
        {
            "dataset": dataset,
            "refinement": refinement,
            "page": page,
            "counts": refinement.counts,
            # Sorted for display (jsonb does not keep key order); simulated labels apart.
            "by_source": sorted(page.by_source.items()),
            "simulated_line": simulated_sentence(page.simulated),
            "simulated": page.simulated,
            "bundled_warning": refined_bundled_warning(qrel_set=refinement.qrel_set),
            "by_reason": sorted((refinement.counts.get("by_reason") or {}).items()),
            "open_note": open_disagreements_sentence(
                open_disagreements_count(refinement.counts.get("by_reason"))
            ),
            "unresolved_percent": f"{refinement.unresolved_share:.1%}",
            "threshold_percent": f"{refinement.max_unresolved_share:.1%}",
            "budget": page.budget,
            "exports": [(kind, label, page.exports.get(kind)) for kind, label in EXPORT_KINDS],
            "costs": cost_rows(page.costs),
            "rebench_url": reverse("refined:rebenchmark", args=[dataset.slug])
            + "?"
            + urlencode(
                {"original": refinement.original.name, "refined": refinement.qrel_set.name}
            ),
        },
    )


@htmx_view(no_store=True)
@role_required(*READERS)
@post_only
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
    source = export.qrel_set or export.pool
    assert source is not None  # every export is of a qrel set or a pool (exports.export_stream)
    dataset = source.dataset
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
    simulated_response_mark(response, export_simulated_counts(export=export))
    return response
