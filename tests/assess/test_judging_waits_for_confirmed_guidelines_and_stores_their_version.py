"""Over HTTP: the judging page shows the guidelines in force, not the pair, until the
annotator confirms them; a label sent before that is refused (409, nothing saved); the
confirm button answers with the pair (a fragment for htmx, a redirect without the script);
each judgment stores the version its annotator had confirmed, and a new version is asked
for again. Guidelines holding a <script> render it as text."""

import re
import uuid

import pytest

from assess.models import Judgment
from assess.review.guidelines import guidelines_create
from tests.fixtures.ui import html_elements

HX = {"HX-Request": "true"}


def _item_id(html: str) -> str:
    """The public id of the pair the fragment shows ("" for none)."""
    return re.search(r'id="judge-item"[^>]*data-item="([^"]*)"', html).group(1)


def _shows_pair(html: str) -> bool:
    return 'id="pair-query"' in html or 'data-action="label"' in html


def _confirm_url(html: str) -> str:
    return re.search(r'hx-post="(/judge/guidelines/\d+/confirm/)"', html).group(1)


def _label() -> dict[str, str]:
    return {"client_id": str(uuid.uuid4()), "label": "1", "seconds": "3"}


@pytest.fixture(name="judging")
def judging_fixture(client, make_review_job, make_user):
    """A job of two escalated pairs whose dataset has guidelines version 1, and the test
    client logged in as annotator ``ann``, who has confirmed nothing."""
    review = make_review_job(escalated=2)
    version = guidelines_create(
        text="# Judge the chunk\n\nA chunk is **relevant** when it answers the query.",
        dataset=review.job.pool.dataset,
        user=make_user("admin"),
    )
    client.force_login(make_user("annotator", "ann", confirm_guidelines=False))
    return review, version


def test_the_page_shows_the_guidelines_and_not_the_pair_until_confirmed(client, judging):
    page = client.get("/judge/").content.decode()
    assert 'id="guidelines-confirm"' in page
    assert "<h1>Judge the chunk</h1>" in page
    assert "<strong>relevant</strong>" in page
    assert "I have read these guidelines" in page
    assert "{#" not in page and "comment %}" not in page  # no template comment shows
    assert not _shows_pair(page)
    assert "Does vitamin D reduce fractures?" not in page  # the query
    assert "We pooled eleven trials." not in page  # the chunk


def test_a_label_sent_before_confirming_is_refused_and_saves_nothing(client, judging):
    item = _item_id(client.get("/judge/").content.decode())

    answer = client.post(f"/judge/{item}/submit/", _label(), headers=HX)
    assert answer.status_code == 409
    html = answer.content.decode()
    assert "confirm the guidelines (version 1) first" in html
    assert 'id="guidelines-confirm"' in html and not _shows_pair(html)

    plain = client.post(f"/judge/{item}/submit/", _label())
    assert (plain.status_code, plain["Location"]) == (302, "/judge/")
    assert Judgment.objects.count() == 0


def test_confirming_shows_the_pair_and_the_judgment_stores_the_version(client, judging):
    _, version = judging
    page = client.get("/judge/").content.decode()
    item = _item_id(page)

    confirmed = client.post(_confirm_url(page), headers=HX)
    assert confirmed.status_code == 200
    html = confirmed.content.decode()
    assert "<html" not in html  # the fragment htmx swaps in
    assert _item_id(html) == item  # the same pair, still held
    assert _shows_pair(html) and 'id="guidelines-confirm"' not in html
    assert 'id="guidelines"' in html  # the "g" panel
    assert "Guidelines version 1 confirmed" in html

    answer = client.post(f"/judge/{item}/submit/", _label(), headers=HX)
    assert answer.status_code == 200
    assert Judgment.objects.get().guidelines == version


def test_a_new_version_is_confirmed_again_and_stored_with_the_next_judgments(
    client, judging, make_user
):
    review, v1 = judging
    client.post(_confirm_url(client.get("/judge/").content.decode()), headers=HX)
    first = _item_id(client.get("/judge/").content.decode())
    client.post(f"/judge/{first}/submit/", _label(), headers=HX)

    v2 = guidelines_create(
        text="# Version two", dataset=review.job.pool.dataset, user=make_user("admin", "boss")
    )
    page = client.get("/judge/").content.decode()
    assert 'id="guidelines-confirm"' in page and "Version two" in page
    second = _item_id(page)
    refused = client.post(f"/judge/{second}/submit/", _label(), headers=HX)
    assert refused.status_code == 409

    # Without the script: the form posts to the confirm URL, which redirects to judging.
    plain = client.post(f"/judge/guidelines/{v2.pk}/confirm/")
    assert (plain.status_code, plain["Location"]) == (302, "/judge/")
    assert _shows_pair(client.get("/judge/").content.decode())
    client.post(f"/judge/{second}/submit/", _label(), headers=HX)

    stored = {
        str(item): version
        for item, version in Judgment.objects.values_list("item__public_id", "guidelines__version")
    }
    assert stored == {first: 1, second: 2}
    assert v1.judgments.count() == 1


def test_guidelines_with_a_script_render_it_as_text(client, make_review_job, make_user):
    review = make_review_job(escalated=1)
    guidelines_create(
        text="<script>window.__pwned = 1</script>\n\n<img src=x onerror=alert(1)>\n\n"
        "[x](javascript:alert(1))",
        dataset=review.job.pool.dataset,
        user=make_user("admin"),
    )
    client.force_login(make_user("annotator", "ann", confirm_guidelines=False))
    page = client.get("/judge/").content.decode()
    elements, inline_scripts = html_elements(page)
    assert inline_scripts == []
    assert all(attrs.get("src") for tag, attrs in elements if tag == "script")
    assert not [tag for tag, attrs in elements if tag == "img"]
    assert not [a for _, attrs in elements for a in attrs if a.startswith("on")]
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page


def test_an_unknown_guidelines_id_is_404_and_a_get_405(client, judging):
    assert client.post("/judge/guidelines/999999/confirm/", headers=HX).status_code == 404
    _, version = judging
    assert client.get(f"/judge/guidelines/{version.pk}/confirm/").status_code == 405
