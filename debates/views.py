"""Debate job pages: list, launch form, job page with live progress, job controls.

| page                                  | annotator | researcher | admin |
|---------------------------------------|-----------|------------|-------|
| jobs, job page (and its progress)     | 403       | yes        | yes   |
| launch form, pause/resume/cancel/retry| 403       | 403        | yes   |

The job page polls its live fragment (``templates/debates/partials/job_progress.html``:
progress, start and end times, and the panels other apps add) with htmx every 2 seconds while
the job runs; the fragment of a job that is not running has no trigger, so polling stops by
itself. A poll that finds the job ended asks once more, 2 seconds on (``since=ended``): the
last debate's review item is made just after the job is marked finished, and that last
refresh shows it. Other apps add panels to the job page through :func:`job_panel_register`
(debates cannot import them: dependencies point one way); every panel is in the fragment,
so its figures refresh with the progress.

Without a broker (``CELERY_BROKER_URL`` unset, tasks eager) a job started from the web runs
in a background thread of the web process, so the request that launched it returns at once;
with a broker its debates are sent to the Celery workers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from django.contrib import messages
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.debug import sensitive_post_parameters

from core.htmx import htmx_view, wants_fragment
from core.http import post_only
from core.roles import Role, role_required, user_has_role
from corpora.models import Pool

# GENERIC_EMBEDDED_WARNING is re-exported: the job page's banner text, as tests read it.
from .bundled import GENERIC_EMBEDDED_WARNING as GENERIC_EMBEDDED_WARNING
from .bundled import embedded_warning
from .forms import HumanBudgetForm, JobLaunchForm
from .llm.config import AgentConfig
from .models import DebateJob
from .services.backends import stored_agents_permit
from .services.batch_api import batch_job_overview
from .services.common import DebateJobError
from .services.cost import debate_job_cost
from .services.failures import job_counts, job_failures
from .services.human import debate_job_budget_set
from .services.jobs import debate_job_cancel, debate_job_get, debate_job_pause
from .services.launch import (
    debate_job_launch,
    debate_job_resume_launch,
    debate_job_retry_launch,
    debate_job_warnings,
)
from .services.progress import debate_job_progress
from .services.worker_wait import debate_job_worker_warning

log = logging.getLogger(__name__)

READERS = (Role.RESEARCHER, Role.ADMIN)
FAILED_SHOWN = 50

#: Panels other apps add to the job page: ``panel(request, job) -> str`` (HTML rendered by
#: the template engine, autoescaped).
JOB_PANELS: list[Callable[[HttpRequest, DebateJob], str]] = []


def job_panel_register(panel: Callable[[HttpRequest, DebateJob], str]) -> None:
    """Add a panel to every job page (idempotent). ``panel(request, job)`` returns HTML
    rendered with a template (autoescaped), shown below the progress."""
    if panel not in JOB_PANELS:
        JOB_PANELS.append(panel)


def _job_or_404(pk: int) -> DebateJob:
    try:
        return debate_job_get(pk=pk)
    except DebateJob.DoesNotExist:
        raise Http404(f"No debate job {pk}.") from None


JOBS_LISTED = 200  # the newest jobs the job list and a pool's page show


def _job_rows(jobs: QuerySet[DebateJob]) -> dict[str, Any]:
    """The job table's context (``debates/partials/job_table.html``): the newest
    :data:`JOBS_LISTED` of ``jobs``, each with its progress, and the ids of those whose
    debaters are simulated (marked in every list, as on the job's page)."""
    listed = list(jobs.select_related("pool__dataset", "created_by")[:JOBS_LISTED])
    return {
        "rows": [(job, debate_job_progress(job=job)) for job in listed],
        "simulated": {
            job.pk
            for job in listed
            if any(
                AgentConfig.stored_or_named(raw).is_simulated for raw in (job.agent_a, job.agent_b)
            )
        },
    }


@role_required(*READERS)
def job_list(request: HttpRequest) -> HttpResponse:
    """Every debate job, newest first, with its counts; a job of simulated debaters marked."""
    context = _job_rows(DebateJob.objects.all())
    context["can_launch"] = user_has_role(request.user, Role.ADMIN)
    return render(request, "debates/job_list.html", context)


def pool_jobs_panel(request: HttpRequest, pool: Pool) -> str:
    """The pool page's panel of the debate jobs on ``pool``, newest first, with their counts
    (registered with :func:`corpora.views.pool_panel_register`: corpora cannot import
    debates). Only researchers and admins open a pool's page, as the job list."""
    context = _job_rows(DebateJob.objects.filter(pool=pool))
    return render_to_string("debates/partials/pool_jobs.html", context, request=request)


@role_required(Role.ADMIN)
@sensitive_post_parameters("a_api_key", "b_api_key")
def job_launch(request: HttpRequest) -> HttpResponse:
    """The launch form; a valid POST creates the job, starts it and opens its page."""
    # ?pool=ID (the dataset page's "Launch a debate job") preselects the pool.
    form = JobLaunchForm(request.POST or None, initial={"pool": request.GET.get("pool")})
    if request.method == "POST" and form.is_valid():
        try:
            job = debate_job_launch(
                spec=form.job_spec(),
                created_by=request.user,
                api_keys=form.cleaned_data["api_keys"],
                background=True,
                untrusted=True,
            )
        except DebateJobError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Job {job.pk} launched.")
            return redirect("debates:job_detail", pk=job.pk)
    return render(request, "debates/job_launch.html", {"form": form}, status=200)


def _progress_context(request: HttpRequest, job: DebateJob) -> dict:
    progress = debate_job_progress(job=job)
    tokens = progress.prompt_tokens + progress.completion_tokens
    return {
        "job": job,
        "progress": progress,
        "percent": (100 * progress.done // progress.total) if progress.total else 0,
        "polling": progress.status == DebateJob.Status.RUNNING,
        "tokens": tokens,
        "per_pair": {
            "calls": progress.per_pair(progress.calls),
            "tokens": progress.per_pair(tokens),
            "seconds": progress.per_pair(progress.seconds),
        },
        "cost": debate_job_cost(job=job, progress=progress),
        "failed": job_failures(job=job, stop=FAILED_SHOWN).items if progress.failed else [],
        "counts": job_counts(job=job, progress=progress),
        "can_control": user_has_role(request.user, Role.ADMIN),
        "worker_warning": debate_job_worker_warning(job=job, progress=progress),
    }


@htmx_view(no_store=True)
@role_required(*READERS)
def job_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The job page; for htmx requests only its live fragment (polled while running; a poll
    from a running page, ``since=running``, that finds the job ended gets one last refresh)."""
    job = _job_or_404(pk)
    context = _progress_context(request, job)
    context["panels"] = [panel(request, job) for panel in JOB_PANELS]
    if wants_fragment(request):
        context["final_refresh"] = not context["polling"] and request.GET.get("since") == "running"
        return render(request, "debates/partials/job_progress.html", context)
    context.update(
        agent_a=job.agents[0].describe(),
        agent_b=job.agents[1].describe(),
        audit_percent=job.audit_share * 100,
        gold_percent=job.gold_share * 100,
        embedded_warning=embedded_warning() if job.uses_bundled_model else "",
        budget_form=HumanBudgetForm(initial={"human_budget": job.human_budget}),
        callback_shown=_callback_shown(job.callback_url),
        webhook_deliveries=list(job.webhook_deliveries.order_by("-created", "-pk")[:50]),
        batch=batch_job_overview(job=job) if job.batch else None,
        warnings=debate_job_warnings(job=job),
    )
    return render(request, "debates/job_detail.html", context)


def _callback_shown(url: str) -> str:
    # A receiver's URL often carries its own token in the query: the page shows the rest.
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}" if url else ""


ACTIONS = {
    "pause": lambda job: debate_job_pause(job=job),
    # Resumed or retried debates run where a launch runs them: on the workers, or in a
    # background thread of this process without a broker.
    "resume": lambda job: debate_job_resume_launch(job=job, background=True),
    "cancel": lambda job: debate_job_cancel(job=job),
    "retry-failed": lambda job: debate_job_retry_launch(job=job, background=True),
}
ACTION_DONE = {
    "pause": "paused",
    "resume": "resumed",
    "cancel": "cancelled",
    "retry-failed": "given its failed debates back",
}


@role_required(Role.ADMIN)
@post_only
def job_control(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """POST: pause, resume, cancel or retry the failed debates of a job; back to its page."""
    if action not in ACTIONS:
        raise Http404(f"No job action {action!r}.")
    job = _job_or_404(pk)
    try:
        if action in ("resume", "retry-failed"):
            # An admin runs only what the operator allows now.
            stored_agents_permit(agents=(job.agent_a, job.agent_b), shown_in_full=False)
        ACTIONS[action](job)
    except DebateJobError as exc:
        messages.error(request, str(exc))
    else:
        job.refresh_from_db()
        messages.success(request, f"Job {job.pk} {ACTION_DONE[action]}.")
    return redirect(reverse("debates:job_detail", kwargs={"pk": job.pk}))


@role_required(Role.ADMIN)
@post_only
def job_budget(request: HttpRequest, pk: int) -> HttpResponse:
    """POST: set the job's human budget (empty: no limit); back to its page."""
    job = _job_or_404(pk)
    form = HumanBudgetForm(request.POST)
    if not form.is_valid():
        errors = " ".join(map(str, form.errors.get("human_budget", ())))
        messages.error(request, "Human budget: " + errors)
    else:
        try:
            debate_job_budget_set(job=job, budget=form.cleaned_data["human_budget"])
        except DebateJobError as exc:
            messages.error(request, str(exc))
        else:
            budget = job.human_budget
            messages.success(
                request,
                f"Job {job.pk}: human budget "
                + (
                    f"{budget:,} pair{'' if budget == 1 else 's'}."
                    if budget is not None
                    else "removed (no limit)."
                ),
            )
    return redirect(reverse("debates:job_detail", kwargs={"pk": job.pk}))
