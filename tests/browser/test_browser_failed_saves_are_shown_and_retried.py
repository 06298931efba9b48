"""In Chromium: a save that fails (no connection, then a server error) shows an error, keeps
the current pair on screen and is retried with the same client id until the server confirms
it; only then does the next pair appear, and the answer is saved once."""

import pytest

from assess.models import Judgment
from tests.fixtures.annot import build_review_job
from tests.fixtures.browser import browser_login


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_failed_save_is_reported_then_retried_and_saved_once(
    live_server, browser_page, annotators
):
    build_review_job(escalated=2)
    annotators(1)
    page = browser_page
    browser_login(page, live_server.url, "/judge/", "ann1")
    shown = page.get_attribute("#judge-item", "data-item")
    sent_bodies: list[str] = []
    failures = ["abort", 500]

    def flaky(route):
        sent_bodies.append(route.request.post_data)
        if failures:
            failure = failures.pop(0)
            if failure == "abort":
                route.abort("connectionrefused")
            else:
                route.fulfill(status=500, body="boom")
            return
        route.continue_()

    page.route("**/submit/", flaky)
    page.keyboard.press("1")
    page.wait_for_function(
        "() => document.getElementById('judge-alert').textContent.includes('could not be reached')"
    )
    assert page.get_attribute("#judge-item", "data-item") == shown
    page.wait_for_function(
        "() => document.getElementById('judge-alert').textContent.includes('answered 500')"
    )
    assert page.get_attribute("#judge-item", "data-item") == shown
    page.wait_for_function(
        "shown => document.querySelector('#judge-item').dataset.item !== shown",
        arg=shown,
        timeout=20_000,
    )
    assert page.inner_text("#judge-alert") == ""
    assert len(sent_bodies) == 3
    assert len(set(sent_bodies)) == 1  # the same client id every time
    saved = Judgment.objects.get()
    assert (str(saved.item.public_id), saved.label) == (shown, 1)
    assert f"client_id={saved.client_id}" in sent_bodies[0]
