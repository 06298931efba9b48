"""Every response carries the Content-Security-Policy (no inline script) and frame denial;
the session and CSRF cookies are HttpOnly and SameSite=Lax."""

from django.conf import settings

from tests.fixtures.ui import PASSWORD

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


def test_the_policy_allows_no_inline_script_or_style():
    assert settings.CSP_POLICY == CSP
    directives = dict(d.strip().split(" ", 1) for d in CSP.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert "unsafe" not in CSP


def test_pages_errors_redirects_and_downloads_carry_the_headers(client_as):
    client = client_as("researcher")
    for url, status in [
        ("/login/", 302),
        ("/", 200),
        ("/datasets/", 200),
        ("/datasets/nope/", 404),
        ("/static/app.js", None),
    ]:
        response = client.get(url)
        if status is not None:
            assert response.status_code == status, url
        assert response["Content-Security-Policy"] == CSP, url
        assert response["X-Frame-Options"] == "DENY", url
        assert response["X-Content-Type-Options"] == "nosniff", url


def test_the_csrf_cookie_from_the_login_page_is_httponly_and_samesite(client, db):
    client.get("/login/")
    cookie = client.cookies[settings.CSRF_COOKIE_NAME]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Lax"


def test_the_session_cookie_set_at_login_is_httponly_and_samesite(client, make_user, fresh_cache):
    make_user("annotator", "bo")
    response = client.post("/login/", {"username": "bo", "password": PASSWORD})
    assert response.status_code == 302
    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Lax"
