"""In Chromium: an annotator opening the judging page first sees the dataset's guidelines,
not the pair; "I have read these guidelines" brings the pair in without a page load; "g"
opens the guidelines as a dialog with focus in it, Escape closes it and gives focus back,
"g" typed in the note is just a letter; the judgment stores the confirmed version. The
guidelines hold a <script> and an <img onerror>: they show as text and run nothing."""

import pytest

from assess.models import Judgment
from assess.review.guidelines import guidelines_create
from tests.fixtures.annot import build_review_job
from tests.fixtures.browser import browser_login, press_and_wait

HOSTILE = (
    "## Judge the chunk\n\nA chunk is **relevant** when it holds evidence that answers the "
    'query.\n\n<script>window.__pwned = 1</script>\n\n<img src=x onerror="window.__pwned = 2">'
    "\n\n[click](javascript:window.__pwned=3)\n"
)


def _pwned(page):
    return page.evaluate("() => typeof window.__pwned")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_guidelines_come_first_then_the_pair_and_g_opens_them(live_server, browser_page, make_user):
    review = build_review_job(escalated=2)
    version = guidelines_create(text=HOSTILE, dataset=review.job.pool.dataset, user=None)
    make_user("annotator", "ann1", confirm_guidelines=False)
    page = browser_page
    browser_login(page, live_server.url, "/judge/", "ann1")

    page.wait_for_selector("#guidelines-confirm")
    confirm = page.inner_text("#guidelines-confirm")
    assert "Judge the chunk" in confirm
    assert "<script>window.__pwned = 1</script>" in confirm  # shown as text
    assert page.locator("#guidelines-confirm img, #guidelines-confirm script").count() == 0
    assert page.locator("#pair-query, #pair-chunk, button[data-action=label]").count() == 0
    assert _pwned(page) == "undefined"
    page.keyboard.press("1")  # no pair, no label button: nothing is sent
    loads = []
    page.on("load", lambda: loads.append(page.url))

    page.click("#guidelines-confirm-submit")
    page.wait_for_selector("#pair-query")
    assert page.locator("#guidelines-confirm").count() == 0
    assert "confirmed" in page.inner_text("#judge-notice")
    assert page.is_hidden("#guidelines")

    page.keyboard.press("g")
    assert page.is_visible("#guidelines")
    assert page.evaluate("() => document.activeElement.id") == "guidelines"
    assert page.get_attribute("[data-action=guidelines]", "aria-expanded") == "true"
    assert page.get_attribute("#guidelines", "role") == "dialog"
    assert "Judge the chunk" in page.inner_text("#guidelines")
    page.keyboard.press("Escape")
    assert page.is_hidden("#guidelines")
    assert page.evaluate("() => document.activeElement.id") == "judge-item"

    page.click("[data-action=guidelines]")
    assert page.is_visible("#guidelines")
    page.click("[data-action=guidelines-close]")
    assert page.is_hidden("#guidelines")

    page.focus("#judge-note")
    page.keyboard.type("good")
    assert page.is_hidden("#guidelines")
    assert page.input_value("#judge-note") == "good"
    page.keyboard.press("Escape")  # leaves the note field

    first = page.get_attribute("#judge-item", "data-item")
    press_and_wait(page, "1", first)
    assert loads == []  # the confirm and the judgment swapped fragments in
    assert _pwned(page) == "undefined"
    judgment = Judgment.objects.get()
    assert (judgment.label, judgment.note, judgment.guidelines_id) == (1, "good", version.pk)
