"""An openai agent without a context window asks its server for one: ``GET {base_url}/models``
and llama.cpp's ``GET /props``, which lies beside ``/v1``, outside a listed ``.../v1``. The
probe asks ``/props`` (with the key, as llama.cpp's ``--api-key`` wants) only where
DREAM_LLM_ALLOWED_ENDPOINTS lists that URL: an operator who listed only
``http://127.0.0.1:P/v1`` sees no request, and no key, anywhere but below ``/v1``."""

import pytest

from debates.llm.config import AgentConfig
from debates.llm.registry import client_from_config
from debates.models import DebateJob
from debates.services import backends, debate_job_run_inline
from tests.fixtures.llm_policy import llm_endpoints_allow

KEY = "sk-allowed-0123456789-abcdef"
PROPS = {"default_generation_settings": {"n_ctx": 4096}}  # what llama.cpp's server says


def _agent(listener, model: str = "x") -> dict:
    # A model name per test: clients are cached per config, and a port may come round again.
    return {"backend": "openai", "model": model, "base_url": listener.base_url}


@pytest.mark.django_db
def test_a_job_against_a_server_listed_at_v1_sends_nothing_beside_v1(
    api_as, tiny_dataset, listener, settings, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    llm_endpoints_allow(settings, listener.base_url)  # http://127.0.0.1:P/v1 only
    listener.replies["/props"] = PROPS
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1, "limit": 1, "reuse": False}
    with django_capture_on_commit_callbacks(execute=False):
        answer = api_as("admin").post(
            "/api/v1/jobs", {**body, "agent_a": _agent(listener)}, content_type="application/json"
        )
    assert answer.status_code == 202, answer.content

    debate_job_run_inline(job=DebateJob.objects.get(pk=answer.json()["id"]))

    paths = [s.path for s in listener.seen]
    assert "/v1/models" in paths and "/v1/chat/completions" in paths
    assert [p for p in paths if not p.startswith("/v1/")] == []


def test_a_listed_server_root_lets_the_probe_read_llamacpps_props_with_the_key(
    listener, settings, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    llm_endpoints_allow(settings, listener.url)  # the root: /v1 and /props
    listener.replies["/props"] = PROPS

    client = backends.agent_client_get(config=AgentConfig.load(_agent(listener, "root")))

    assert (client.context_window, client.context_source) == (4096, "server")
    asked = [(s.method, s.path, s.headers.get("authorization")) for s in listener.seen]
    assert asked == [("GET", "/v1/models", f"Bearer {KEY}"), ("GET", "/props", f"Bearer {KEY}")]


def test_the_setting_is_read_when_the_probe_runs(listener, settings, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    llm_endpoints_allow(settings, listener.url)
    listener.replies["/props"] = PROPS
    client = backends.agent_client_get(config=AgentConfig.load(_agent(listener, "late")))
    settings.DREAM_LLM_ALLOWED_ENDPOINTS = [listener.base_url]  # the root withdrawn

    assert (client.context_window, client.context_source) == (8192, "default")
    assert [s.path for s in listener.seen] == ["/v1/models"]


def test_a_client_built_without_a_rule_never_asks_props(listener, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    listener.replies["/props"] = PROPS

    client = client_from_config(AgentConfig.load(_agent(listener)))

    assert (client.context_window, client.context_source) == (8192, "default")
    assert [s.path for s in listener.seen] == ["/v1/models"]
