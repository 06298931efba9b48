"""No token or an unknown or revoked one: 401, with ``WWW-Authenticate: Bearer``. A token
whose user lacks the role: 403, as the pages answer a signed-in user."""

import pytest

from core.tokens import api_token_revoke


@pytest.mark.parametrize("header", [None, "Bearer nope", "Bearer dream_unknown", "Basic eDp5"])
def test_a_request_without_a_valid_token_is_401(client, db, header):
    extra = {"HTTP_AUTHORIZATION": header} if header else {}
    answer = client.get("/api/v1/datasets", **extra)
    assert answer.status_code == 401
    assert answer.json() == {"detail": "Unauthorized"}
    # RFC 6750 section 3: every 401 names the scheme to authenticate with.
    assert answer["WWW-Authenticate"] == 'Bearer realm="api"'


def test_a_revoked_token_is_401(api_as):
    api = api_as("researcher")
    assert api.get("/api/v1/datasets").status_code == 200
    api_token_revoke(user=api.user)
    answer = api.post("/api/v1/jobs", {}, content_type="application/json")
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"] == 'Bearer realm="api"'


def test_an_annotator_reads_no_dataset_and_a_researcher_changes_nothing(api_as, tiny_dataset):
    assert api_as("annotator").get("/api/v1/datasets").status_code == 403
    researcher = api_as("researcher")
    assert researcher.get("/api/v1/datasets/tiny").status_code == 200
    answer = researcher.post(
        "/api/v1/datasets/tiny/pools",
        {"runs": ["bm25"]},
        content_type="application/json",
    )
    assert answer.status_code == 403
    assert answer.json() == {"detail": "this needs the role admin"}
    assert researcher.post("/api/v1/jobs/1/pause").status_code == 403


def test_an_unknown_dataset_is_a_json_404(api_as, db):
    answer = api_as("admin").get("/api/v1/datasets/nope")
    assert (answer.status_code, answer.json()) == (404, {"detail": "no dataset 'nope'"})
