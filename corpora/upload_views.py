"""The dataset pages' admin actions (uploads, built-in runs, pools) and the page of an
operation, polled while it runs. Who may: admins only, as the equivalent commands; a forged
POST from another role answers 403 (:func:`core.roles.role_required`). Each view validates
a form, calls one service and redirects to the page that shows the step's progress."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from core.fixes import error_worded
from core.htmx import htmx_view, wants_fragment
from core.http import post_only
from core.roles import Role, role_required

from .forms import BeirUploadForm, QrelsUploadForm, RunUploadForm
from .models import Dataset, Operation
from .services import RunError, dataset_get, run_create
from .services.datasets import dataset_name_problem
from .services.operations import OperationError, operation_create, operation_fixes
from .services.runs import run_start_background
from .views import action_forms, dataset_page, upload_limit_text

READERS = (Role.RESEARCHER, Role.ADMIN)
#: The form that starts each kind of operation (its labels word an error's fix).
UPLOAD_FORMS: dict[str, Callable[[], Any]] = {
    Operation.Kind.IMPORT_BEIR: BeirUploadForm,
    Operation.Kind.IMPORT_QRELS: QrelsUploadForm,
    Operation.Kind.IMPORT_RUN: RunUploadForm,
    Operation.Kind.BUILD_POOL: lambda: None,
}


def _no_form() -> None:
    return None  # a step of another app (a refinement): its page words its own fix


def _dataset_or_404(slug: str) -> Dataset:
    try:
        return dataset_get(slug=slug)
    except Dataset.DoesNotExist:
        raise Http404(f"No dataset {slug!r}.") from None


@role_required(Role.ADMIN)
def dataset_new(request: HttpRequest) -> HttpResponse:
    """GET: the benchmark upload form. POST: start the import; its page shows the progress."""
    form = BeirUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        # The page checks the name as it is typed; a form sent regardless is refused here
        # too, before its files are saved.
        problem = dataset_name_problem(
            name=form.cleaned_data["name"], slug=form.cleaned_data.get("slug") or ""
        )
        if problem:
            field, _, message = problem.partition(": ")
            form.add_error(field, message)
    if request.method == "POST" and form.is_valid():
        try:
            operation = operation_create(
                kind=Operation.Kind.IMPORT_BEIR,
                params=form.params(),
                files=form.files_given(),
                created_by=request.user,
            )
        except OperationError as exc:
            form.add_error(None, str(exc))
        else:
            return redirect("corpora:operation_detail", pk=operation.pk)
    return render(request, "corpora/dataset_new.html", {"form": form, "limit": upload_limit_text()})


@htmx_view(no_store=True)
@role_required(Role.ADMIN)
@require_GET
def dataset_name_check(request: HttpRequest) -> HttpResponse:
    """GET ``?name=&slug=`` (writes nothing): the upload form's note on whether a dataset
    can take that name, asked as the name is typed so a taken one is known before any file
    is sent (``templates/corpora/partials/dataset_name_check.html``)."""
    name = request.GET.get("name", "").strip()[:200]
    slug = request.GET.get("slug", "").strip()[:100]
    problem = dataset_name_problem(name=name, slug=slug) if name or slug else None
    return render(
        request,
        "corpora/partials/dataset_name_check.html",
        {"problem": problem, "name": name, "slug": slug or slugify(name)},
    )


@role_required(Role.ADMIN)
@post_only
def dataset_action(request: HttpRequest, slug: str, action: str) -> HttpResponse:
    """POST one of the dataset page's actions: ``qrels`` or ``run`` (upload), ``retrieve``
    (a built-in run), ``pool`` (build a pool). A valid one starts in the background and
    opens the page that follows it; an invalid one shows the dataset page with the errors."""
    dataset = _dataset_or_404(slug)
    forms = action_forms(dataset, request.POST, request.FILES, which=action)
    form = forms.get(f"{action}_form")
    if form is None:
        raise Http404(f"No dataset action {action!r}.")
    if form.is_valid():
        try:
            return _action_start(request, dataset, action, form)
        except (OperationError, RunError) as exc:
            # A run name taken: the pages cannot replace a run, so no option is offered.
            form.add_error(None, error_worded(exc, "plain"))
    return dataset_page(request, dataset, forms=forms, status=400)


def _action_start(request: HttpRequest, dataset: Dataset, action: str, form) -> HttpResponse:
    data = form.cleaned_data
    if action == "retrieve":
        run = run_create(
            dataset=dataset,
            retriever=data["retriever"],
            k=data["k"],
            queries=data["queries"],
            name=data["name"] or None,
            k1=data.get("k1"),
            b=data.get("b"),
        )
        if run.status != run.Status.DONE:
            run_start_background(run=run)
        messages.success(request, f"Run {run.name} started; its status shows below.")
        return redirect("corpora:dataset_detail", slug=dataset.slug)
    if action == "pool":
        kind, params, files = Operation.Kind.BUILD_POOL, form.params(), {}
    elif action == "qrels":
        kind, files = Operation.Kind.IMPORT_QRELS, {"qrels": data["qrels"]}
        params = {k: data[k] or "" for k in ("name", "fmt", "on_duplicate", "unknown_ids")}
    else:
        kind, files = Operation.Kind.IMPORT_RUN, {"run": data["run"]}
        params = {k: data[k] or "" for k in ("name", "system", "unknown_ids")}
    operation = operation_create(
        kind=kind, params=params, files=files, dataset=dataset, created_by=request.user
    )
    return redirect("corpora:operation_detail", pk=operation.pk)


@htmx_view(no_store=True)
@role_required(*READERS)
def operation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """An operation's page; for htmx requests only its status fragment, polled until it
    ends."""
    operation = Operation.objects.select_related("dataset", "created_by").filter(pk=pk).first()
    if operation is None:
        raise Http404(f"No operation {pk}.")
    form = UPLOAD_FORMS.get(operation.kind, _no_form)()
    context = {
        "operation": operation,
        "polling": not operation.ended,
        # The options that get past the error, in the words of the form that sent it.
        "fix_words": " and ".join(
            f.browser_words(form) for f in operation_fixes(operation=operation)
        ),
    }
    if wants_fragment(request):
        return render(request, "corpora/partials/operation_status.html", context)
    return render(request, "corpora/operation_detail.html", context)
