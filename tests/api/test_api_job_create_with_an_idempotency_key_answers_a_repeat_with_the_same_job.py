"""``POST /api/v1/jobs`` with an ``Idempotency-Key`` header: the first request creates the
job; a repeat with the same key and body from the same user gets the same status and body
and creates nothing; the same key with another body is a 409 naming the key; another user's
key of the same name is theirs; a malformed key is a 422 naming the header."""

import pytest
from django.test import Client

from core.tokens import api_token_create
from debates.models import DebateJob, JobIdempotencyKey
from tests.fixtures.ui import _make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_run(settings):
    # The jobs are only counted here: they are queued after a commit that never comes.
    settings.CELERY_TASK_ALWAYS_EAGER = False


def _post(client, body: dict, key: str | None):
    headers = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
    return client.post("/api/v1/jobs", body, content_type="application/json", **headers)


def test_a_repeat_with_the_same_key_and_body_answers_the_same_job(api_as, tiny_dataset):
    client = api_as("admin")
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1, "note": "first"}

    first = _post(client, body, "order-1")
    again = _post(client, dict(reversed(body.items())), "order-1")

    assert first.status_code == again.status_code == 202, first.content
    assert again.json() == first.json()
    job = DebateJob.objects.get()
    assert first.json()["id"] == job.pk
    stored = JobIdempotencyKey.objects.get()
    assert (stored.key, stored.user, stored.job) == ("order-1", client.user, job)


def test_the_same_key_with_another_body_is_refused_naming_the_key(api_as, tiny_dataset):
    client = api_as("admin")
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1}
    job = _post(client, body, "order-2").json()

    refused = _post(client, {**body, "rounds": 2}, "order-2")

    assert refused.status_code == 409
    assert refused.json()["detail"] == (
        f"Idempotency-Key 'order-2' was used for another request (job {job['id']}); send a "
        "new key for a new job"
    )
    assert DebateJob.objects.count() == 1


def test_another_users_key_of_the_same_name_is_their_own(api_as, tiny_dataset):
    _, token = api_token_create(user=_make_user("admin", "second-admin"), name="tests")
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1, "allow_duplicate": True}
    mine = _post(api_as("admin"), body, "shared-name")
    theirs = _post(Client(HTTP_AUTHORIZATION=f"Bearer {token}"), body, "shared-name")

    assert mine.status_code == theirs.status_code == 202
    assert mine.json()["id"] != theirs.json()["id"]
    assert DebateJob.objects.count() == 2


@pytest.mark.parametrize("key", ["", "x" * 201, "caf\u00e9", "line\nbreak"])
def test_a_malformed_key_is_refused_naming_the_header(api_as, tiny_dataset, key):
    client = api_as("admin")
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1}

    refused = _post(client, body, key)

    assert refused.status_code == 422, refused.content
    assert refused.json()["detail"].startswith(
        "Idempotency-Key: 1 to 200 printable ASCII characters, got"
    )
    assert DebateJob.objects.count() == 0


def test_a_refused_launch_stores_no_key_so_a_corrected_repeat_is_not_held_to_it(
    api_as, tiny_dataset
):
    client = api_as("admin")
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1, "gold_share": 0.9}

    assert _post(client, body, "order-3").status_code == 422  # gold share over its range
    assert JobIdempotencyKey.objects.count() == 0
    assert _post(client, {**body, "gold_share": 0.1}, "order-3").status_code == 202


@pytest.mark.parametrize(
    "sent",
    [
        "\u00e9",  # as a test client hands it over
        "\u00e9".encode().decode("latin-1"),  # as WSGI hands over its UTF-8 bytes (PEP 3333)
    ],
)
def test_a_non_ascii_key_is_a_422_counting_characters_not_bytes(api_as, tiny_dataset, sent):
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1}

    refused = _post(api_as("admin"), body, sent)

    message = (
        "1 to 200 printable ASCII characters, got 1 character(s): '\u00e9' is not printable ASCII"
    )
    assert refused.status_code == 422, refused.content
    assert refused.json() == {
        "detail": f"Idempotency-Key: {message}",
        "errors": [
            {
                "field": "Idempotency-Key",
                "message": message,
                "type": "value_error",
                "loc": ["header", "Idempotency-Key"],
            }
        ],
    }
    assert DebateJob.objects.count() == 0


def test_a_repeat_whose_stored_answer_predates_a_new_field_gets_the_job_not_a_500(
    api_as, tiny_dataset
):
    # An answer stored before JobOut gained max_tokens_cap_applied no longer validates as
    # JobOut: the repeat answers the job as it is now, never a server error.
    client = api_as("admin")
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1}
    first = _post(client, body, "order-old")
    stored = JobIdempotencyKey.objects.get()
    stored.response = {k: v for k, v in stored.response.items() if k != "max_tokens_cap_applied"}
    stored.save()
    again = _post(client, body, "order-old")
    assert again.status_code == 202, again.content
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["max_tokens_cap_applied"] == first.json()["max_tokens_cap_applied"]
    assert DebateJob.objects.count() == 1
