"""Schemathesis, a property-based fuzzer, sends requests made from ``/api/v1/openapi.json``
to EVERY route (reads and writes, with an admin token; the judging routes, an annotator's
alone, with an annotator's) and fails on any of its checks: no
5xx, every status and content type declared, every body matching its declared schema,
invalid input refused, valid input accepted, no route answering without a token, a JSON
405 with ``Allow`` for a method a path does not take.

The app runs in-process (WSGI) against the test database, seeded with a dataset (with
runs, a pool, a debate job and a refined qrel set) that the generated requests often name.
The seed is fixed and the examples per route bounded, so a run is repeatable and short.
"Valid input accepted" takes 400 and 409 as answers too: a request the schema allows may
still be refused by the service (a pool that is not the dataset's, a job that is not
paused), with a message naming why.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig

CONFIG = SchemathesisConfig.from_str(
    """
seed = 31

[generation]
max-examples = 12

[checks.positive_data_acceptance]
expected-statuses = ["2xx", "400", "401", "403", "404", "409"]
"""
)
# The document as the server serves it; every request, the checks' own too, goes to the
# app in-process.
schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", WSGIHandler(), config=CONFIG)
# Names and ids of the seeded rows, filled by the ``seeded`` fixture before any request is
# generated: path parameters and body fields are drawn from them half of the time.
KNOWN: dict[str, list[Any]] = {}


def _known(generated: dict[str, Any] | None, fields: set[str]) -> st.SearchStrategy:
    """``generated``, or it with some of ``fields`` set to seeded values."""
    generated = dict(generated or {})
    known = {k: st.sampled_from(KNOWN[k]) for k in generated if k in KNOWN and k in fields}
    if not known:
        return st.just(generated)
    replaced = st.fixed_dictionaries(known).map(lambda values: {**generated, **values})
    return st.one_of(st.just(generated), replaced)


@schema.hook
def flatmap_case(context, case):
    # A case made to be invalid stays as generated: a seeded value could make it valid.
    meta = case._meta
    if meta is not None and meta.generation.mode.is_negative:
        return st.just(case)
    body_fields = {"pool", "runs", "qrels", "name"}
    body = case.body if isinstance(case.body, dict) else None

    def with_known(values: tuple[dict[str, Any], dict[str, Any]]):
        path, new_body = values
        case.path_parameters = path
        if body is not None:
            case.body = new_body
        return case

    return st.tuples(_known(case.path_parameters, set(KNOWN)), _known(body, body_fields)).map(
        with_known
    )


@pytest.fixture(name="seeded")
def seeded_fixture(refined, var_dir, settings):
    """The refined ``holes`` world (tests.fixtures.refine), an annotator and an admin token;
    fills KNOWN and answers ``{"admin": headers, "annotator": headers}``, each with its
    user's ``Authorization`` header. Requests run in this
    test's transaction: the signals that would close its connection are held off, as
    Django's test client does."""
    from core.tokens import api_token_create
    from tests.fixtures.ui import FAST_HASHERS, _make_user

    settings.PASSWORD_HASHERS = FAST_HASHERS
    admin = _make_user("admin")
    annotator = _make_user("annotator")
    _, token = api_token_create(user=admin, name="schemathesis")
    _, judging = api_token_create(user=annotator, name="schemathesis")
    KNOWN.clear()
    KNOWN.update(
        slug=[refined.dataset.slug],
        name=["test", refined.refined.name, "alpha"],
        runs=[["alpha"], ["alpha", "beta"]],
        qrels=["test"],
        pool=[refined.pool.pk],
        job_id=[refined.job.pk],
        username=[annotator.get_username()],
        kind=["labels", "trec"],
    )
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield {
            "admin": {"Authorization": f"Bearer {token}"},
            "annotator": {"Authorization": f"Bearer {judging}"},
        }
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
def test_every_route_passes_every_check(case, seeded):
    role = "annotator" if case.path.startswith("/api/v1/review/") else "admin"
    case.call_and_validate(headers=seeded[role])
