"""Every view that answers htmx requests with a fragment and other requests with the page
sends ``Vary: HX-Request`` (so the browser's cache and back button never show a bare
fragment as a page); a history restore (``HX-History-Restore-Request: true``, sent with
``HX-Request: true``) gets the whole page; judging and progress responses are never stored
(``Cache-Control: no-store``)."""

import pytest
from django.urls import reverse

from assess.models import ExportFile, ReviewItem

HTMX = {"HX-Request": "true"}
RESTORE = {"HX-Request": "true", "HX-History-Restore-Request": "true"}


def _vary(response) -> list[str]:
    return [v.strip() for v in response.get("Vary", "").split(",")]


def _no_store(response) -> bool:
    return "no-store" in [v.strip() for v in response.get("Cache-Control", "").split(",")]


@pytest.fixture
def review_job(make_review_job):
    return make_review_job(escalated=2)


@pytest.mark.django_db
@pytest.mark.parametrize("who,url", [("annotator", "judge"), ("researcher", "job")])
def test_page_fragment_and_history_restore_of_the_judge_and_job_pages(
    client_as, review_job, who, url
):
    client = client_as(who)
    path = "/judge/" if url == "judge" else f"/jobs/{review_job.job.pk}/"
    page = client.get(path)
    fragment = client.get(path, headers=HTMX)
    restored = client.get(path, headers=RESTORE)
    assert page.status_code == fragment.status_code == restored.status_code == 200

    assert "<html" in page.content.decode()
    assert "<html" not in fragment.content.decode()
    assert "<html" in restored.content.decode()
    assert restored.content.decode().count('id="') == page.content.decode().count('id="')

    for response in (page, fragment, restored):
        assert "HX-Request" in _vary(response)
        assert "Cookie" in _vary(response)  # the session still varies it too
        assert _no_store(response)


@pytest.mark.django_db
def test_the_judging_posts_vary_and_are_not_stored(client_as, review_job):
    client = client_as("annotator")
    client.get("/judge/")  # claims the first pair
    item = ReviewItem.objects.filter(leased_to__username="annotator").get()
    responses = {
        "submit": client.post(
            reverse("assess:judge_submit", args=[item.public_id]), {"label": "9"}, headers=HTMX
        ),
        "skip": client.post(reverse("assess:judge_skip", args=[item.public_id]), headers=HTMX),
        "unskip": client.post(reverse("assess:judge_unskip"), headers=HTMX),
        "undo": client.post(reverse("assess:judge_undo"), {"undo": ""}, headers=HTMX),
    }
    assert {k: r.status_code for k, r in responses.items()} == {
        "submit": 400,
        "skip": 200,
        "unskip": 200,
        "undo": 409,
    }
    for response in responses.values():
        assert "HX-Request" in _vary(response)
        assert _no_store(response)


@pytest.mark.django_db
def test_the_export_button_and_status_fragments_vary_and_are_not_stored(
    refined, var_dir, client_as, django_capture_on_commit_callbacks
):
    client = client_as("researcher")
    start = reverse("refined:export_start", args=["holes", "test-dream", "labels"])
    with django_capture_on_commit_callbacks(execute=False):
        started = client.post(start, headers=HTMX)
        plain = client.post(start)
    assert started.status_code == 200 and plain.status_code == 302
    status = client.get(
        reverse("refined:export_status", args=[ExportFile.objects.get().pk]), headers=HTMX
    )
    assert status.status_code == 200
    for response in (started, plain, status):
        assert "HX-Request" in _vary(response)
        assert _no_store(response)


@pytest.mark.django_db
def test_the_login_redirect_of_an_htmx_request_varies_too(client, review_job):
    response = client.get("/judge/", headers=HTMX)
    assert response.status_code == 200 and response["HX-Redirect"].startswith("/")
    assert "HX-Request" in _vary(response)
