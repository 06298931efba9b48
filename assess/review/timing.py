"""Time on task as the judging page measures it: the active seconds behind a judgment and the
click-through flag. Pure: no database, no settings (the callers in
:mod:`assess.review.services` read those).

Active time is time with the page visible and input within the idle cut-off (60 s by default,
``DREAM_ACTIVE_IDLE_SECONDS``); ``static/judge.js`` measures it and reports it in pieces:
heartbeats and the beacon sent when the page is hidden or left (added to the item's
``lease_active_seconds`` while the annotator holds its lease), and the rest with the
judgment itself (its ``active`` field).
"""

from __future__ import annotations

import math

#: The most one heartbeat or beacon may add (seconds): the page sends one every 15 s and
#: whenever it is hidden, so more is a bug or a forged post.
MAX_HEARTBEAT_SECONDS = 120.0
#: The most active time one judgment may carry (seconds): a day, as for the wall time.
MAX_ACTIVE_SECONDS = 24 * 3600.0


def _finite_or_zero(value: float | None) -> float:
    if value is None:
        return 0.0
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) else 0.0


def heartbeat_seconds(seconds: float | None) -> float:
    """The active seconds one heartbeat may add: ``seconds`` clamped to
    0..:data:`MAX_HEARTBEAT_SECONDS` (NaN, infinities and None count 0)."""
    return min(max(_finite_or_zero(seconds), 0.0), MAX_HEARTBEAT_SECONDS)


def active_total(*, stored_seconds: float, page_seconds: float | None) -> float | None:
    """A judgment's active time (seconds): what the heartbeats stored for the lease
    (``stored_seconds``) plus what the page sent with the judgment (``page_seconds``, None
    when the page sent none), clamped to 0..:data:`MAX_ACTIVE_SECONDS`. None (not measured)
    when the page sent nothing and no heartbeat stored anything: a post without the script.

    >>> active_total(stored_seconds=30.0, page_seconds=4.5)
    34.5
    >>> active_total(stored_seconds=0.0, page_seconds=None) is None
    True
    """
    stored = max(_finite_or_zero(stored_seconds), 0.0)
    if page_seconds is None and stored == 0.0:
        return None
    page = max(_finite_or_zero(page_seconds), 0.0)
    return min(stored + page, MAX_ACTIVE_SECONDS)


def task_seconds(*, active_seconds: float | None, wall_seconds: float) -> float:
    """The time a judgment took for cost and speed (seconds): its active time when measured,
    else its wall time on task."""
    return wall_seconds if active_seconds is None else active_seconds


def word_count(text: str) -> int:
    """Words of a chunk: its text split on whitespace."""
    return len(text.split())


def is_click_through(
    active_seconds: float | None,
    wall_seconds: float,
    words: int,
    *,
    floor_seconds: float,
    min_words: int,
) -> bool:
    """True when a judgment came too fast to have read its chunk: its time
    (:func:`task_seconds`: active seconds, or wall seconds when not measured) is below
    ``floor_seconds`` and the chunk has more than ``min_words`` words.

    >>> is_click_through(1.0, 9.0, 150, floor_seconds=2.0, min_words=100)
    True
    >>> is_click_through(None, 5.0, 150, floor_seconds=2.0, min_words=100)
    False
    """
    seconds = task_seconds(active_seconds=active_seconds, wall_seconds=wall_seconds)
    return words > min_words and seconds < floor_seconds
