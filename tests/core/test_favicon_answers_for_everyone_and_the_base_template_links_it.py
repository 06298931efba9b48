"""/favicon.ico answers with a small icon for everyone (browsers ask for it on every page);
every page links the static icon."""

import pytest
from django.test import Client


@pytest.mark.django_db
def test_an_anonymous_visitor_gets_the_icon_not_the_login_page():
    response = Client().get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert response["Cache-Control"] == "public, max-age=86400"
    body = b"".join(response.streaming_content)
    # An ICO header (reserved 0, type 1, one image) holding a PNG.
    assert body[:6] == b"\x00\x00\x01\x00\x01\x00"
    assert body[22:30] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.django_db
def test_a_post_is_refused_and_every_page_links_the_icon(client_as):
    assert Client().post("/favicon.ico").status_code == 405
    page = client_as("researcher").get("/datasets/").content.decode()
    assert '<link rel="icon" href="/static/favicon.ico" sizes="32x32">' in page
