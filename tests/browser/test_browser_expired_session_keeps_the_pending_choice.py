"""In Chromium: when the session has expired, pressing a key sends the annotator to the login
page; after logging in they are back on the judging page, the pending answer is sent again
(the same client id, so at most once) and saved for the pair they had chosen it for."""

import pytest

from assess.models import Judgment
from tests.fixtures.annot import build_review_job
from tests.fixtures.browser import browser_login
from tests.fixtures.ui import PASSWORD


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_answer_given_after_the_session_expired_is_saved_after_logging_in(
    live_server, browser_page, annotators
):
    build_review_job(escalated=2)
    annotators(1)
    page = browser_page
    browser_login(page, live_server.url, "/judge/", "ann1")
    chosen = page.get_attribute("#judge-item", "data-item")
    page.context.clear_cookies(name="sessionid")  # the session is gone

    page.keyboard.press("0")
    page.wait_for_url("**/login/?next=/judge/")
    assert Judgment.objects.count() == 0
    assert "dream-judge-pending" in page.evaluate("Object.keys(sessionStorage)")

    page.focus("#id_username")
    page.keyboard.type("ann1")
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(live_server.url + "/judge/")
    page.wait_for_function(
        "chosen => document.querySelector('#judge-item').dataset.item !== chosen", arg=chosen
    )
    assert page.inner_text("#judge-saved").startswith("saved ")
    assert page.evaluate("sessionStorage.getItem('dream-judge-pending')") is None

    saved = Judgment.objects.get()
    assert (str(saved.item.public_id), saved.label, saved.annotator.username) == (chosen, 0, "ann1")
