"""The OpenAPI document says what each route can answer: 401 and 403 everywhere (every
route needs a token of a role), 404 where a path names something, 409 for job controls,
unready downloads and judging a pair someone else holds, 413 where a body is sent, 422
where input is validated; each with its schema (``ErrorOut``, ``ValidationErrorOut`` for
422). Closed sets are enums."""

from api.main import api

SCHEMA = api.get_openapi_schema()
OPERATIONS = [
    (method, path, operation)
    for path, operations in SCHEMA["paths"].items()
    for method, operation in operations.items()
]


def _ref(response):
    return response["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]


def test_every_route_declares_401_and_403_with_the_error_schema():
    for method, path, operation in OPERATIONS:
        responses = operation["responses"]
        assert {_ref(responses[401]), _ref(responses[403])} == {"ErrorOut"}, (method, path)


def test_routes_declare_404_413_and_422_where_they_apply():
    for method, path, operation in OPERATIONS:
        codes = set(operation["responses"])
        if "{" in path:
            assert 404 in codes, (method, path)
        if "requestBody" in operation:
            assert {413, 422} <= codes, (method, path)
        typed = [
            p
            for p in operation.get("parameters", [])
            if p["schema"].get("type") == "integer" or "enum" in p["schema"]
        ]
        if typed:
            assert 422 in codes, (method, path)
        if 422 in codes:
            assert _ref(operation["responses"][422]) == "ValidationErrorOut", (method, path)


def test_job_controls_and_an_export_download_declare_409():
    conflicting = sorted(p for m, p, op in OPERATIONS if 409 in op["responses"])
    assert conflicting == [
        "/api/v1/datasets/{slug}/refined/{name}/exports/{kind}",  # GET while it is built
        "/api/v1/exports/{export_id}/download",
        "/api/v1/jobs",  # a duplicate of an open job, or an Idempotency-Key reused
        "/api/v1/jobs/{job_id}/cancel",
        "/api/v1/jobs/{job_id}/pause",
        "/api/v1/jobs/{job_id}/resume",
        "/api/v1/jobs/{job_id}/retry-failed",
        "/api/v1/review/items/{item_id}/judgment",  # a pair held by another, or decided
        "/api/v1/review/judgments/{client_id}/undo",  # too late, or nothing to undo
    ]


def test_the_error_schemas_are_detail_and_field_errors():
    schemas = SCHEMA["components"]["schemas"]
    assert schemas["ErrorOut"]["required"] == ["detail"]
    assert set(schemas["ValidationErrorOut"]["properties"]) == {"detail", "errors"}
    assert set(schemas["FieldError"]["required"]) == {"field", "message", "type", "loc"}


def test_closed_sets_are_enums():
    download = SCHEMA["paths"]["/api/v1/datasets/{slug}/qrels/{name}/download"]["get"]
    (fmt,) = [p for p in download["parameters"] if p["name"] == "format"]
    assert fmt["schema"]["enum"] == ["trec", "beir", "labels"]
    schemas = SCHEMA["components"]["schemas"]
    assert schemas["OperationOut"]["properties"]["status"]["enum"] == [
        "queued",
        "running",
        "done",
        "failed",
    ]
    assert schemas["ExportOut"]["properties"]["kind"]["enum"] == [
        "benchmark",
        "labels",
        "trec",
        "beir",
        "disagreements",
        "transcripts",
    ]
    assert schemas["JobIn"]["properties"]["scale"]["enum"] == ["binary", "graded"]


def test_downloads_declare_the_types_of_their_files():
    download = SCHEMA["paths"]["/api/v1/datasets/{slug}/qrels/{name}/download"]["get"]
    assert set(download["responses"][200]["content"]) == {"text/plain", "application/x-ndjson"}
    export = SCHEMA["paths"]["/api/v1/exports/{export_id}/download"]["get"]
    assert "application/zip" in export["responses"][200]["content"]
    built = SCHEMA["paths"]["/api/v1/datasets/{slug}/refined/{name}/exports/{kind}"]["get"]
    assert "application/zip" in built["responses"][200]["content"]
