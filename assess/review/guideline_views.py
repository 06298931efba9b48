"""Annotation guidelines pages (namespace ``assess``).

| page                                            | annotator | researcher | admin |
|-------------------------------------------------|-----------|------------|-------|
| confirm guidelines on the judging page (POST)   | yes       | 403        | 403   |
| a dataset's (or ``?job=``) guidelines: read     | yes       | yes        | yes   |
| the same: save a new version (POST)             | 403       | 403        | yes   |

The judging page shows the guidelines in force for the pair instead of the pair until the
annotator confirms them (``templates/assess/partials/guidelines_confirm.html``); the confirm
button posts here with htmx (answered with the judging fragment, as the judging actions
are) or, without the script, as a plain form (redirected back to the judging page).
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from core.htmx import htmx_view
from core.http import post_only
from core.roles import Role, role_required, user_has_role
from corpora.models import Dataset
from corpora.services import dataset_get
from debates.models import DebateJob

from ..models import Guidelines
from .guidelines import (
    MAX_GUIDELINES_CHARS,
    GuidelinesError,
    guidelines_confirm,
    guidelines_create,
    guidelines_current,
    guidelines_history,
    guidelines_in_force,
    guidelines_render,
)
from .views import is_script, next_item, render_judge


class GuidelinesForm(forms.Form):
    """A new guidelines text (Markdown); the service refuses a blank one."""

    text = forms.CharField(
        label="Guidelines (Markdown)",
        max_length=MAX_GUIDELINES_CHARS,
        strip=False,  # Markdown: leading spaces make code blocks
        widget=forms.Textarea(attrs={"rows": 24, "cols": 100, "spellcheck": "true"}),
    )


@htmx_view(no_store=True)
@role_required(Role.ANNOTATOR)
@post_only
def judge_guidelines_confirm(request: HttpRequest, guidelines_id: int) -> HttpResponse:
    """Record that this annotator read guidelines ``guidelines_id`` (idempotent), then show
    the pair they hold (or the next one): the judging fragment for htmx, else a redirect to
    the judging page. 404 for an unknown id."""
    guidelines = get_object_or_404(Guidelines, pk=guidelines_id)
    guidelines_confirm(annotator=request.user, guidelines=guidelines)
    notice = f"Guidelines version {guidelines.version} confirmed: press g to read them again."
    if not is_script(request):
        messages.success(request, notice)
        return redirect("assess:judge")
    return render_judge(request, next_item(request), notice=notice)


def _scope_or_404(request: HttpRequest, slug: str) -> tuple[Dataset, DebateJob | None]:
    """The dataset ``slug`` and, with ``?job=<id>``, that job of one of its pools."""
    try:
        dataset = dataset_get(slug=slug)
    except Dataset.DoesNotExist:
        raise Http404(f"no dataset {slug!r}") from None
    job_id = request.GET.get("job", "")
    if not job_id:
        return dataset, None
    if not job_id.isdigit():
        raise Http404("a job id is a number")
    job = get_object_or_404(
        DebateJob.objects.select_related("pool__dataset"), pk=int(job_id), pool__dataset=dataset
    )
    return dataset, job


@role_required(Role.ANNOTATOR, Role.RESEARCHER, Role.ADMIN)
def dataset_guidelines(request: HttpRequest, slug: str) -> HttpResponse:
    """A dataset's guidelines (``?job=<id>``: that job's): the version in force rendered,
    its Markdown in a form and every version of this scope. Everyone with a role reads;
    admins POST a new version (others 403; 400 with the errors for an empty text)."""
    dataset, job = _scope_or_404(request, slug)
    is_admin = user_has_role(request.user, Role.ADMIN)
    if request.method == "POST" and not is_admin:
        raise PermissionDenied("Only admins change guidelines.")
    current = guidelines_current(dataset=None if job else dataset, job=job)
    in_force = current or guidelines_in_force(dataset=dataset, job=job)
    form = GuidelinesForm(request.POST or None, initial={"text": in_force.text if in_force else ""})
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                saved = guidelines_create(
                    text=form.cleaned_data["text"],
                    dataset=None if job else dataset,
                    job=job,
                    user=request.user,
                )
            except GuidelinesError as exc:
                form.add_error("text", str(exc))
            else:
                messages.success(request, f"Version {saved.version} is in force.")
                here = reverse("assess:dataset_guidelines", args=[dataset.slug])
                return redirect(f"{here}?job={job.pk}" if job else here)
        status = 400
    context = {
        "dataset": dataset,
        "job": job,
        "current": current,
        "in_force": in_force,
        "in_force_html": guidelines_render(in_force.text) if in_force else "",
        "history": guidelines_history(dataset=None if job else dataset, job=job),
        "form": form if is_admin else None,
    }
    return render(request, "assess/guidelines.html", context, status=status)
