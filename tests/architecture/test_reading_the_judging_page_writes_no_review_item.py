"""Reads do not write: opening the judging page (``GET /judge/``) or a job page creates no
review item, even when escalated debates have none; review items come from the debates'
ends (see test_review_items_are_created_where_a_debate_ends.py). With 10,000 escalated
debates the first judging page runs the very statements the second runs: no queue sync on the
way (a sync would add statements over the 9,900 debates without an item)."""

from __future__ import annotations

import re
from collections import Counter

from django.db import connection
from django.test.utils import CaptureQueriesContext

from assess.models import ReviewItem
from core.roles import user_ensure

from .review_builders import build_job, end

FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _user(username: str, role: str):
    return user_ensure(username=username, role=role, password="correct horse battery")[0]


def _writes_to_review_items(queries: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE"))
        and "assess_reviewitem" in q["sql"].split("(")[0].split(" SET ")[0]
    ]


def _inserts_into_review_items(queries: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith("INSERT")
        and "assess_reviewitem" in q["sql"].split("(")[0]
    ]


def test_the_judging_page_inserts_no_review_item(client, db, settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS
    built = build_job(escalated=3, agreed=4, audit_share=1.0)
    client.force_login(_user("ann", "annotator"))
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/judge/")
    assert response.status_code == 200
    # The claim's one UPDATE (the lease) runs and finds nothing; nothing is inserted.
    assert _inserts_into_review_items(queries) == []
    assert ReviewItem.objects.count() == 0  # a database made before: review_sync repairs it
    end(built.escalated[0])
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/judge/")
    assert response.status_code == 200
    assert f'data-item="{ReviewItem.objects.get().public_id}"' in response.content.decode()
    assert _inserts_into_review_items(queries) == []  # the claim leases (UPDATE), no INSERT
    assert ReviewItem.objects.count() == 1


def test_the_job_page_writes_no_review_item(client, db, settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS
    built = build_job(escalated=3, agreed=4, audit_share=1.0)
    client.force_login(_user("boss", "admin"))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/jobs/{built.job.pk}/")
    assert response.status_code == 200
    assert 'id="job-review"' in response.content.decode()
    assert _writes_to_review_items(queries) == []
    assert ReviewItem.objects.count() == 0


def test_with_10000_escalated_debates_the_first_judging_page_runs_what_the_second_runs(
    client, db, settings
):
    settings.PASSWORD_HASHERS = FAST_HASHERS
    built = build_job(escalated=10_000)
    # 100 debates ended since the change (their items exist); 9,900 ended before it.
    for debate in built.escalated[:100]:
        end(debate)
    assert ReviewItem.objects.count() == 100
    first_user, second_user = _user("ann1", "annotator"), _user("ann2", "annotator")
    client.force_login(first_user)
    with CaptureQueriesContext(connection) as queries:
        first = client.get("/judge/")
    assert first.status_code == 200 and re.search(
        r'data-item="[0-9a-f-]{36}"', first.content.decode()
    )
    assert _inserts_into_review_items(queries) == []
    client.force_login(second_user)  # another annotator: a claim again, not a held pair
    with CaptureQueriesContext(connection) as second_queries:
        second = client.get("/judge/")
    assert second.status_code == 200 and re.search(
        r'data-item="[0-9a-f-]{36}"', second.content.decode()
    )
    # The sync the judging page used to run (2.5 s here against 60 ms for the next page) was
    # work the second page never does: the first runs no statement the second does not run
    # as often. Counted in statements, not seconds, so it holds at any machine speed or load.
    extra = Counter(_statements(queries)) - Counter(_statements(second_queries))
    assert not extra, list(extra)
    assert ReviewItem.objects.count() == 100


def _statements(queries: CaptureQueriesContext) -> list[str]:
    """The statements run, with their literal values and savepoint names blanked (users,
    items and savepoints differ from one request to the next)."""
    blank = re.compile(r"'[^']*'|\"s\d+_x\d+\"|\b\d+(\.\d+)?\b")
    return [blank.sub("?", q["sql"]) for q in queries.captured_queries]
