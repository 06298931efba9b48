"""Every route of the API answers each role as the pages do: no token 401; an annotator
403 everywhere but on the judging routes, which are theirs alone (the judging page is
too); a researcher reads (GET) but changes nothing (POST: 403, but for requesting an
export); an admin gets past the role check. The routes come from the OpenAPI document, so
a new route is checked without being listed here."""

import pytest

from api.main import api

PARAMS = {
    "slug": "tiny",
    "name": "test",
    "job_id": "999999",
    "operation_id": "999999",
    "export_id": "999999",
    "kind": "benchmark",
    "username": "nobody",
    "item_id": "00000000-0000-4000-8000-000000000000",
    "client_id": "00000000-0000-4000-8000-000000000001",
}
# Requests a researcher may POST: an export is a download made in the background, as the
# refined set's page lets researchers ask for one.
READER_POSTS = {"/api/v1/datasets/{slug}/refined/{name}/exports/{kind}"}
# The judging routes: an annotator's work, as the judging page is (no other role judges).
JUDGING = "/api/v1/review/"
ROUTES = sorted(
    (method, path) for path, ops in api.get_openapi_schema()["paths"].items() for method in ops
)


def _url(path: str) -> str:
    for key, value in PARAMS.items():
        path = path.replace("{" + key + "}", value)
    return path


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_each_route_checks_the_token_and_the_role(api_as, tiny_dataset, method, path):
    url = _url(path)
    assert "{" not in url, f"no test value for a parameter of {path}"

    def status(role):
        client = api_as(role)
        return getattr(client, method)(url, content_type="application/json").status_code

    assert status(None) == 401
    if path.startswith(JUDGING):
        assert status("annotator") not in (401, 403)
        assert status("researcher") == status("admin") == 403
        return
    assert status("annotator") == 403
    researcher = status("researcher")
    if method == "get" or path in READER_POSTS:
        assert researcher not in (401, 403)
    else:
        assert researcher == 403
    assert status("admin") not in (401, 403)
