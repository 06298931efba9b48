"""Pages of annotator quality: the floor form and the flagged annotator's labels (admins),
and an annotator's own figures.

| page                                   | annotator | researcher | admin |
|----------------------------------------|-----------|------------|-------|
| own figures (``review/me/``)           | yes       | 403        | 403   |
| quality floor (POST)                   | 403       | 403        | yes   |
| an annotator's figures and labels      | 403       | yes        | yes   |
| send a flagged annotator's labels back | 403       | 403        | yes   |

An annotator's own page counts judgments saved before today: were it updated after every
judgment, comparing it before and after a pair would tell which pairs have a known answer.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone

from core.http import post_only
from core.roles import Role, role_required, user_has_role

from ..models.simulated import SIMULATED_ANNOTATOR
from .forms import QualityPolicyForm
from .quality import (
    QualityError,
    annotator_judgments_return,
    annotator_labels,
    annotator_quality,
    annotator_table,
    quality_policy,
    quality_policy_set,
)
from .selectors import today_start


def annotators_page_context(request: HttpRequest) -> dict:
    """What the annotators page shows: the table, the floor in force and, for admins, the
    form that sets it."""
    policy = quality_policy()
    is_admin = user_has_role(request.user, Role.ADMIN)
    form = QualityPolicyForm(
        initial={
            "floor_percent": round(policy.accuracy_floor * 100, 2),
            "min_answers": policy.min_answers,
        }
    )
    return {
        "rows": annotator_table(),
        "policy": policy,
        "is_admin": is_admin,
        "form": form,
        "simulated_annotator": SIMULATED_ANNOTATOR,
    }


@role_required(Role.ADMIN)
@post_only
def quality_floor_set(request: HttpRequest) -> HttpResponse:
    """Set the gold accuracy floor and the answers it needs, then back to the annotators
    page."""
    form = QualityPolicyForm(request.POST)
    if not form.is_valid():
        errors = "; ".join(" ".join(map(str, v)) for v in form.errors.values())
        messages.error(request, f"Floor not set: {errors}")
        return redirect("assess:annotator_list")
    try:
        policy = quality_policy_set(
            accuracy_floor=float(form.cleaned_data["floor_percent"]) / 100.0,
            min_answers=form.cleaned_data["min_answers"],
            admin=request.user,
        )
    except QualityError as exc:
        messages.error(request, str(exc))
        return redirect("assess:annotator_list")
    messages.success(request, f"Annotators under {policy} are flagged.")
    return redirect("assess:annotator_list")


def _annotator_or_404(username: str):
    user = get_user_model()
    return get_object_or_404(user, **{user.USERNAME_FIELD: username})


@role_required(Role.ADMIN)
@post_only
def annotator_labels_return(request: HttpRequest, username: str) -> HttpResponse:
    """Send a flagged annotator's labels back to the queue, then back to their page."""
    annotator = _annotator_or_404(username)
    try:
        count = annotator_judgments_return(annotator=annotator, admin=request.user)
    except QualityError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{count} label(s) of {username} went back to the queue.")
    return redirect("assess:annotator_detail", username=username)


@role_required(Role.RESEARCHER, Role.ADMIN)
def annotator_detail(request: HttpRequest, username: str) -> HttpResponse:
    """One annotator's quality figures and their live labels of debates' pairs; for admins,
    the button that sends them back to the queue when the floor flags the annotator."""
    annotator = _annotator_or_404(username)
    quality = annotator_quality(annotator_ids=[annotator.pk]).get(annotator.pk)
    return render(
        request,
        "assess/annotator_detail.html",
        {
            "annotator": annotator,
            "quality": quality,
            "policy": quality_policy(),
            "labels": annotator_labels(annotator=annotator),
            "is_admin": user_has_role(request.user, Role.ADMIN),
            "simulated": annotator.get_username() == SIMULATED_ANNOTATOR,
        },
    )


@role_required(Role.ANNOTATOR)
def annotator_me(request: HttpRequest) -> HttpResponse:
    """The annotator's own figures, as of the start of today (see the module docstring)."""
    since = today_start(timezone.now())
    user_id = int(request.user.pk or 0)
    quality = annotator_quality(annotator_ids=[user_id], before=since).get(user_id)
    if quality is not None and not quality.score.answers and quality.median_active_seconds is None:
        quality = None  # nothing counted yet
    return render(
        request,
        "assess/annotator_me.html",
        {"quality": quality, "policy": quality_policy(), "as_of": since},
    )
