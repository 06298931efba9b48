"""POST /api/v1/jobs with an agent whose base_url is a local listener the operator did not list
and whose api_key_env names SECRET_KEY: a 400 naming the setting, no job, and the listener gets
no request at all. Listed by the operator, the same listener is reached, with the allowed
variable's key."""

import pytest

from debates.models import Debate, DebateJob
from debates.services import debate_job_run_inline
from tests.fixtures.llm_policy import llm_endpoints_allow

SECRET_VALUE = "env-secret-key-value-0123456789"


def _body(pool: int, agent: dict) -> dict:
    return {"pool": pool, "rounds": 1, "limit": 1, "agent_a": agent}


@pytest.mark.django_db
def test_an_unlisted_listener_and_secret_key_are_refused_before_any_request(
    api_as, tiny_dataset, listener, monkeypatch
):
    monkeypatch.setenv("SECRET_KEY", SECRET_VALUE)
    agent = {
        "backend": "openai",
        "model": "x",
        "base_url": listener.base_url,
        "api_key_env": "SECRET_KEY",
    }
    answer = api_as("admin").post(
        "/api/v1/jobs", _body(tiny_dataset.pools.get().pk, agent), content_type="application/json"
    )
    assert answer.status_code == 400
    assert answer.json()["detail"] == (
        f"agent A: base_url {listener.base_url} is not one of the endpoints the server's "
        "operator allows (DREAM_LLM_ALLOWED_ENDPOINTS)"
    )
    assert (DebateJob.objects.count(), Debate.objects.count()) == (0, 0)
    assert listener.seen == []


@pytest.mark.django_db
def test_a_listed_endpoint_with_secret_key_is_refused_naming_the_key_setting(
    api_as, tiny_dataset, listener, settings, monkeypatch
):
    monkeypatch.setenv("SECRET_KEY", SECRET_VALUE)
    llm_endpoints_allow(settings, listener.base_url)
    agent = {
        "backend": "openai",
        "model": "x",
        "base_url": listener.base_url,
        "api_key_env": "SECRET_KEY",
    }
    answer = api_as("admin").post(
        "/api/v1/jobs", _body(tiny_dataset.pools.get().pk, agent), content_type="application/json"
    )
    assert answer.status_code == 400
    assert answer.json()["detail"] == (
        "agent A: api_key_env is not one of the variables the server's operator allows for "
        "keys (DREAM_LLM_KEY_ENVS: OPENAI_API_KEY)"
    )
    assert SECRET_VALUE not in answer.content.decode()
    assert not DebateJob.objects.exists()
    assert listener.seen == []


@pytest.mark.django_db
def test_agent_b_is_checked_too(api_as, tiny_dataset, listener, settings):
    llm_endpoints_allow(settings, listener.base_url)
    allowed = {"backend": "openai", "model": "x", "base_url": listener.base_url}
    body = {
        **_body(tiny_dataset.pools.get().pk, allowed),
        "agent_b": {**allowed, "base_url": "http://127.0.0.1:9/v1"},
    }
    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 400
    assert answer.json()["detail"].startswith("agent B: base_url http://127.0.0.1:9/v1 is not")
    assert not DebateJob.objects.exists()


@pytest.mark.django_db
def test_a_listed_listener_is_reached_with_the_allowed_variables_key(
    api_as, tiny_dataset, listener, settings, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-allowed-0123456789")
    llm_endpoints_allow(settings, listener.base_url)
    agent = {"backend": "openai", "model": "x", "base_url": listener.base_url}
    with django_capture_on_commit_callbacks(execute=False):
        answer = api_as("admin").post(
            "/api/v1/jobs",
            _body(tiny_dataset.pools.get().pk, agent),
            content_type="application/json",
        )
    assert answer.status_code == 202, answer.content
    job = DebateJob.objects.get()
    assert job.agent_a["api_key_env"] == "OPENAI_API_KEY"

    debate_job_run_inline(job=job)

    chats = [s for s in listener.seen if s.path == "/v1/chat/completions"]
    assert len(chats) == 2  # both agents agree in round 1
    assert {s.headers["authorization"] for s in chats} == {"Bearer sk-allowed-0123456789"}
