"""In Chromium: the active time stored with a judgment counts only the time the judging page
was visible and had an input within the idle cut-off, while the wall time counts everything.

- Two tabs: the judging page is visible about 2 s, hidden about 6 s behind another tab (a real
  tab switch: ``browser_tabs``, Chromium over CDP without Playwright's focus emulation), then
  shown again and judged: active time about 2 s, wall time over 8 s. The heartbeats (every
  second here) and the beacon sent when the tab was hidden reach the server before the answer.
- Idle: with a cut-off of 2 s and no input for 4 s, then a mouse move and 1 s later the answer:
  active time about 2 + 1 s, wall time over 5 s.

The lower bounds come from the waits the test makes; the upper bounds from the wall time
the test measured around the same steps (the page counts on the same clock), not from
"about": on a loaded machine a step may take longer, and the page rightly counts it.
"""

import time

import pytest

from assess.models import Judgment, ReviewItem
from tests.fixtures.annot import build_review_job
from tests.fixtures.browser import browser_login, press_and_wait

VISIBLE = "document.visibilityState === 'visible'"
HIDDEN = "document.visibilityState === 'hidden'"


def _confirm_guidelines(annotator) -> None:
    # The pair is shown only once its annotator confirmed the guidelines in force for it.
    from assess.review.guidelines import guidelines_confirm, guidelines_for_item

    for item in ReviewItem.objects.all():
        guidelines = guidelines_for_item(item=item)
        if guidelines is not None:
            guidelines_confirm(annotator=annotator, guidelines=guidelines)


def _open_judging(page, live_server, annotator) -> str:
    _confirm_guidelines(annotator)
    browser_login(page, live_server.url, "/judge/", annotator.username)
    page.wait_for_selector("#judge-active", state="attached")
    return page.get_attribute("#judge-item", "data-item")


@pytest.mark.django_db(transaction=True)
def test_the_time_the_judging_tab_was_hidden_is_not_active_time(
    live_server, browser_tabs, annotators, settings
):
    settings.DREAM_ACTIVE_HEARTBEAT_SECONDS = 1
    build_review_job(escalated=2)
    (alice,) = annotators(1)
    judging = browser_tabs.pages[0]
    started = time.monotonic()  # before the page exists: nothing is counted before this
    item = _open_judging(judging, live_server, alice)
    assert judging.evaluate(VISIBLE)
    judging.wait_for_timeout(2000)

    other = browser_tabs.new_page()
    other.goto(live_server.url + "/")
    other.bring_to_front()
    judging.wait_for_function(HIDDEN)
    visible_at_most = time.monotonic() - started  # the judging tab was hidden by now
    other.wait_for_timeout(6000)  # hidden all along: none of it is active
    judging.bring_to_front()
    judging.wait_for_function(VISIBLE)
    assert other.evaluate(HIDDEN)
    # What the heartbeats and the beacon reported while the judging tab was visible: at least
    # most of the 2 s it was shown, at most the time it can have been visible.
    reported = ReviewItem.objects.get(public_id=item).lease_active_seconds
    assert 1.0 < reported <= visible_at_most

    press_and_wait(judging, "1", item)
    judgment = Judgment.objects.get()
    assert judgment.seconds_on_task > 8.0
    assert 1.5 < judgment.active_seconds <= time.monotonic() - started - 6.0
    assert judgment.active_seconds >= reported
    assert judgment.click_through is False  # a short chunk


@pytest.mark.django_db(transaction=True)
def test_time_without_input_counts_only_up_to_the_idle_cut_off(
    live_server, browser_page, annotators, settings
):
    settings.DREAM_ACTIVE_IDLE_SECONDS = 2
    build_review_job(escalated=2)
    (alice,) = annotators(1)
    page = browser_page
    item = _open_judging(page, live_server, alice)
    assert page.get_attribute("#judge-active", "data-idle-seconds") == "2"
    page.wait_for_timeout(4000)  # no input: 2 s count, 2 s do not
    moved = time.monotonic()
    page.mouse.move(200, 300)  # an input: time counts again
    page.wait_for_timeout(1000)
    press_and_wait(page, "1", item)
    since_the_move = time.monotonic() - moved
    judgment = Judgment.objects.get()
    assert judgment.seconds_on_task > 5.0
    # The 2 s up to the cut-off, then the time from the move to the answer: at least the 1 s
    # waited, at most what the test measured (+ 0.1 s for the page's own rounding).
    assert 2.8 < judgment.active_seconds <= 2.0 + since_the_move + 0.1
