"""Anonymous users see only the login page, at addresses that do not exist as well: any path
no pattern matches sends them to the login page (302 with ``?next=``), with DEBUG on (where
Django's own 404 page would list every URL pattern) or off. Signed-in users still get 404,
and the slash Django appends to a known page (``/jobs`` to ``/jobs/``); a missing static file
is 404 for everyone."""

import pytest

from tests.fixtures.ui import ANONYMOUS, WHO

# path: where the login page sends the visitor back to after logging in (?next=)
UNKNOWN = {
    "/nope/": "/nope/",
    "/nope": "/nope",
    "/jobs/1/nope/deeper/": "/jobs/1/nope/deeper/",
    "/.env": "/.env",
    "/wp-login.php?x=1": "/wp-login.php%3Fx%3D1",
}


@pytest.mark.parametrize("debug", [False, True], ids=["DEBUG off", "DEBUG on"])
@pytest.mark.parametrize("path", list(UNKNOWN))
@pytest.mark.parametrize("method", ["get", "post"])
def test_an_anonymous_request_to_an_unknown_address_goes_to_the_login_page(
    client, settings, method, path, debug
):
    settings.DEBUG = debug
    answer = getattr(client, method)(path)
    assert (answer.status_code, answer["Location"]) == (302, "/login/?next=" + UNKNOWN[path])


@pytest.mark.parametrize("who", [w for w in WHO if w != ANONYMOUS])
def test_signed_in_users_get_404_at_an_unknown_address(client_as, who):
    client = client_as(who)
    assert client.get("/nope/").status_code == 404
    assert client.get("/nope").status_code == 404
    assert client.post("/jobs/1/nope/deeper/").status_code == 404


def test_a_known_page_without_its_slash_gets_the_slash_for_signed_in_users(client_as):
    client = client_as("researcher")
    answer = client.get("/jobs?page=2")
    assert (answer.status_code, answer["Location"]) == (301, "/jobs/?page=2")


def test_a_missing_static_file_is_404_for_anonymous_visitors_too(client):
    assert client.get("/static/nope.css").status_code == 404


def test_the_login_page_itself_still_answers_anonymous_visitors(client):
    assert client.get("/login/").status_code == 200
