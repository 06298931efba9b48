"""Every URL answers each role (and anonymous users) with the status the role table says.

Anonymous users are sent to the login page from everything but the login page; logged-in
users without the page's role get 403. Add a row here for every URL you add: the last test
fails while a named URL is missing from the table.
"""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.fixtures.ui import ANONYMOUS, NO_ROLE, WHO

LOGIN = 302  # anonymous: redirected to the login page with ?next=
NO_ITEM = "00000000-0000-4000-8000-000000000000"  # a review item's public id that none has


def _row(status: dict[str, int], **defaults: int) -> dict[str, int]:
    return {who: status.get(who, defaults.get("others", 0)) for who in WHO}


READERS_ONLY = _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=200)
ANY_ROLE = _row({ANONYMOUS: LOGIN, NO_ROLE: 403}, others=200)


def _annotators(status: int) -> dict[str, int]:
    return _row({ANONYMOUS: LOGIN, "annotator": status}, others=403)


def _admins(status: int) -> dict[str, int]:
    return _row({ANONYMOUS: LOGIN, "admin": status}, others=403)


ANNOTATORS_ONLY = _annotators(200)
ADMINS_ONLY = _admins(200)

# (method, url name, kwargs, query string, {who: status})
MATRIX = [
    ("get", "login", {}, "", _row({ANONYMOUS: 200}, others=302)),
    ("get", "logout", {}, "", _row({}, others=405)),
    ("post", "logout", {}, "", _row({}, others=302)),
    ("get", "home", {}, "", ANY_ROLE),
    ("get", "corpora:dataset_list", {}, "", READERS_ONLY),
    ("get", "corpora:dataset_detail", {"slug": "tiny"}, "", READERS_ONLY),
    (
        "get",
        "corpora:dataset_detail",
        {"slug": "nope"},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    ("get", "corpora:document_list", {"slug": "tiny"}, "", READERS_ONLY),
    ("get", "corpora:pool_detail", {"slug": "tiny", "name": "p"}, "query=q1", READERS_ONLY),
    (
        "get",
        "corpora:pool_detail",
        {"slug": "tiny", "name": "nope"},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    ("get", "corpora:document_detail", {"slug": "tiny"}, "id=d1", READERS_ONLY),
    (
        "get",
        "corpora:document_detail",
        {"slug": "tiny"},
        "id=nope",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    (
        "get",
        "corpora:qrels_download",
        {"slug": "tiny", "name": "test", "fmt": "trec"},
        "",
        READERS_ONLY,
    ),
    (
        "get",
        "corpora:qrels_download",
        {"slug": "tiny", "name": "test", "fmt": "beir"},
        "",
        READERS_ONLY,
    ),
    # Refined qrel sets, exports, re-benchmark and RAG (assess.refined.urls). The tiny
    # dataset has no refined set: its pages answer 404 to readers (the tests of tests/assess/
    # open real ones); "test" against itself gives a re-benchmark with tables and plots.
    ("get", "refined:refined_list", {"slug": "tiny"}, "", READERS_ONLY),
    (
        "get",
        "refined:refined_detail",
        {"slug": "tiny", "name": "test"},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    (
        "post",
        "refined:export_start",
        {"slug": "tiny", "name": "test", "kind": "trec"},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    (
        "get",
        "refined:export_start",
        {"slug": "tiny", "name": "test", "kind": "trec"},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=405),
    ),
    (
        "get",
        "refined:export_status",
        {"pk": 999999},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    (
        "get",
        "refined:export_download",
        {"pk": 999999},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    # Refine again: admins only; an empty form gives the page again with its errors.
    ("post", "refined:refine_create", {"slug": "tiny"}, "", _admins(400)),
    ("get", "refined:refine_create", {"slug": "tiny"}, "", _admins(405)),
    # A refinement's progress page: readers, as the refined sets (none here: 404).
    (
        "get",
        "refined:refine_operation",
        {"slug": "tiny", "pk": 999999},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    ("get", "refined:rebenchmark", {"slug": "tiny"}, "", READERS_ONLY),
    ("get", "refined:rebenchmark", {"slug": "tiny"}, "original=test&refined=test", READERS_ONLY),
    (
        "get",
        "refined:rebenchmark_plot",
        {"slug": "tiny", "plot": "ranks"},
        "original=test&refined=test",
        READERS_ONLY,
    ),
    ("get", "refined:rag", {"slug": "tiny"}, "", READERS_ONLY),
    # Judging (annotators only), adjudication (admins), annotator overview (readers), debate
    # jobs (readers; launch and controls admins). Ids 999999 and the review item UUID
    # NO_ITEM do not exist: allowed roles get 404 (tests/assess/test_judging_*,
    # test_agreement_* and tests/debates/test_job_pages_* open real ones); POST-only views
    # answer GET with 405 once the role is checked.
    ("get", "assess:judge", {}, "", ANNOTATORS_ONLY),
    ("post", "assess:judge_submit", {"item_id": NO_ITEM}, "", _annotators(404)),
    ("get", "assess:judge_submit", {"item_id": NO_ITEM}, "", _annotators(405)),
    ("post", "assess:judge_skip", {"item_id": NO_ITEM}, "", _annotators(404)),
    # The judging page's heartbeat (active time): POST only.
    ("post", "assess:judge_active", {"item_id": NO_ITEM}, "", _annotators(404)),
    ("get", "assess:judge_active", {"item_id": NO_ITEM}, "", _annotators(405)),
    ("post", "assess:judge_undo", {}, "", _annotators(302)),  # nothing to undo: back to judging
    ("get", "assess:judge_undo", {}, "", _annotators(405)),
    ("post", "assess:judge_unskip", {}, "", _annotators(302)),
    # Guidelines: annotators confirm on the judging page (POST only); everyone with a role
    # reads a dataset's, admins save a new version (an empty form: 400, shown again).
    (
        "post",
        "assess:judge_guidelines_confirm",
        {"guidelines_id": 999999},
        "",
        _annotators(404),
    ),
    ("get", "assess:judge_guidelines_confirm", {"guidelines_id": 999999}, "", _annotators(405)),
    ("get", "assess:dataset_guidelines", {"slug": "tiny"}, "", ANY_ROLE),
    ("post", "assess:dataset_guidelines", {"slug": "tiny"}, "", _admins(400)),
    (
        "get",
        "assess:dataset_guidelines",
        {"slug": "nope"},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403}, others=404),
    ),
    ("get", "assess:disagreement_list", {}, "", ADMINS_ONLY),
    ("get", "assess:adjudicate", {"item_id": NO_ITEM}, "", _admins(404)),
    ("get", "assess:annotator_list", {}, "", READERS_ONLY),
    # Annotator quality: the floor (admins, POST; an empty form goes back with a message),
    # one annotator's labels (admins; no such user 404), an annotator's own figures.
    ("post", "assess:quality_floor_set", {}, "", _admins(302)),
    ("get", "assess:quality_floor_set", {}, "", _admins(405)),
    (
        "get",
        "assess:annotator_detail",
        {"username": "nobody"},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    ("post", "assess:annotator_labels_return", {"username": "nobody"}, "", _admins(404)),
    ("get", "assess:annotator_labels_return", {"username": "nobody"}, "", _admins(405)),
    ("get", "assess:annotator_me", {}, "", ANNOTATORS_ONLY),
    ("get", "debates:job_list", {}, "", READERS_ONLY),
    ("get", "debates:job_launch", {}, "", ADMINS_ONLY),
    # The launch form's cost estimate (debates.estimate_views): admins, GET only.
    ("get", "debates:job_estimate", {}, "", ADMINS_ONLY),
    ("post", "debates:job_estimate", {}, "", _admins(405)),
    (
        "get",
        "debates:job_detail",
        {"pk": 999999},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    ("post", "debates:job_control", {"pk": 999999, "action": "pause"}, "", _admins(404)),
    ("get", "debates:job_control", {"pk": 999999, "action": "pause"}, "", _admins(405)),
    ("post", "debates:job_budget", {"pk": 999999}, "", _admins(404)),
    ("get", "debates:job_budget", {"pk": 999999}, "", _admins(405)),
    # Uploads and dataset actions (corpora.upload_views): admins only; an empty POST is
    # shown again with its errors.
    ("get", "corpora:dataset_new", {}, "", ADMINS_ONLY),
    ("post", "corpora:dataset_new", {}, "", ADMINS_ONLY),
    ("get", "corpora:dataset_name_check", {}, "name=tiny", ADMINS_ONLY),
    ("post", "corpora:dataset_name_check", {}, "", _admins(405)),
    ("post", "corpora:dataset_action", {"slug": "tiny", "action": "pool"}, "", _admins(400)),
    ("post", "corpora:dataset_action", {"slug": "tiny", "action": "nope"}, "", _admins(404)),
    ("get", "corpora:dataset_action", {"slug": "tiny", "action": "pool"}, "", _admins(405)),
    (
        "get",
        "corpora:operation_detail",
        {"pk": 999999},
        "",
        _row({ANONYMOUS: LOGIN, NO_ROLE: 403, "annotator": 403}, others=404),
    ),
    # Every role may script within its role: its own API tokens and webhook secret.
    ("get", "tokens", {}, "", ANY_ROLE),
    ("post", "token_revoke", {}, "", _row({ANONYMOUS: LOGIN, NO_ROLE: 403}, others=302)),
    ("post", "webhook_secret_new", {}, "", ANY_ROLE),
    # The Django admin sends everyone but staff to its (rate-limited) login page.
    ("get", "admin:index", {}, "", _row({"admin": 200}, others=302)),
]

CASES = [
    pytest.param(
        method,
        name,
        kwargs,
        query,
        who,
        status[who],
        id=f"{method} {name} {kwargs} {query} as {who}",
    )
    for method, name, kwargs, query, status in MATRIX
    for who in WHO
]


@pytest.mark.parametrize(("method", "name", "kwargs", "query", "who", "expected"), CASES)
def test_each_url_answers_each_role_with_its_status(
    client_as, tiny_dataset, method, name, kwargs, query, who, expected
):
    client = client_as(who)
    url = reverse(name, kwargs=kwargs) + (f"?{query}" if query else "")
    response = getattr(client, method)(url)
    assert response.status_code == expected
    if who == ANONYMOUS and expected == LOGIN and not name.startswith("admin:"):
        if name == "logout":
            assert response["Location"] == reverse("login")
        else:
            assert response["Location"].startswith(reverse("login") + "?next=")


def _named_urls(resolver, namespace: str = "") -> dict:
    names = {}
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            names |= _named_urls(pattern, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            names[namespace + pattern.name] = pattern.callback
    return names


# The HTTP API authenticates by token, not by session: its own matrix is
# tests/api/test_api_answers_each_role_as_the_pages_do.py.
OUR_URLS = {
    n: v for n, v in _named_urls(get_resolver()).items() if not n.startswith(("admin:", "api-v1:"))
}


def test_every_named_url_outside_the_django_admin_is_in_the_matrix():
    assert set(OUR_URLS) - {name for _, name, _, _, _ in MATRIX} == set()


def test_every_view_but_login_and_logout_is_wrapped_in_role_required():
    unchecked = {n for n, view in OUR_URLS.items() if not hasattr(view, "allowed_roles")}
    assert unchecked == {"login", "logout"}
