"""An API key typed in the job form: stored only encrypted (Fernet, keyed from SECRET_KEY),
never rendered back, never in the config, the job page or the admin; decrypted by the worker,
so the real server (behind a proxy that records the Authorization header) gets that key; a
key that can no longer be decrypted fails the debate at once with a clear message."""

import json

import pytest
from django.db import connection

from debates.api_keys import api_keys_decrypt
from debates.models import DebateJob
from debates.services import debate_job_run_inline, debate_run
from tests.fixtures.llm import SERVER_MODEL_ALIAS
from tests.fixtures.llm_policy import llm_endpoints_allow

SECRET = "sk-form-0123456789-SECRET"


@pytest.fixture(autouse=True)
def _a_private_secret_key(settings):
    # Typed keys are stored only under a SECRET_KEY of one's own (see the last test).
    settings.SECRET_KEY = "a-private-secret-key-for-these-tests-0123456789"
    settings.SECRET_KEY_IS_DEVELOPMENT = False


@pytest.fixture(autouse=True)
def _the_operator_lists_the_test_servers(settings):
    llm_endpoints_allow(settings, "https://api.example.test/v1", "http://127.0.0.1:9/v1")


def _form(pool_id: int, base_url: str, **overrides) -> dict:
    data = {
        "pool": str(pool_id),
        "a_backend": "openai",
        "a_model": SERVER_MODEL_ALIAS,
        "a_base_url": base_url,
        "a_api_key": SECRET,
        "a_context_window": "2048",
        "a_timeout": "300",
        "b_backend": "openai",
        "b_model": SERVER_MODEL_ALIAS,
        "b_base_url": base_url,
        "b_context_window": "2048",
        "b_timeout": "300",
        "rounds": "1",
        "judgments_per_pair": "1",
        "audit_percent": "0",
        "pair_limit": "1",
    }
    data.update(overrides)
    return data


def _row_text(job_id: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM debates_debatejob WHERE id = %s", [job_id])
        return repr(cursor.fetchone())


@pytest.mark.django_db
def test_the_key_is_stored_only_encrypted_and_never_shown(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    pool = tiny_dataset.pools.get()
    form = _form(pool.pk, "https://api.example.test/v1", b_api_key="")

    refused = client.post("/jobs/new/", {**form, "rounds": "9"})  # shown again with an error
    assert refused.status_code == 200 and SECRET not in refused.content.decode()
    assert 'name="a_api_key"' in refused.content.decode()
    with django_capture_on_commit_callbacks(execute=False):
        client.post("/jobs/new/", form)

    job = DebateJob.objects.get()
    assert job.agent_a == {
        "backend": "openai",
        "model": SERVER_MODEL_ALIAS,
        "base_url": "https://api.example.test/v1",
        "api_key_env": "OPENAI_API_KEY",
        "timeout": 300.0,
        "context_window": 2048,
    }
    assert SECRET not in _row_text(job.pk)
    assert job.api_keys_encrypted.startswith("gAAAAA")  # a Fernet token
    # Agent B left its key empty and uses the same server: it takes agent A's key.
    assert api_keys_decrypt(token=job.api_keys_encrypted) == {"A": SECRET, "B": SECRET}
    for url in (
        f"/jobs/{job.pk}/",
        "/jobs/",
        f"/admin/debates/debatejob/{job.pk}/change/",
        "/admin/debates/debatejob/",
    ):
        page = client.get(url)
        assert page.status_code == 200, url
        assert SECRET not in page.content.decode(), url
        assert job.api_keys_encrypted not in page.content.decode(), url
    assert SECRET not in json.dumps([job.agent_a, job.agent_b, job.note])


@pytest.mark.django_db
def test_a_job_launched_with_a_key_in_the_form_reaches_the_server_with_that_key(
    client_as,
    tiny_dataset,
    recording_proxy,
    monkeypatch,
    settings,
    django_capture_on_commit_callbacks,
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    llm_endpoints_allow(settings, recording_proxy.base_url)
    client = client_as("admin")
    pool = tiny_dataset.pools.get()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        answer = client.post("/jobs/new/", _form(pool.pk, recording_proxy.base_url))
    assert answer.status_code == 302
    assert len(callbacks) == 1  # no broker: handed to a background thread; run it here
    job = DebateJob.objects.get()

    debate_job_run_inline(job=job)

    debate = job.debates.get()
    assert debate.status in ("agreed", "escalated"), debate.last_error
    chats = recording_proxy.chat_requests()
    assert len(chats) >= 2
    assert {r["authorization"] for r in chats} == {f"Bearer {SECRET}"}


@pytest.mark.django_db
def test_a_key_that_can_no_longer_be_decrypted_fails_the_debate_at_once(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    with django_capture_on_commit_callbacks(execute=False):
        client.post("/jobs/new/", _form(tiny_dataset.pools.get().pk, "http://127.0.0.1:9/v1"))
    job = DebateJob.objects.get()
    settings.SECRET_KEY = "another-secret-key-" + "x" * 40

    debate = debate_run(debate_id=job.debates.get().pk, requeue=False)

    assert (debate.status, debate.attempts) == ("failed", 1)
    assert debate.last_error == (
        "ApiKeyError: the API key typed in the job form cannot be decrypted (SECRET_KEY "
        "changed?): launch the job again with the key, or give it through the environment"
    )


@pytest.mark.django_db
def test_a_typed_key_is_refused_under_the_public_development_secret_key(
    client_as, tiny_dataset, settings
):
    settings.SECRET_KEY_IS_DEVELOPMENT = True
    client = client_as("admin")
    pool = tiny_dataset.pools.get()
    page = client.post("/jobs/new/", _form(pool.pk, "https://api.example.test/v1"))
    text = page.content.decode()
    assert page.status_code == 200
    assert "SECRET_KEY is the public development key" in text
    assert SECRET not in text
    assert not DebateJob.objects.exists()
