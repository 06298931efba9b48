"""Judging, adjudication and annotator pages (namespace ``assess``).

| page                                        | annotator | researcher | admin |
|---------------------------------------------|-----------|------------|-------|
| judging page, submit, skip, undo, unskip    | yes       | 403        | 403   |
| judging page's heartbeat (active time)      | yes       | 403        | 403   |
| disagreements, adjudication                 | 403       | 403        | yes   |
| annotator overview                          | 403       | yes        | yes   |

The judging page is driven by ``static/judge.js``: every action is a POST that answers with
the next pair's fragment (``templates/assess/partials/judge_item.html``), so the page never
reloads. Requests from the script carry ``HX-Request`` so that an expired session answers
with an ``HX-Redirect`` to the login page (see :func:`core.roles.role_required`). Without
the script the same forms post normally and are redirected back to the judging page.
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils import timezone

from core.htmx import htmx_view, wants_fragment
from core.http import post_only
from core.roles import Role, role_required, user_has_role
from debates.models import DebateJob

from ..models import Adjudication, ReviewItem
from ..models.simulated import JOB_SIMULATED_SCOPE, SIMULATED_ANNOTATOR, simulated_sentence
from .active_time import active_heartbeat_seconds, active_idle_seconds, review_item_active_add
from .annotators import disagreements, human_answers
from .audit import audit_pilot_waiting, audit_strata
from .forms import ActiveTimeForm, AdjudicationForm, JudgmentForm, UndoForm
from .guidelines import guidelines_confirmed, guidelines_for_item, guidelines_render
from .original_label import judgment_original_label
from .quality_views import annotators_page_context
from .selectors import (
    job_agreement,
    job_audit,
    job_budget,
    job_queue_counts,
    judging_status,
    pair_view,
    undoable_judgment,
)
from .services import (
    JudgingConflict,
    JudgingError,
    adjudication_record,
    judgment_record,
    judgment_undo,
    review_item_claim,
    review_item_release,
    review_item_top_grade,
)
from .simulated_marks import consensus_simulated, job_simulated_labels

SKIPPED_KEY = "assess_skipped"
MAX_SKIPPED = 1000
READERS = (Role.RESEARCHER, Role.ADMIN)


def item_or_404(item_id: uuid.UUID, items: QuerySet[ReviewItem] | None = None) -> ReviewItem:
    """The review item whose public id is ``item_id`` (among ``items``, default every item);
    Http404 when there is none. URLs name items by this UUID, never by their integer pk."""
    return get_object_or_404(
        ReviewItem.objects.all() if items is None else items, public_id=item_id
    )


def _skipped(request: HttpRequest) -> list[int]:
    return [int(pk) for pk in request.session.get(SKIPPED_KEY, [])]


def is_script(request: HttpRequest) -> bool:
    """True when the judging page's script sent ``request`` (htmx: answer with the judging
    fragment, not the whole page)."""
    return wants_fragment(request)


def render_judge(
    request: HttpRequest,
    item: ReviewItem | None,
    *,
    status: int = 200,
    saved=None,
    error: str = "",
    notice: str = "",
) -> HttpResponse:
    """The judging page (or its fragment for the page's script) showing ``item`` (None:
    nothing left to judge), with the judgment just ``saved``, an ``error`` or a ``notice``;
    ``status`` 409 for a refused save."""
    skipped = _skipped(request)
    guidelines = guidelines_for_item(item=item) if item is not None else None
    confirmed = guidelines is None or guidelines_confirmed(
        annotator=request.user, guidelines=guidelines
    )
    context = {
        "item": item,
        "view": pair_view(item=item) if item is not None else None,
        # The guidelines in force for this pair, opened with "g"; shown first, to be
        # confirmed, when this annotator has not confirmed this version yet.
        "guidelines": guidelines,
        "guidelines_html": guidelines_render(guidelines.text) if guidelines else "",
        "guidelines_to_confirm": not confirmed,
        "status": judging_status(annotator=request.user, exclude_ids=skipped),
        "skipped_count": len(skipped),
        "saved": saved,
        # A check of the qrels shows the original grade only once the answer is saved.
        "saved_original": judgment_original_label(judgment=saved),
        "error": error,
        "notice": notice,
        # For posting without the script; the script makes its own id per submission.
        "client_id": uuid.uuid4(),
        # The judgment "u" undoes: the undo request names it, so a re-send is harmless.
        "undo": undoable_judgment(annotator=request.user),
        # How static/judge.js measures active time: the idle cut-off and heartbeat period (s).
        "active_idle": active_idle_seconds(),
        "active_heartbeat": active_heartbeat_seconds(),
    }
    template = "assess/partials/judge_item.html" if is_script(request) else "assess/judge.html"
    return render(request, template, context, status=status)


def _refused(request: HttpRequest, message: str, status: int) -> HttpResponse:
    if is_script(request):
        return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
    messages.error(request, message)
    return redirect("assess:judge")


def next_item(request: HttpRequest) -> ReviewItem | None:
    """The review item the requesting annotator judges next (claimed for them, the pairs
    they skipped in this session left out), or None when none is open."""
    # A GET (the page being opened) only leases: it inserts no review item, so a gold place
    # reached on opening the page goes to a debate's pair (assess.review.gold_queue).
    return review_item_claim(
        annotator=request.user,
        exclude_ids=_skipped(request),
        create=request.method == "POST",
    )


@htmx_view(no_store=True)
@role_required(Role.ANNOTATOR)
def judge(request: HttpRequest) -> HttpResponse:
    """The judging page: the pair this annotator holds, or the next one claimed for them.

    The one page whose GET writes (CONTRIBUTING names it): opening it asks for work, so it
    leases a pair, as Label Studio's "next task" request locks its task; a reload gets the
    held pair back, and an unused lease runs out by itself."""
    return render_judge(request, next_item(request))


@htmx_view(no_store=True)
@role_required(Role.ANNOTATOR)
@post_only
def judge_submit(request: HttpRequest, item_id: uuid.UUID) -> HttpResponse:
    """Save a judgment (idempotent on ``client_id``), then answer with the next pair.

    400 for an invalid submission, 409 (with the next pair and the reason) when the pair is
    held by someone else or already decided, or (with the confirm screen) when this
    annotator has not confirmed the guidelines in force for it.
    """
    item = item_or_404(item_id)
    form = JudgmentForm(request.POST)
    if not form.is_valid():
        errors = "; ".join(f"{k}: {' '.join(map(str, v))}" for k, v in form.errors.items())
        return _refused(request, f"Not saved: {errors}", 400)
    data = form.cleaned_data
    guidelines = guidelines_for_item(item=item)
    if guidelines is not None and not guidelines_confirmed(
        annotator=request.user, guidelines=guidelines
    ):
        # A page opened before a new version, or a hand-made POST: nothing is saved, and
        # the script swaps in the confirm screen (409 answers carry the fragment).
        refusal = (
            f"Not saved: read and confirm the guidelines (version {guidelines.version}) first."
        )
        if not is_script(request):
            return _refused(request, refusal, 409)
        return render_judge(request, next_item(request), status=409, error=refusal)
    try:
        recorded = judgment_record(
            item=item,
            annotator=request.user,
            label=data["label"],
            client_id=data["client_id"],
            note=data["note"],
            seconds=data["seconds"] or 0.0,
            active_seconds=data["active"],
            guidelines=guidelines,
        )
    except JudgingConflict as exc:
        if not is_script(request):
            return _refused(request, str(exc), 409)
        return render_judge(request, next_item(request), status=409, error=str(exc))
    except JudgingError as exc:
        return _refused(request, f"Not saved: {exc}", 400)
    if not is_script(request):
        saved_at = timezone.localtime(recorded.judgment.created)
        original = judgment_original_label(judgment=recorded.judgment)
        shown = "" if original is None else f" Original label: {original} (qrels)."
        messages.success(request, f"Saved {saved_at:%H:%M:%S}.{shown}")
        next_item(request)  # claimed here, in the POST: the page it redirects to only reads
        return redirect("assess:judge")
    return render_judge(request, next_item(request), saved=recorded.judgment)


@htmx_view(no_store=True)
@role_required(Role.ANNOTATOR)
@post_only
def judge_active(request: HttpRequest, item_id: uuid.UUID) -> HttpResponse:
    """Add the active seconds the judging page measured (a heartbeat every 15 s, or the
    beacon sent when it is hidden or left) to the pair's lease.

    204 when added, 409 when this annotator does not hold the pair's lease (nothing
    changes), 400 for a missing or non-numeric ``seconds``.
    """
    item = item_or_404(item_id)
    form = ActiveTimeForm(request.POST)
    if not form.is_valid():
        return HttpResponse(
            "Not counted: seconds must be a number.",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    added = review_item_active_add(
        item=item, annotator=request.user, seconds=form.cleaned_data["seconds"]
    )
    return HttpResponse(status=204 if added else 409)


@htmx_view(no_store=True)
@role_required(Role.ANNOTATOR)
@post_only
def judge_skip(request: HttpRequest, item_id: uuid.UUID) -> HttpResponse:
    """Give the pair back to the queue and do not offer it again in this login session."""
    item = item_or_404(item_id)
    review_item_release(item=item, annotator=request.user)
    skipped = [pk for pk in _skipped(request) if pk != item.pk] + [item.pk]
    request.session[SKIPPED_KEY] = skipped[-MAX_SKIPPED:]
    if not is_script(request):
        next_item(request)  # claimed in the POST (see judge_submit)
        return redirect("assess:judge")
    return render_judge(request, next_item(request), notice="Skipped.")


@htmx_view(no_store=True)
@role_required(Role.ANNOTATOR)
@post_only
def judge_undo(request: HttpRequest) -> HttpResponse:
    """Undo the judgment the page named (``undo``: its client id) and show its pair again.

    Idempotent: a re-sent undo finds the judgment already undone and answers as the first
    did (the pair, or the next one if the annotator no longer holds it), never undoing the
    judgment before it. 409 when there is nothing to undo (no id: the page knew of none) or
    it is too late, 400 for an id that is not a UUID.
    """
    form = UndoForm(request.POST)
    if not form.is_valid():
        return _refused(request, f"Not undone: {' '.join(map(str, form.errors['undo']))}", 400)
    client_id = form.cleaned_data["undo"]
    try:
        if client_id is None:
            raise JudgingError("Nothing to undo: no judgment of yours in the last 15 minutes.")
        item = judgment_undo(annotator=request.user, client_id=client_id)
    except JudgingError as exc:
        return _refused(request, str(exc), 409)
    if not is_script(request):
        messages.success(request, "Undone: judge the pair again.")
        return redirect("assess:judge")
    held = (
        item.leased_to_id == request.user.pk
        and item.lease_expires_at is not None
        and item.lease_expires_at > timezone.now()
    )
    if not held:
        # A late re-send after the pair was judged again or handed on: nothing to show.
        return render_judge(request, next_item(request), notice="Already undone.")
    return render_judge(request, item, notice="Undone: judge this pair again.")


@htmx_view(no_store=True)
@role_required(Role.ANNOTATOR)
@post_only
def judge_unskip(request: HttpRequest) -> HttpResponse:
    """Offer the pairs skipped in this login session again."""
    request.session[SKIPPED_KEY] = []
    if not is_script(request):
        next_item(request)  # claimed in the POST (see judge_submit)
        return redirect("assess:judge")
    return render_judge(request, next_item(request))


@role_required(Role.ADMIN)
def disagreement_list(request: HttpRequest) -> HttpResponse:
    """Pairs whose human answers disagree (with each other or, for audits, with the agents'
    consensus), open ones first; ``?job=<id>`` for one job."""
    job = None
    job_id = request.GET.get("job", "")
    if job_id.isdigit():
        job = get_object_or_404(DebateJob, pk=int(job_id))
    rows = disagreements(job=job)
    rows.sort(key=lambda row: row.decided is not None)
    simulated = {
        "debate": sum(1 for row in rows if row.simulated_consensus),
        "human": sum(row.simulated_labels for row in rows),
    }
    return render(
        request,
        "assess/disagreements.html",
        {"rows": rows, "job": job, "simulated_line": simulated_sentence(simulated)},
    )


@role_required(Role.ADMIN)
def adjudicate(request: HttpRequest, item_id: uuid.UUID) -> HttpResponse:
    """The debate and every human answer side by side; POST records the admin's label,
    which wins over every other."""
    # Debates' items only: a known-answer pair has its answer and is never adjudicated.
    item = item_or_404(
        item_id,
        ReviewItem.objects.select_related("debate__pair__query", "debate__pair__document").filter(
            debate__isnull=False
        ),
    )
    current = Adjudication.objects.filter(item=item).first()
    initial = {"label": current.label, "note": current.note} if current else None
    form = AdjudicationForm(
        request.POST or None, initial=initial, top_grade=review_item_top_grade(item=item)
    )
    if request.method == "POST" and form.is_valid():
        adjudication_record(
            item=item,
            admin=request.user,
            label=form.cleaned_data["label"],
            note=form.cleaned_data["note"],
        )
        assert item.debate is not None  # the queryset above holds debates' items only
        # Named by the benchmark's ids: the item's own number would order gold pairs apart.
        pair = item.debate.pair
        messages.success(request, f"Pair {pair.query.query_id} / {pair.document.doc_id} decided.")
        return redirect("assess:disagreement_list")
    return render(
        request,
        "assess/adjudicate.html",
        {
            "item": item,
            "view": pair_view(item=item, show_debate=True),
            "answers": human_answers(item=item),
            # Marked as the disagreements page marks them (a stage-0 label is no debaters').
            "consensus_simulated": consensus_simulated(item=item),
            "simulated_annotator": SIMULATED_ANNOTATOR,
            "adjudication": current,
            "form": form,
        },
    )


@role_required(*READERS)
def annotator_list(request: HttpRequest) -> HttpResponse:
    """Judgments per annotator, median active seconds per pair, agreement, and accuracy on
    known-answer pairs with the floor that flags (admins set it here)."""
    return render(request, "assess/annotators.html", annotators_page_context(request))


def job_review_panel(request: HttpRequest, job: DebateJob) -> str:
    """The job page's human-review panel (registered with :func:`debates.views.job_panel_register`):
    review queue, agreement among humans, the audit's error estimate and its strata (allocation,
    probability, judged and wrong pairs), opened by the "SIMULATED labels" line when the job's
    debaters or annotators are simulated. Read-only: the review items are created when a debate
    ends (:mod:`assess.review.receivers`), not here."""
    simulated = job_simulated_labels(job=job)
    return render_to_string(
        "assess/partials/job_review_panel.html",
        {
            "job": job,
            "queue": job_queue_counts(job=job),
            "agreement": job_agreement(job=job),
            "audit": job_audit(job=job),
            "audit_strata": audit_strata(job=job),
            "audit_waiting": audit_pilot_waiting(job=job),
            "budget": job_budget(job=job),
            "open_disagreements": len(disagreements(job=job, open_only=True)),
            "simulated": simulated,
            # The budget panel beside it counts the refined set's: say this one is the job's.
            "simulated_line": simulated_sentence(simulated, scope=JOB_SIMULATED_SCOPE),
            "is_admin": user_has_role(request.user, Role.ADMIN),
        },
        request=request,
    )
