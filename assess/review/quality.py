"""How far each annotator can be trusted: their record on known-answer (gold) pairs, the
admin-set accuracy floor that flags them, their time on task and possible click-throughs,
and the labels of a flagged annotator.

Reads are selectors; the two writes are named services: :func:`quality_policy_set` (an
admin sets the floor) and :func:`annotator_judgments_return` (a flagged annotator's labels go
back to the queue to be judged again).
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from ..models import Adjudication, Judgment, QualityPolicy, ReviewItem
from ..models.quality import DEFAULT_FLOOR, DEFAULT_MIN_ANSWERS
from . import agreement, gold


class QualityError(ValueError):
    """A quality action that is refused; the message says why."""


def quality_policy() -> QualityPolicy:
    """The floor in force: the stored policy (pk 1), or the defaults (80% after 10 gold
    answers) as an unsaved row when no admin has set one. Never writes."""
    return QualityPolicy.objects.filter(pk=1).first() or QualityPolicy(
        pk=1, accuracy_floor=DEFAULT_FLOOR, min_answers=DEFAULT_MIN_ANSWERS
    )


def quality_policy_set(*, accuracy_floor: float, min_answers: int, admin: Any) -> QualityPolicy:
    """Set the gold accuracy floor (0..1) and the gold answers (>= 1) an annotator needs
    before it applies. Raises QualityError outside those ranges."""
    if not 0.0 <= accuracy_floor <= 1.0:
        raise QualityError(f"accuracy floor must be between 0 and 1, got {accuracy_floor}")
    if min_answers < 1:
        raise QualityError(f"the floor needs at least 1 gold answer, got {min_answers}")
    policy, _ = QualityPolicy.objects.update_or_create(
        pk=1,
        defaults={
            "accuracy_floor": accuracy_floor,
            "min_answers": min_answers,
            "updated_by": admin,
        },
    )
    return policy


@dataclass(frozen=True, slots=True)
class AnnotatorQuality:
    """One annotator's gold record (:class:`assess.review.gold.GoldScore`), whether the
    floor flags them, their median active seconds per pair (None: never measured) and how
    many of their live judgments were possible click-throughs."""

    user_id: int
    username: str
    score: gold.GoldScore
    flagged: bool
    median_active_seconds: float | None
    click_throughs: int


def _usernames(ids: list[int]) -> dict[int, str]:
    user = get_user_model()
    return dict(user.objects.filter(pk__in=ids).values_list("pk", user.USERNAME_FIELD))


def annotator_quality(
    *, annotator_ids: list[int] | None = None, before: datetime | None = None
) -> dict[int, AnnotatorQuality]:
    """{user id: :class:`AnnotatorQuality`} of everyone with a live judgment (or of
    ``annotator_ids``), over live judgments saved before ``before`` (None: all).

    Gold answers are live judgments of gold items, scored by
    :func:`assess.review.gold.gold_score`; the flag is :func:`assess.review.gold.gold_flagged`
    under :func:`quality_policy`. Median active seconds and click-throughs count every live
    judgment, gold ones included (time on a pair does not depend on its being gold).
    """
    rows = Judgment.objects.filter(undone_at__isnull=True)
    if annotator_ids is not None:
        rows = rows.filter(annotator_id__in=annotator_ids)
    if before is not None:
        rows = rows.filter(created__lt=before)
    answers: dict[int, list[tuple[int, int]]] = defaultdict(list)
    active: dict[int, list[float]] = defaultdict(list)
    clicks: dict[int, int] = defaultdict(int)
    for annotator_id, known, given, seconds, click in rows.values_list(
        "annotator_id", "item__gold__label", "label", "active_seconds", "click_through"
    ).iterator(chunk_size=5000):
        if known is not None:
            answers[annotator_id].append((known, given))
        if seconds is not None:
            active[annotator_id].append(seconds)
        clicks[annotator_id] += bool(click)
        active.setdefault(annotator_id, [])
    policy = quality_policy()
    ids = sorted(set(active) | set(answers) | set(annotator_ids or ()))
    names = _usernames(ids)
    out = {}
    for user_id in ids:
        score = gold.gold_score(answers.get(user_id, []))
        out[user_id] = AnnotatorQuality(
            user_id=user_id,
            username=names.get(user_id, str(user_id)),
            score=score,
            flagged=gold.gold_flagged(
                score, floor=policy.accuracy_floor, min_answers=policy.min_answers
            ),
            median_active_seconds=agreement.median(active.get(user_id, [])),
            click_throughs=clicks.get(user_id, 0),
        )
    return out


@dataclass(frozen=True, slots=True)
class FlaggedLabel:
    """A live judgment of a (flagged) annotator on a debate's pair, for re-judging.
    ``item_id`` is the review item's public id (a UUID), as in the judging URLs."""

    item_id: uuid.UUID
    job_id: int
    query_id: str
    doc_id: str
    label: int
    created: datetime
    adjudicated: bool


