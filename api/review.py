"""Judging over the API, for annotators who script their work as Label Studio's and
Argilla's users do: lease the next pair, judge it, give it back, confirm the guidelines in
force. The same services as the judging page (:mod:`assess.review.views`), so the same
rules hold: one lease per annotator, an answer idempotent on its ``client_id``, the
guidelines confirmed before any answer counts, audits shown blind (the agents' labels only
on escalated pairs) and known-answer pairs looking like any other pair.

Annotators only (a token of a user with the annotator role). An answer is taken only
from the annotator holding the pair's lease, and has no active time (nothing watched the
screen): it stores the seconds since the pair was leased, or fewer when the client measured
fewer, so the click-through check still sees a fast answer. Excluding a pair one holds
gives it back: an annotator holds one pair at a time.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any

from django.http import HttpRequest
from django.utils import timezone
from ninja import Field, Router, Status
from ninja.errors import HttpError

from assess.models import ReviewItem
from assess.review.guidelines import guidelines_confirm, guidelines_confirmed, guidelines_for_item
from assess.review.original_label import judgment_original_label
from assess.review.selectors import PairView, judging_status, pair_view
from assess.review.services import (
    JudgingConflict,
    JudgingError,
    judgment_record,
    judgment_undo,
    review_item_claim,
    review_item_release,
)
from core.roles import Role

from .common import StrictIn, TokenAuth, Whole
from .errors import error_responses

router = Router(tags=["review"])

JUDGE = TokenAuth((Role.ANNOTATOR,))
# The most item ids a client may ask ``next`` to pass over (the page keeps 1,000 skips).
MAX_EXCLUDE = 1000
# A UUID sent as JSON text (the strict input schemas would take only a UUID object).
JsonUuid = Annotated[uuid.UUID, Field(strict=False)]


class NextIn(StrictIn):
    #: Items (their public ids) this client skipped and does not want offered again.
    exclude: list[JsonUuid] = Field(default_factory=list, max_length=MAX_EXCLUDE)


class JudgmentIn(StrictIn):
    label: Whole = Field(..., ge=0, le=127)
    #: Made by the client, one per answer: a re-send with the same id stores nothing new.
    client_id: JsonUuid
    note: str = Field("", max_length=2000)
    #: Seconds the client measured on the pair; the server keeps the smaller of this and
    #: the time since the lease began. Omitted: the time since the lease began.
    seconds: float | None = Field(None, ge=0, le=86_400)


def _item_or_404(item_id: uuid.UUID) -> ReviewItem:
    item = ReviewItem.objects.filter(public_id=item_id).first()
    if item is None:
        raise HttpError(404, f"no review item {item_id}")
    return item


def _debate_out(view: PairView) -> dict[str, Any] | None:
    """The debate as the judging page shows it (escalated pairs only; None for an audit)."""
    if not view.show_debate:
        return None
    rounds = [
        {
            "number": r.number,
            "agreed": r.agreed,
            "turns": [
                {
                    "agent": t.agent,
                    "stance": t.stance,
                    "label": t.label,
                    "label_text": t.label_text,
                    "label_probability": t.label_probability,
                    "argument": t.argument,
                    "evidence": [{"text": e.text, "found": e.found} for e in t.evidence],
                    "model": t.model,
                    "parse_error": t.parse_error,
                }
                for t in r.turns
            ],
        }
        for r in view.rounds
    ]
    # Whether the chunk was cut for the agents' context belongs to the debate: a known-answer
    # pair has no debate, so shown on a blind pair it would tell the two apart.
    return {"why": view.why, "chunk_truncated": view.chunk_truncated, "rounds": rounds}


def _item_out(item: ReviewItem, annotator: Any) -> dict[str, Any]:
    """What the judging page shows of ``item``, as JSON (never its kind: an audit or a
    known-answer pair must not be told apart from the others)."""
    view = pair_view(item=item)
    guidelines = guidelines_for_item(item=item)
    base = f"/api/v1/review/items/{item.public_id}"
    return {
        # No query or document id: on a public benchmark an id looks the pair up in the
        # qrels, which would tell a known-answer pair and give away its answer.
        "id": str(item.public_id),
        "query": view.query,
        "answers": view.answers,
        "title": view.title,
        "chunk": "".join(s.text for s in view.chunk),
        "labels": [{"label": c.label, "name": c.name, "rubric": c.rubric} for c in view.choices],
        "debate": _debate_out(view),
        "lease_expires": item.lease_expires_at.isoformat() if item.lease_expires_at else None,
        "guidelines": None
        if guidelines is None
        else {
            "version": guidelines.version,
            "text": guidelines.text,
            "confirmed": guidelines_confirmed(annotator=annotator, guidelines=guidelines),
            "confirm": f"{base}/guidelines/confirm",
        },
        "judgment": f"{base}/judgment",
        "skip": f"{base}/skip",
    }


@router.post(
    "/review/next",
    response={200: dict[str, Any], **error_responses(400, 413, 422)},
    auth=JUDGE,
)
def review_next(request: HttpRequest, payload: NextIn | None = None) -> dict[str, Any]:
    """Lease the next pair to judge, as opening the judging page does: ``{"item": ITEM or
    null, "queue": n, "today": n}``. ITEM: ``id`` (a UUID, the item's public id),
    ``query``, ``answers``, ``title``, ``chunk`` (no query or document id, as on the page:
    on a public benchmark an id would look the pair up in the qrels), ``labels``
    (``[{"label", "name", "rubric"}]``, the labels this pair takes, highest first),
    ``debate`` (null for a pair to judge blind; else ``{"why", "chunk_truncated", "rounds":
    [{"number", "agreed", "turns": [...]}]}``), ``lease_expires`` (ISO time; the
    pair goes back to the queue then), ``guidelines`` (null, or ``{"version", "text",
    "confirmed", "confirm"}``: POST ``confirm`` before answering) and the URLs ``judgment``
    and ``skip``. A pair already leased to this annotator comes back first. ``exclude``:
    item ids not to offer (the pairs this client skipped)."""
    excluded = list(payload.exclude) if payload is not None else []
    pks = list(ReviewItem.objects.filter(public_id__in=excluded).values_list("pk", flat=True))
    item = review_item_claim(annotator=request.user, exclude_ids=pks)
    # The queue counted without the client's exclusions: counting them would tell a
    # known-answer pair from a debate's (the count leaves known-answer pairs in).
    status = judging_status(annotator=request.user)
    return {
        "item": None if item is None else _item_out(item, request.user),
        "queue": status.queue,
        "today": status.today,
    }


@router.post(
    "/review/items/{item_id}/judgment",
    response={
        200: dict[str, Any],
        201: dict[str, Any],
        **error_responses(400, 404, 409, 413, 422),
    },
    auth=JUDGE,
)
def review_judgment(
    request: HttpRequest, item_id: uuid.UUID, payload: JudgmentIn
) -> Status[dict[str, Any]]:
    """Answer a leased pair: ``label`` 1 (relevant) or 0 on a binary job, a grade 0..G on a
    graded one (the item's ``labels``). 201 with ``{"item", "label", "client_id",
    "created", "original_label"}`` (``original_label``: the qrels' grade, shown once answered
    on a job that checks them; else null); a re-send with the same ``client_id`` answers 200
    with the stored answer and stores nothing. 400 for a label off the pair's scale or a
    ``client_id`` used for another pair; 409 when the guidelines in force are not confirmed,
    this annotator does not hold the pair's lease (skipped, given back, never leased), the
    pair is decided, or this annotator answered it (or its query and chunk in another
    job)."""
    item = _item_or_404(item_id)
    guidelines = guidelines_for_item(item=item)
    if guidelines is not None and not guidelines_confirmed(
        annotator=request.user, guidelines=guidelines
    ):
        raise HttpError(
            409,
            f"not saved: read and confirm the guidelines (version {guidelines.version}) first: "
            f"POST /api/v1/review/items/{item.public_id}/guidelines/confirm",
        )
    try:
        recorded = judgment_record(
            item=item,
            annotator=request.user,
            label=payload.label,
            client_id=payload.client_id,
            note=payload.note,
            seconds=payload.seconds or 0.0,
            guidelines=guidelines,
            leased_only=True,
        )
    except JudgingConflict as exc:
        raise HttpError(409, str(exc)) from None
    except JudgingError as exc:
        raise HttpError(400, f"not saved: {exc}") from None
    judgment = recorded.judgment
    body = {
        "item": str(item.public_id),
        "label": judgment.label,
        "client_id": str(judgment.client_id),
        "created": judgment.created.isoformat(),
        "original_label": judgment_original_label(judgment=judgment),
    }
    return Status(201 if recorded.created else 200, body)


@router.post(
    "/review/judgments/{client_id}/undo",
    response={200: dict[str, Any], **error_responses(404, 409, 422)},
    auth=JUDGE,
)
def review_undo(request: HttpRequest, client_id: uuid.UUID) -> dict[str, Any]:
    """Undo this annotator's answer sent with ``client_id`` (within the undo window, as the
    page's ``u``) and lease its pair to them again: ``{"item": ITEM}`` as ``/review/next``
    gives it, to be answered again. Idempotent: a re-sent undo changes nothing, and answers
    ``{"item": null}`` once the pair was answered again or is no longer theirs.
    409 when there is nothing to undo (no such answer of yours, or too long ago), another
    annotator holds the pair or an admin decided it."""
    try:
        item = judgment_undo(annotator=request.user, client_id=client_id)
    except JudgingError as exc:  # JudgingConflict too: both say why nothing changed
        raise HttpError(409, str(exc)) from None
    # A late re-send, after the pair was answered again or handed on: nothing to answer.
    held = item.leased_to_id == request.user.pk and (
        item.lease_expires_at is not None and item.lease_expires_at > timezone.now()
    )
    return {"item": _item_out(item, request.user) if held else None}


@router.post(
    "/review/items/{item_id}/skip",
    response={200: dict[str, Any], **error_responses(404, 422)},
    auth=JUDGE,
)
def review_skip(request: HttpRequest, item_id: uuid.UUID) -> dict[str, Any]:
    """Give a leased pair back to the queue: ``{"released": true}``, or false when this
    annotator did not hold it. Send its id in ``exclude`` to ``/review/next`` so that it is
    not offered again."""
    released = review_item_release(item=_item_or_404(item_id), annotator=request.user)
    return {"released": released}


@router.post(
    "/review/items/{item_id}/guidelines/confirm",
    response={200: dict[str, Any], **error_responses(404, 422)},
    auth=JUDGE,
)
def review_guidelines_confirm(request: HttpRequest, item_id: uuid.UUID) -> dict[str, Any]:
    """Confirm the guidelines in force for a pair (as the judging page's confirm button;
    idempotent): ``{"version", "confirmed": true, "confirmed_at"}``; 404 when the pair has
    no guidelines."""
    guidelines = guidelines_for_item(item=_item_or_404(item_id))
    if guidelines is None:
        raise HttpError(404, "no guidelines are in force for this pair: nothing to confirm")
    confirmation = guidelines_confirm(annotator=request.user, guidelines=guidelines)
    confirmed_at: datetime = confirmation.confirmed_at
    return {
        "version": guidelines.version,
        "confirmed": True,
        "confirmed_at": confirmed_at.isoformat(),
    }
