"""The CSRF token every htmx request sends comes from ``<body hx-headers>``; a POST
without it is refused with 403 and changes nothing."""

import json
import re

from django.test import Client


def _body_headers(html: str) -> dict:
    match = re.search(r"<body hx-headers='([^']*)'>", html)
    assert match, "no hx-headers on <body>"
    return json.loads(match.group(1))


def test_a_post_with_the_header_from_the_body_is_accepted_and_one_without_refused(
    make_user,
):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("researcher"))
    page = client.get("/")
    headers = _body_headers(page.content.decode())
    assert set(headers) == {"X-CSRFToken"}
    assert len(headers["X-CSRFToken"]) == 64

    refused = client.post("/logout/", headers={"HX-Request": "true"})
    assert refused.status_code == 403
    assert b"Form expired" in refused.content
    assert client.get("/").status_code == 200  # still logged in

    accepted = client.post("/logout/", headers={"HX-Request": "true", **headers})
    assert accepted.status_code == 302
    assert client.get("/").status_code == 302  # logged out


def test_the_login_page_also_has_the_token_in_its_body(db):
    client = Client(enforce_csrf_checks=True)
    headers = _body_headers(client.get("/login/").content.decode())
    assert len(headers["X-CSRFToken"]) == 64
