"""Active time on the judging page, database side (the rules are in
:mod:`assess.review.timing`): the settings the page and the server read, the heartbeat that
adds to a lease's active seconds, and the times a judgment stores (wall, active,
click-through)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import F, FloatField, Value
from django.db.models.functions import Least
from django.utils import timezone

from debates.models import Debate

from ..models import GoldPair, ReviewItem
from . import timing


def seconds_setting(name: str, default: float) -> float:
    """The number setting ``name``: from Django's settings, else the environment, else
    ``default``."""
    value = getattr(settings, name, None)
    if value is None:
        return float(os.environ.get(name, default))
    return float(value)


def active_idle_seconds() -> float:
    """How long after the last input the judging page still counts time as active (seconds):
    ``DREAM_ACTIVE_IDLE_SECONDS``, default 60."""
    return seconds_setting("DREAM_ACTIVE_IDLE_SECONDS", 60)


def active_heartbeat_seconds() -> float:
    """How often the judging page reports the active time it measured (seconds):
    ``DREAM_ACTIVE_HEARTBEAT_SECONDS``, default 15."""
    return seconds_setting("DREAM_ACTIVE_HEARTBEAT_SECONDS", 15)


def click_through_floor_seconds() -> float:
    """A judgment faster than this (active seconds, else wall seconds) on a long chunk is
    flagged as a possible click-through: ``DREAM_CLICK_THROUGH_SECONDS``, default 2."""
    return seconds_setting("DREAM_CLICK_THROUGH_SECONDS", 2.0)


def click_through_min_words() -> int:
    """A chunk longer than this many words (whitespace-separated) cannot be read below the
    click-through floor: ``DREAM_CLICK_THROUGH_WORDS``, default 100."""
    return int(seconds_setting("DREAM_CLICK_THROUGH_WORDS", 100))


def review_item_active_add(*, item: ReviewItem, annotator: Any, seconds: float) -> bool:
    """Add ``seconds`` of active time that the judging page reported (a heartbeat, or the
    beacon sent when the page is hidden or left) to ``item``'s ``lease_active_seconds``;
    True when added.

    Added only while ``annotator`` holds the item's lease (expired too, as long as nobody
    claimed it since: :func:`judgment_record` still accepts their answer then), so another
    annotator's post, or a late beacon after the judgment, changes nothing. One conditional
    ``UPDATE ... SET lease_active_seconds = lease_active_seconds + x``: concurrent posts add
    up. Each post adds 0..120 s (:func:`assess.review.timing.heartbeat_seconds`; the page
    sends one every :func:`active_heartbeat_seconds`), and the total never exceeds the
    seconds since the pair was claimed by the server's clock: however many posts arrive
    (a script, two windows), the lease cannot hold more active time than it lasted."""
    add = timing.heartbeat_seconds(seconds)
    claimed = ReviewItem.objects.filter(pk=item.pk).values_list("claimed_at", flat=True).first()
    total: Any = F("lease_active_seconds") + add
    if claimed is not None:
        lasted = max(0.0, (timezone.now() - claimed).total_seconds())
        total = Least(total, Value(lasted, output_field=FloatField()))
    return bool(
        ReviewItem.objects.filter(pk=item.pk, leased_to=annotator).update(
            lease_active_seconds=total
        )
    )


def _chunk_words(item: ReviewItem) -> int:
    # The chunk the judging page showed: the debate's document, or a gold item's document.
    if item.debate_id is not None:
        text = (
            Debate.objects.filter(pk=item.debate_id)
            .values_list("pair__document__text", flat=True)
            .first()
        )
    elif item.gold_id is not None:
        text = (
            GoldPair.objects.filter(pk=item.gold_id)
            .values_list("document__text", flat=True)
            .first()
        )
    else:
        text = None
    return timing.word_count(text or "")


@dataclass(frozen=True, slots=True)
class JudgmentTimes:
    """What a judgment stores of its time: wall seconds, active seconds (None: not
    measured) and whether it was a possible click-through."""

    wall: float
    active: float | None
    click_through: bool


def judgment_times(
    *, item: ReviewItem, annotator: Any, wall: float, page: float | None, now: datetime
) -> JudgmentTimes:
    """The times of ``annotator``'s judgment of ``item`` (its row as locked by the caller):
    ``wall`` seconds as the page measured them (clamped by the caller), active seconds =
    the lease's reported heartbeats (theirs only while they hold it) plus ``page``, the
    rest the page sent with the answer (:func:`assess.review.timing.active_total`), and the
    click-through flag (:func:`assess.review.timing.is_click_through` under
    :func:`click_through_floor_seconds` and :func:`click_through_min_words`). Active
    seconds never exceed the time since the pair was claimed (``now`` minus its
    ``claimed_at``), whatever the page reported."""
    reported = item.lease_active_seconds if item.leased_to_id == annotator.pk else 0.0
    active = timing.active_total(stored_seconds=reported, page_seconds=page)
    if active is not None and item.claimed_at is not None:
        active = min(active, max(0.0, (now - item.claimed_at).total_seconds()))
    floor = click_through_floor_seconds()
    fast = timing.task_seconds(active_seconds=active, wall_seconds=wall) < floor
    # The chunk is read only for a fast answer: most answers need no word count.
    click_through = fast and timing.is_click_through(
        active, wall, _chunk_words(item), floor_seconds=floor, min_words=click_through_min_words()
    )
    return JudgmentTimes(wall, active, click_through)
