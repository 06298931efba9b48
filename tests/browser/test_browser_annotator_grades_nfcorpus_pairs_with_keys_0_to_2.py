"""In Chromium: an annotator grades three escalated NFCorpus pairs of a graded job (G = 2)
with the keyboard only: the rubric is shown, keys 2, 0, 1 save those grades, a 3 (no such
grade) does nothing, and each next pair appears without a page load."""

import pytest

from assess.models import Judgment
from tests.fixtures.browser import ARTIFACTS, browser_login, press_and_wait
from tests.fixtures.nfcorpus_graded import build_nfcorpus_graded


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_annotator_grades_three_nfcorpus_pairs_with_keys_2_0_1(
    live_server, browser_page, annotators
):
    _, _, _, debates = build_nfcorpus_graded(escalated=3)
    annotators(1)
    page = browser_page
    browser_login(page, live_server.url, "/judge/", "ann1")
    page.wait_for_selector("#judge-item[data-item]")
    assert page.inner_text("#judge-queue") == "3 in the queue"
    rubric = page.inner_text("#judge-rubric")
    assert "Grade the chunk 0–2" in rubric
    assert "2 (highly relevant)" in rubric and "0 (not relevant)" in rubric
    first = debates[0].pair
    assert page.inner_text("#pair-query") == first.query.text
    page.screenshot(path=str(ARTIFACTS / "judging-page-graded.png"), full_page=True)
    loads = []
    page.on("load", lambda: loads.append(page.url))

    shown = page.get_attribute("#judge-item", "data-item")
    page.keyboard.press("3")  # no grade 3 on this scale: nothing is sent
    page.wait_for_timeout(300)
    assert page.get_attribute("#judge-item", "data-item") == shown
    assert not Judgment.objects.exists()
    for key in ("2", "0", "1"):
        shown = press_and_wait(page, key, shown)
    assert page.is_visible("#judge-empty")
    assert loads == []

    judged = list(
        Judgment.objects.order_by("created").values_list(
            "item__debate_id", "label", "annotator__username"
        )
    )
    assert judged == [
        (debates[0].pk, 2, "ann1"),
        (debates[1].pk, 0, "ann1"),
        (debates[2].pk, 1, "ann1"),
    ]
