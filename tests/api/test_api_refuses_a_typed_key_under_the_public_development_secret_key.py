"""POST /api/v1/jobs with ``api_keys`` while SECRET_KEY is the public development key: refused
(400 naming the field and why), no job, as the job form refuses it. The key would be stored
encrypted under a key printed in config/settings.py, so anyone reading the database could read
it back. With a SECRET_KEY of the operator's own the same request makes the job."""

import pytest

from debates.api_keys import api_keys_decrypt
from debates.models import DebateJob
from tests.fixtures.llm_policy import llm_endpoints_allow

TYPED = "sk-typed-over-the-api-0123456789"
ENDPOINT = "http://127.0.0.1:9/v1"  # listed; never reached (the job is not run)


def _body(pool: int) -> dict:
    return {
        "pool": pool,
        "rounds": 1,
        "limit": 1,
        "agent_a": {"backend": "openai", "model": "x", "base_url": ENDPOINT},
        "api_keys": {"A": TYPED},
    }


@pytest.mark.django_db
def test_a_typed_key_is_refused_under_the_development_secret_key(
    api_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    llm_endpoints_allow(settings, ENDPOINT)
    settings.SECRET_KEY_IS_DEVELOPMENT = True
    with django_capture_on_commit_callbacks(execute=False):
        answer = api_as("admin").post(
            "/api/v1/jobs", _body(tiny_dataset.pools.get().pk), content_type="application/json"
        )
    assert answer.status_code == 400, answer.content
    assert answer.json()["detail"] == (
        "api_keys: not stored: SECRET_KEY is the public development key, so an encrypted key "
        "would not be protected; set SECRET_KEY, or give the name of an environment variable "
        "holding the key instead"
    )
    assert TYPED not in answer.content.decode()
    assert not DebateJob.objects.exists()


@pytest.mark.django_db
def test_a_typed_key_is_stored_encrypted_under_the_operators_secret_key(
    api_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    llm_endpoints_allow(settings, ENDPOINT)
    settings.SECRET_KEY = "a-private-secret-key-for-this-test-0123456789"
    settings.SECRET_KEY_IS_DEVELOPMENT = False
    with django_capture_on_commit_callbacks(execute=False):
        answer = api_as("admin").post(
            "/api/v1/jobs", _body(tiny_dataset.pools.get().pk), content_type="application/json"
        )
    assert answer.status_code == 202, answer.content
    job = DebateJob.objects.get()
    assert TYPED not in job.api_keys_encrypted
    # Agent B, as agent A, takes its key (debates.services.launch._keys_encrypt).
    assert api_keys_decrypt(token=job.api_keys_encrypted) == {"A": TYPED, "B": TYPED}
