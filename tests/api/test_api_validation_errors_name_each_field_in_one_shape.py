"""A request that does not validate is a 422 of one shape, as docs/api.md says:
``{"detail": "field: message; ...", "errors": [{"field", "message", "type", "loc"}]}``,
for a JSON body, a query parameter, a path parameter and a multipart form alike."""


def test_a_json_body_names_each_refused_field(api_as, tiny_dataset):
    answer = api_as("admin").post(
        "/api/v1/jobs",
        {"rounds": 9, "scale": "nope", "extra": 1},
        content_type="application/json",
    )
    assert answer.status_code == 422
    body = answer.json()
    assert body["detail"] == (
        "pool: Field required; rounds: Input should be less than or equal to 5; "
        "scale: Input should be 'binary' or 'graded'; extra: Extra inputs are not permitted"
    )
    assert body["errors"][1] == {
        "field": "rounds",
        "message": "Input should be less than or equal to 5",
        "type": "less_than_equal",
        "loc": ["body", "payload", "rounds"],
    }
    assert [e["type"] for e in body["errors"]] == [
        "missing",
        "less_than_equal",
        "literal_error",
        "extra_forbidden",
    ]


def test_a_query_and_a_path_parameter_are_named_alike(api_as, tiny_dataset):
    api = api_as("researcher")
    download = api.get("/api/v1/datasets/tiny/qrels/test/download?format=zip")
    assert download.status_code == 422
    assert download.json()["detail"] == "format: Input should be 'trec', 'beir' or 'labels'"
    job = api.get("/api/v1/jobs/0")
    assert job.status_code == 422
    assert job.json()["errors"][0]["field"] == "job_id"
    assert job.json()["errors"][0]["loc"] == ["path", "job_id"]


def test_a_multipart_form_field_is_named_alike(api_as, db):
    answer = api_as("admin").post("/api/v1/datasets", {"name": "x", "unknown_ids": "keep"})
    assert answer.status_code == 422
    assert answer.json()["detail"] == "unknown_ids: Input should be 'reject' or 'drop'"


def test_a_body_that_is_no_json_is_a_json_400(api_as, db):
    answer = api_as("admin").post(
        "/api/v1/annotators/floor", "{not json", content_type="application/json"
    )
    assert answer.status_code == 400
    assert answer.json()["detail"].startswith("Cannot parse request body")


def test_an_unknown_query_parameter_is_a_422_naming_it(api_as, db):
    answer = api_as("researcher").get("/api/v1/jobs?pgae=2")
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {
            "field": "pgae",
            "message": "Unknown query parameter",
            "type": "extra_forbidden",
            "loc": ["query", "pgae"],
        }
    ]


def test_an_empty_body_is_named_body_not_the_views_parameter(api_as, db):
    answer = api_as("admin").post("/api/v1/jobs", "", content_type="application/json")
    assert answer.status_code == 422
    assert answer.json() == {
        "detail": "body: required, a JSON object (Content-Type: application/json)",
        "errors": [
            {
                "field": "body",
                "message": "required, a JSON object (Content-Type: application/json)",
                "type": "missing",
                "loc": ["body", "payload"],
            }
        ],
    }


def test_json_sent_to_a_multipart_route_is_a_415_naming_the_type_it_takes(api_as, db):
    answer = api_as("admin").post(
        "/api/v1/datasets", {"name": "x"}, content_type="application/json"
    )
    assert answer.status_code == 415
    assert answer.json() == {"detail": "this route takes multipart/form-data, got application/json"}
