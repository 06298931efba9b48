"""Requests that used to crash the server (a 500 with the traceback, ``DEBUG`` on) answer a
4xx with a JSON body and change nothing: a JSON body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``
is a 413, a page number or a count past its range a 422 naming the field, more than
``DATA_UPLOAD_MAX_NUMBER_FIELDS`` query or form fields a 400."""

import json

import pytest

from assess.models import QualityPolicy
from debates.models import DebateJob


@pytest.fixture(autouse=True)
def _debug_on(settings):
    # DEBUG is the default outside production: the case where a traceback reached clients.
    settings.DEBUG = True


def test_a_10_mb_json_body_on_post_jobs_is_a_json_413(api_as, tiny_dataset):
    pool = tiny_dataset.pools.get().pk
    body = json.dumps({"pool": pool, "note": "x" * 10_000_000})
    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 413
    assert answer["Content-Type"] == "application/json; charset=utf-8"
    assert answer.json() == {"detail": "request body: over the limit of 2,621,440 bytes"}
    assert DebateJob.objects.count() == 0


def test_a_page_number_past_its_range_is_a_422_naming_page(api_as, db):
    answer = api_as("researcher").get("/api/v1/jobs?page=99999999999999999999")
    assert answer.status_code == 422
    body = answer.json()
    assert body["detail"] == "page: Input should be less than or equal to 100000"
    assert [e["field"] for e in body["errors"]] == ["page"]


def test_a_gold_floor_needing_10_to_the_20_answers_is_a_422_and_stores_nothing(api_as, db):
    before = QualityPolicy.objects.count()
    answer = api_as("admin").post(
        "/api/v1/annotators/floor",
        {"accuracy_floor": 0.5, "min_answers": 10**20},
        content_type="application/json",
    )
    assert answer.status_code == 422
    assert answer.json()["detail"] == "min_answers: Input should be less than or equal to 100000"
    assert QualityPolicy.objects.count() == before


def test_more_than_1000_multipart_fields_on_post_datasets_is_a_json_400(api_as, db):
    fields = {f"f{i}": "x" for i in range(1_001)}
    answer = api_as("admin").post("/api/v1/datasets", {"name": "Many", **fields})
    assert answer.status_code == 400
    assert answer.json() == {"detail": "request: more than 1,000 query or form fields"}


def test_more_than_1000_query_parameters_on_get_jobs_is_a_json_400(api_as, db):
    query = "&".join(f"p{i}=1" for i in range(1_001))
    answer = api_as("researcher").get(f"/api/v1/jobs?{query}")
    assert answer.status_code == 400
    assert answer.json() == {"detail": "request: more than 1,000 query or form fields"}


def test_an_unexpected_error_is_a_json_500_without_traceback_and_is_logged(
    api_as, db, monkeypatch, caplog
):
    def broken(**kwargs):
        raise RuntimeError("the secret inner workings")

    monkeypatch.setattr("api.datasets.dataset_counts_list", broken)
    with caplog.at_level("ERROR", logger="api"):
        answer = api_as("researcher").get("/api/v1/datasets")
    assert answer.status_code == 500
    assert answer.json() == {"detail": "internal error: the server's log has the details"}
    assert b"secret" not in answer.content and b"Traceback" not in answer.content
    logged = [r for r in caplog.records if r.name == "api"]
    assert [r.getMessage() for r in logged] == ["API GET /api/v1/datasets failed"]
    assert "the secret inner workings" in str(logged[0].exc_info[1])
