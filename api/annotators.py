"""Annotator quality over the API: each annotator's work and accuracy on known-answer pairs
(with 95% Wilson intervals), the floor that flags, and a flagged annotator's labels.

Readers (researchers, admins) read; admins set the floor. Annotators judge over the API
(:mod:`api.review`) but do not read these figures (their own are on ``/review/me/``)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.contrib.auth import get_user_model
from django.http import HttpRequest
from ninja import Field, Router
from ninja.errors import HttpError

from assess.review.agreement import Proportion
from assess.review.quality import (
    AnnotatorTableRow,
    QualityError,
    annotator_labels,
    annotator_table,
    quality_policy,
    quality_policy_set,
)

from .common import WRITE, StrictIn, Whole
from .errors import error_responses

router = Router(tags=["annotators"])


def _proportion(value: Proportion | None) -> dict[str, Any] | None:
    return None if value is None else value.as_json()


def _row_out(row: AnnotatorTableRow) -> dict[str, Any]:
    work, quality = row.work, row.quality
    return {
        "username": row.username,
        "judgments": work.judgments if work else 0,
        "today": work.today if work else 0,
        "undone": work.undone if work else 0,
        "median_seconds_on_page": work.median_seconds if work else None,
        "agreement_with_others": work.agreement if work else None,
        "compared": work.compared if work else 0,
        "median_active_seconds": quality.median_active_seconds if quality else None,
        "click_throughs": quality.click_throughs if quality else 0,
        "gold": {
            "accuracy": _proportion(quality.score.accuracy) if quality else None,
            "recall_positives": _proportion(quality.score.positives) if quality else None,
            "recall_negatives": _proportion(quality.score.negatives) if quality else None,
        },
        "flagged": bool(quality and quality.flagged),
    }


def _policy_out() -> dict[str, Any]:
    policy = quality_policy()
    return {"accuracy_floor": policy.accuracy_floor, "min_answers": policy.min_answers}


@router.get("/annotators", response={200: dict[str, Any], **error_responses()})
def annotator_list(request: HttpRequest) -> dict[str, Any]:
    """Every annotator's figures, as on the annotators page: judgments of debates' pairs,
    median active seconds, possible click-throughs, accuracy and recall on known-answer
    pairs (``{successes, n, estimate, low, high, confidence}``, 95% Wilson), the flag, and
    the floor in force."""
    return {"floor": _policy_out(), "annotators": [_row_out(r) for r in annotator_table()]}


@router.get("/annotators/{username}/labels", response={200: dict[str, Any], **error_responses(404)})
def annotator_label_list(request: HttpRequest, username: str) -> dict[str, Any]:
    """One annotator's figures and live labels of debates' pairs, newest first (the labels
    to re-judge when they are flagged), as on the annotator's page; each label's ``item_id``
    is its review item's public id (a UUID, as in the judging URLs)."""
    user_model = get_user_model()
    user = user_model.objects.filter(**{user_model.USERNAME_FIELD: username}).first()
    if user is None:
        raise HttpError(404, f"no user {username!r}")
    rows = [r for r in annotator_table() if r.username == username]
    return {
        "annotator": _row_out(rows[0]) if rows else None,
        "labels": [
            {**asdict(label), "item_id": str(label.item_id), "created": label.created.isoformat()}
            for label in annotator_labels(annotator=user)
        ],
    }


# The most gold answers the floor may wait for, as the annotators page's form allows.
MAX_MIN_ANSWERS = 100_000


class FloorIn(StrictIn):
    accuracy_floor: float = Field(..., ge=0.0, le=1.0)
    min_answers: Whole = Field(..., ge=1, le=MAX_MIN_ANSWERS)


@router.post(
    "/annotators/floor",
    response={200: dict[str, Any], **error_responses(400, 413, 422)},
    auth=WRITE,
)
def floor_set(request: HttpRequest, payload: FloorIn) -> dict[str, Any]:
    """Set the gold accuracy floor (0..1) and the gold answers it needs (1..100,000; admin);
    422 out of range."""
    try:
        quality_policy_set(
            accuracy_floor=payload.accuracy_floor,
            min_answers=payload.min_answers,
            admin=request.user,
        )
    except QualityError as exc:
        raise HttpError(400, str(exc)) from None
    return _policy_out()
