"""The pure rules of time on task (assess.review.timing), hand-worked: a heartbeat adds 0..120
s, a judgment's active time is what the heartbeats stored plus what the page sent (None when
neither exists), and a judgment is a possible click-through when its time (active, else wall)
is below the floor on a chunk of more words than the minimum. No database."""

import math

import pytest

from assess.review.timing import (
    MAX_ACTIVE_SECONDS,
    active_total,
    heartbeat_seconds,
    is_click_through,
    task_seconds,
    word_count,
)

FLOOR = {"floor_seconds": 2.0, "min_words": 100}


@pytest.mark.parametrize(
    ("posted", "added"),
    [
        (14.2, 14.2),
        (0.0, 0.0),
        (-3.0, 0.0),  # a negative post adds nothing
        (120.0, 120.0),
        (500.0, 120.0),  # at most 120 s per post
        (math.nan, 0.0),
        (math.inf, 0.0),
        (None, 0.0),
    ],
)
def test_a_heartbeat_adds_between_0_and_120_seconds(posted, added):
    assert heartbeat_seconds(posted) == added


@pytest.mark.parametrize(
    ("stored", "page", "total"),
    [
        (30.0, 4.5, 34.5),  # heartbeats 30 s + the rest sent with the answer 4.5 s
        (0.0, 4.5, 4.5),  # no heartbeat yet (a short pair)
        (12.0, None, 12.0),  # heartbeats only (the answer posted without the script)
        (0.0, 0.0, 0.0),  # measured: the page sent 0 (hidden or idle all along)
        (0.0, None, None),  # nothing measured at all
        (86_000.0, 1_000.0, MAX_ACTIVE_SECONDS),  # clamped to a day
        (5.0, -2.0, 5.0),  # a negative page value counts 0
        (math.nan, 3.0, 3.0),
    ],
)
def test_a_judgments_active_time_is_the_stored_heartbeats_plus_the_pages_rest(stored, page, total):
    assert active_total(stored_seconds=stored, page_seconds=page) == total


def test_the_time_a_judgment_took_is_its_active_time_when_measured_else_its_wall_time():
    assert task_seconds(active_seconds=3.5, wall_seconds=40.0) == 3.5
    assert task_seconds(active_seconds=0.0, wall_seconds=40.0) == 0.0
    assert task_seconds(active_seconds=None, wall_seconds=40.0) == 40.0


def test_words_are_the_text_split_on_whitespace():
    assert word_count("Daily vitamin D\nreduced  hip\tfractures.") == 6
    assert word_count("") == 0
    assert word_count("   ") == 0


@pytest.mark.parametrize(
    ("active", "wall", "words", "flagged"),
    [
        (1.0, 9.0, 150, True),  # 1 s active on 150 words: not read
        (1.0, 1.0, 50, False),  # a short chunk can be read in a second
        (1.0, 1.0, 100, False),  # "more than 100 words": 100 is not more
        (1.0, 1.0, 101, True),
        (5.0, 5.0, 150, False),  # 5 s is above the floor
        (2.0, 2.0, 150, False),  # at the floor is not below it
        (1.99, 30.0, 150, True),  # the wall time does not count when active is measured
        (None, 1.0, 150, True),  # not measured: the wall time decides
        (None, 3.0, 150, False),
    ],
)
def test_a_fast_answer_on_a_long_chunk_is_a_click_through(active, wall, words, flagged):
    assert is_click_through(active, wall, words, **FLOOR) is flagged
