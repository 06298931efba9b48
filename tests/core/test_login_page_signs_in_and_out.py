"""The login page signs a user in and on to ``next``; logout (POST) signs them out."""

from django.urls import reverse

from tests.fixtures.ui import PASSWORD


def test_an_anonymous_visitor_is_sent_to_the_login_page_with_next(client, db):
    response = client.get("/datasets/?x=1")
    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/datasets/%3Fx%3D1"


def test_the_right_password_signs_in_and_goes_on_to_next(client, make_user, fresh_cache):
    make_user("researcher", "ada")
    page = client.get("/login/?next=/datasets/")
    assert page.status_code == 200
    assert b'name="next" value="/datasets/"' in page.content
    response = client.post(
        "/login/?next=/datasets/", {"username": "ada", "password": PASSWORD, "next": "/datasets/"}
    )
    assert (response.status_code, response["Location"]) == (302, "/datasets/")
    home = client.get("/")
    assert home.status_code == 200
    assert b"ada" in home.content and b"researcher" in home.content


def test_without_next_the_login_goes_home(client, make_user, fresh_cache):
    make_user("annotator", "bo")
    response = client.post("/login/", {"username": "bo", "password": PASSWORD})
    assert (response.status_code, response["Location"]) == (302, reverse("home"))


def test_a_next_pointing_to_another_site_is_ignored(client, make_user, fresh_cache):
    make_user("annotator", "bo")
    response = client.post(
        "/login/", {"username": "bo", "password": PASSWORD, "next": "https://evil.example/"}
    )
    assert (response.status_code, response["Location"]) == (302, reverse("home"))


def test_a_wrong_password_shows_the_form_again_with_an_error(client, make_user, fresh_cache):
    make_user("annotator", "bo")
    response = client.post("/login/", {"username": "bo", "password": "wrong"})
    assert response.status_code == 200
    assert b"Your username and password didn't match" in response.content
    assert client.get("/").status_code == 302


def test_logout_signs_out_and_returns_to_the_login_page(client, make_user, fresh_cache):
    make_user("admin", "cy")
    client.post("/login/", {"username": "cy", "password": PASSWORD})
    assert client.get("/").status_code == 200
    response = client.post("/logout/")
    assert (response.status_code, response["Location"]) == (302, reverse("login"))
    assert client.get("/").status_code == 302


def test_an_htmx_request_without_a_session_redirects_the_whole_window(client, db):
    response = client.get(
        "/datasets/tiny/documents/?prefix=d",
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/datasets/tiny/"},
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == "/login/?next=/datasets/tiny/"
