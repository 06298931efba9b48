"""In Chromium: an annotator logs in, judges three escalated pairs with the keyboard only
(1, 0, 1), undoes the last one (u), and the database holds exactly that; each next pair
appears without a page load. The screenshot of the judging page in README.md (docs/judging.png)
is taken here."""

import pytest

from assess.models import Judgment, ReviewItem
from tests.fixtures.annot import build_review_job
from tests.fixtures.browser import DOCS_SCREENSHOTS, browser_login, press_and_wait


def _shown(page) -> str:
    return page.get_attribute("#judge-item", "data-item")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_annotator_judges_three_pairs_and_undoes_one_with_the_keyboard_only(
    live_server, browser_page, annotators
):
    review = build_review_job(escalated=4)
    (alice,) = annotators(1)
    page = browser_page
    browser_login(page, live_server.url, "/judge/", "ann1")
    page.wait_for_selector("#judge-item[data-item]")
    assert page.inner_text("#judge-queue") == "4 in the queue"
    page.screenshot(path=str(DOCS_SCREENSHOTS / "judging.png"))
    loads = []
    page.on("load", lambda: loads.append(page.url))

    items = [_shown(page)]
    for key in ("1", "0", "1"):
        items.append(press_and_wait(page, key, items[-1]))
        assert page.inner_text("#judge-saved").startswith("saved ")
    assert page.inner_text("#judge-today") == "3 judged today"
    back = press_and_wait(page, "u", items[-1])
    assert back == items[2]  # the third pair is shown again
    assert "Undone" in page.inner_text("#judge-notice")
    assert page.inner_text("#judge-today") == "2 judged today"
    page.keyboard.press("?")
    assert page.is_visible("#judge-help")
    assert loads == []  # no page load after the first

    expected_debates = [d.pk for d in review.escalated[:3]]
    judged = list(
        Judgment.objects.order_by("created").values_list(
            "item__debate_id", "label", "annotator__username", "undone_at"
        )
    )
    assert [(d, label, who) for d, label, who, _ in judged] == [
        (expected_debates[0], 1, "ann1"),
        (expected_debates[1], 0, "ann1"),
        (expected_debates[2], 1, "ann1"),
    ]
    assert [undone is not None for *_, undone in judged] == [False, False, True]
    assert all(s > 0 for s in Judgment.objects.values_list("seconds_on_task", flat=True))
    done = dict(ReviewItem.objects.values_list("debate_id", "judgments_done"))
    assert [done[d] for d in expected_debates] == [1, 1, 0]
    third = ReviewItem.objects.get(debate_id=expected_debates[2])
    assert third.leased_to == alice
    fourth = ReviewItem.objects.get(debate_id=review.escalated[3].pk)
    assert fourth.leased_to is None  # shown before the undo, given back by it
