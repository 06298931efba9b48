"""An unknown path under ``/api/`` is a JSON 404 for everyone (no redirect to the login
page), and a method a route does not take a JSON 405 listing the ones it does."""

import pytest


@pytest.mark.parametrize("role", [None, "researcher", "admin"])
@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/jobs/", "/api/v2/jobs", "/api/"])
def test_an_unknown_api_path_is_a_json_404(api_as, db, role, path):
    answer = api_as(role).get(path)
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == {"detail": "no API route at this address"}


def test_a_post_to_an_unknown_api_path_is_a_json_404_too(client, db):
    answer = client.post("/api/v1/nope", {"a": "b"})
    assert (answer.status_code, answer.json()) == (404, {"detail": "no API route at this address"})


def test_a_wrong_method_is_a_json_405_with_allow(api_as, db):
    answer = api_as("admin").delete("/api/v1/jobs")
    assert answer.status_code == 405
    assert answer.json() == {"detail": "Method Not Allowed"}
    assert set(answer["Allow"].split(", ")) == {"GET", "POST"}


def test_pages_outside_the_api_still_send_anonymous_visitors_to_the_login_page(client, db):
    answer = client.get("/nope")
    assert answer.status_code == 302
    assert answer["Location"] == "/login/?next=/nope"
