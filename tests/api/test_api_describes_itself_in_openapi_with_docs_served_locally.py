"""``/api/v1/openapi.json`` lists every route (OpenAPI 3, bearer auth); ``/api/v1/docs`` is
Swagger UI loading only this server's own assets (no internet needed)."""

import re

ROUTES = {
    ("get", "/api/v1/datasets"),
    ("post", "/api/v1/datasets"),
    ("get", "/api/v1/datasets/{slug}"),
    ("get", "/api/v1/operations/{operation_id}"),
    ("get", "/api/v1/datasets/{slug}/qrels"),
    ("post", "/api/v1/datasets/{slug}/qrels"),
    ("get", "/api/v1/datasets/{slug}/qrels/{name}/download"),
    ("get", "/api/v1/datasets/{slug}/runs"),
    ("post", "/api/v1/datasets/{slug}/runs"),
    ("get", "/api/v1/datasets/{slug}/runs/{name}"),
    ("post", "/api/v1/datasets/{slug}/retrieve"),
    ("get", "/api/v1/datasets/{slug}/pools"),
    ("post", "/api/v1/datasets/{slug}/pools"),
    ("get", "/api/v1/jobs"),
    ("post", "/api/v1/jobs"),
    ("get", "/api/v1/jobs/{job_id}"),
    ("post", "/api/v1/jobs/{job_id}/pause"),
    ("post", "/api/v1/jobs/{job_id}/resume"),
    ("post", "/api/v1/jobs/{job_id}/cancel"),
    ("get", "/api/v1/jobs/{job_id}/review"),
    ("get", "/api/v1/datasets/{slug}/refined"),
    ("post", "/api/v1/datasets/{slug}/refined"),
    ("get", "/api/v1/datasets/{slug}/refined/{name}/rebenchmark"),
}


def test_the_openapi_document_lists_every_route_with_bearer_auth(client, db):
    answer = client.get("/api/v1/openapi.json")
    assert answer.status_code == 200
    schema = answer.json()
    assert schema["openapi"].startswith("3.")
    listed = {(method, path) for path, ops in schema["paths"].items() for method in ops}
    assert ROUTES <= listed, sorted(ROUTES - listed)
    assert schema["components"]["securitySchemes"]["TokenAuth"]["scheme"] == "bearer"


def test_the_docs_page_loads_only_local_assets(client, db):
    html = client.get("/api/v1/docs").content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert "/static/ninja/swagger-ui-bundle.js" in assets
    assert all(a.startswith("/static/") for a in assets), assets


def test_a_jobs_closed_fields_are_enums_of_the_models_choices(client, db):
    from debates.audit_design import ALLOCATIONS
    from debates.models import DebateJob, Stage0State

    schema = client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    expected = {
        "status": {value for value, _ in DebateJob.Status.choices},
        "scale": {value for value, _ in DebateJob.Scale.choices},
        "audit_allocation": set(ALLOCATIONS),
        "stage0_state": {value for value, _ in Stage0State.choices},
    }
    for name in ("JobOut", "JobDetailOut"):
        properties = schema[name]["properties"]
        for field, values in expected.items():
            assert set(properties[field]["enum"]) == values, (name, field)
