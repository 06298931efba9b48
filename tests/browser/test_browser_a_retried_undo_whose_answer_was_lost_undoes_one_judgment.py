"""In Chromium: the first undo reaches the server and is carried out, but its answer is lost
on the way back; the page retries the undo, which names the same judgment, so the retry finds
it undone already: the pair comes back once and the judgment before it stays saved."""

import pytest

from assess.models import Judgment, ReviewItem
from tests.fixtures.annot import build_review_job
from tests.fixtures.browser import browser_login, press_and_wait


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_undo_retried_after_its_answer_was_lost_undoes_only_the_last_judgment(
    live_server, browser_page, annotators
):
    review = build_review_job(escalated=3)
    annotators(1)
    page = browser_page
    browser_login(page, live_server.url, "/judge/", "ann1")
    page.wait_for_selector("#judge-item[data-item]")
    shown = [page.get_attribute("#judge-item", "data-item")]
    for key in ("1", "0"):
        shown.append(press_and_wait(page, key, shown[-1]))
    last = Judgment.objects.get(label=0)
    sent: list[str] = []

    def answer_lost_once(route):
        sent.append(route.request.post_data)
        if len(sent) == 1:
            route.fetch()  # the server undoes the judgment...
            route.abort("connectionreset")  # ...and the page never hears of it
            return
        route.continue_()

    page.route("**/judge/undo/", answer_lost_once)
    back = press_and_wait(page, "u", shown[-1])
    assert back == shown[1]
    assert "Undone" in page.inner_text("#judge-notice")
    assert sent == [f"undo={last.client_id}"] * 2
    judged = Judgment.objects.order_by("created").values_list("item__debate_id", "undone_at")
    assert [(d, undone is not None) for d, undone in judged] == [
        (review.escalated[0].pk, False),
        (review.escalated[1].pk, True),
    ]
    done = dict(ReviewItem.objects.values_list("debate_id", "judgments_done"))
    assert [done[d.pk] for d in review.escalated] == [1, 0, 0]
    assert page.inner_text("#judge-today") == "1 judged today"
