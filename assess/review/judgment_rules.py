"""When a judgment is refused, and how long an answer sent over the API took: the rules
:func:`assess.review.services.judgment_record` applies under the item's row lock. Raises
the judging errors every judging path shares (:class:`JudgingError`,
:class:`JudgingConflict`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..models import Adjudication, Judgment, ReviewItem
from .same_pair import judged_elsewhere_exists


class JudgingError(ValueError):
    """A judging action that is refused; the message says why, for the annotator."""


class JudgingConflict(JudgingError):
    """The pair is held by another annotator (or already has its judgments): not saved."""


def judgment_refusal_check(
    locked: ReviewItem, annotator: Any, now: datetime, *, leased_only: bool = False
) -> None:
    """Raise JudgingConflict when ``annotator`` may not judge ``locked`` (its row locked):
    it is another annotator's gold item, another annotator holds a live lease, an admin
    decided it, it has its judgments, or this annotator judged it (or its query and chunk in
    another job) already."""
    if locked.assigned_to_id is not None and locked.assigned_to_id != annotator.pk:
        raise JudgingConflict("This pair is not in your queue; your answer was not saved.")
    if leased_only and locked.leased_to_id != annotator.pk:
        raise JudgingConflict(
            "You do not hold this pair (skipped, given back or never leased to you): lease it "
            "first; your answer was not saved."
        )
    others_lease = (
        locked.leased_to_id is not None
        and locked.leased_to_id != annotator.pk
        and locked.lease_expires_at is not None
        and locked.lease_expires_at > now
    )
    if others_lease:
        raise JudgingConflict(
            "Your lease on this pair expired and another annotator is judging it now; "
            "your answer was not saved."
        )
    if Adjudication.objects.filter(item=locked).exists():
        raise JudgingConflict("An admin has already decided this pair; not saved.")
    if locked.judgments_done >= locked.judgments_needed:
        raise JudgingConflict("This pair already has the judgments it needs; not saved.")
    if Judgment.objects.filter(item=locked, annotator=annotator, undone_at__isnull=True).exists():
        raise JudgingConflict("You have already judged this pair; not saved.")
    if judged_elsewhere_exists(item=locked, annotator=annotator):
        raise JudgingConflict(
            "You have already judged this query and chunk in another job; not saved."
        )


def lease_seconds(locked: ReviewItem, sent: float, now: datetime) -> float:
    """Wall seconds of an answer no page timed (the API's): the time since ``locked``'s
    lease began (``claimed_at``), or ``sent`` when smaller and given (> 0): a client cannot
    claim more time than it held the pair. ``sent`` when the lease has no start."""
    if locked.claimed_at is None:
        return sent
    held = max(0.0, (now - locked.claimed_at).total_seconds())
    return held if not sent or sent <= 0 else min(float(sent), held)