def annotator_labels(*, annotator: Any) -> list[FlaggedLabel]:
    """``annotator``'s live judgments of debates' pairs (not gold), newest first: the labels
    to re-judge when the floor flags them."""
    rows = (
        Judgment.objects.filter(
            annotator=annotator, undone_at__isnull=True, item__debate__isnull=False
        )
        .order_by("-created", "-pk")
        .values_list(
            "item__public_id",
            "item__debate__job_id",
            "item__debate__pair__query__query_id",
            "item__debate__pair__document__doc_id",
            "label",
            "created",
        )
    )
    decided = set(
        Adjudication.objects.filter(item__judgments__annotator=annotator).values_list(
            "item__public_id", flat=True
        )
    )
    return [
        FlaggedLabel(item_id, job_id, query_id, doc_id, label, created, item_id in decided)
        for item_id, job_id, query_id, doc_id, label, created in rows
    ]


def annotator_judgments_return(*, annotator: Any, admin: Any, now: datetime | None = None) -> int:
    """Send ``annotator``'s live labels of debates' pairs back to the queue to be judged
    again by others: each judgment is marked undone and ``returned`` (kept, with its time;
    the claim never gives that pair to this annotator again) and its pair needs one more
    judgment; pairs an admin adjudicated keep their judgments (the adjudication decides).
    Refused (QualityError) unless the floor flags the annotator. Returns the judgments sent
    back. ``admin`` is who asked (checked by the view's role; named for the log)."""
    quality = annotator_quality(annotator_ids=[annotator.pk]).get(annotator.pk)
    if quality is None or not quality.flagged:
        raise QualityError("only the labels of an annotator flagged under the floor go back")
    now = now or timezone.now()
    returned = 0
    with transaction.atomic():
        decided = Adjudication.objects.values("item_id")
        rows = (
            Judgment.objects.select_for_update(of=("self",))
            .filter(annotator=annotator, undone_at__isnull=True, item__debate__isnull=False)
            .exclude(item_id__in=decided)
        )
        for judgment in rows:
            Judgment.objects.filter(pk=judgment.pk).update(undone_at=now, returned=True)
            ReviewItem.objects.filter(pk=judgment.item_id).update(
                judgments_done=F("judgments_done") - 1
            )
            returned += 1
    return returned


@dataclass(frozen=True, slots=True)
class AnnotatorTableRow:
    """One line of the annotators page: the annotator's work on debates' pairs (None when
    they answered only known-answer pairs so far) and their quality figures."""

    username: str
    work: Any  # assess.review.annotators.AnnotatorRow | None
    quality: AnnotatorQuality | None


def annotator_table(*, now: datetime | None = None) -> list[AnnotatorTableRow]:
    """The annotators page's rows, by username: :func:`assess.review.annotators.annotator_overview`
    joined with :func:`annotator_quality`."""
    from .annotators import annotator_overview

    work = {row.username: row for row in annotator_overview(now=now)}
    quality = {q.username: q for q in annotator_quality().values()}
    return [
        AnnotatorTableRow(name, work.get(name), quality.get(name))
        for name in sorted(set(work) | set(quality))
    ]
