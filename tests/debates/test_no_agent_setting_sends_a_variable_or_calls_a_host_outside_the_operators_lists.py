"""No agent setting given through the API or the job form makes the server call a host outside
the operator's list or send an environment variable outside it.

A local listener records every request's headers and body. The operator lists the listener's
/v1 and a name that does not resolve. Many hostile agent configs are tried (other ports,
schemes, hosts that look like a listed one, credentials, other spellings of loopback, paths
outside the listed one, variables holding the server's secrets, extra_body fields, model
files): every one is refused before any request and creates no job. The configs that are
listed are run, and the listener then saw only the allowed variable's key, never another
variable's value.
"""

import os
from urllib.parse import urlsplit

import pytest

from debates.models import DebateJob
from debates.services import debate_job_run_inline

ALLOWED_KEY = "sk-allowed-key-0123456789abcdef"
OTHER_HOST = "http://allowed.example/v1"  # listed too; never resolves
MARKERS = {
    "SECRET_KEY": "env-secret-key-marker-0123456789",
    "openai_api_key": "env-lowercase-variant-marker-0123",
    "DREAM_VAR_DIR": "/env-var-dir-marker-0123456789",
    "CLOUD_ACCESS_KEY": "env-cloud-access-key-marker-0123",
}


@pytest.fixture
def secrets_env(monkeypatch):
    """The allowed key and a few secrets in the environment; DATABASE_URL and PATH as they
    are (a marker where DATABASE_URL is unset)."""
    monkeypatch.setenv("OPENAI_API_KEY", ALLOWED_KEY)
    for name, value in MARKERS.items():
        monkeypatch.setenv(name, value)
    if not os.environ.get("DATABASE_URL"):
        monkeypatch.setenv("DATABASE_URL", "postgres://marker-user:marker-pass@db:5432/x")


def _hostile_base_urls(listener) -> list[str]:
    port = urlsplit(listener.url).port
    return [
        f"http://127.0.0.1:{port + 1}/v1",  # another port
        f"https://127.0.0.1:{port}/v1",  # another scheme
        f"http://localhost:{port}/v1",  # the same listener under another name
        f"http://allowed.example@127.0.0.1:{port}/v1",
        f"http://127.0.0.1:{port}@allowed.example/v1",
        "http://allowed.example.evil/v1",
        f"http://allowed.example.evil:{port}/v1",
        f"http://localhost.:{port}/v1",  # a trailing dot on an unlisted name
        f"http://[::1]:{port}/v1",
        f"http://0x7f000001:{port}/v1",
        f"http://2130706433:{port}/v1",
        f"http://127.1:{port}/v1",
        f"HTTP://127.0.0.1:{port}/V1",  # the path compares as written
        f"http://127.0.0.1:{port}",  # above the listed path
        f"http://127.0.0.1:{port}/other/v1",
        f"http://127.0.0.1:{port}/v1/../admin",
        f"http://127.0.0.1:{port}/v1/%2e%2e/admin",
        f"http://127.0.0.1:{port}/v10",
        "http://169.254.169.254/latest/meta-data",
        "",  # https://api.openai.com/v1, not listed here
    ]


HOSTILE_KEY_ENVS = [
    "SECRET_KEY",
    "PATH",
    "DATABASE_URL",
    "openai_api_key",
    "DREAM_VAR_DIR",
    "CLOUD_ACCESS_KEY",
]
# With a listed endpoint and the allowed key: refused as invalid, or sent as plain values.
HOSTILE_EXTRAS = [
    {"api_key_env": "SECRET_KEY"},
    {"base_url": "http://localhost:1/v1"},
    {"api_base": "http://localhost:1/v1"},
    {"default_headers": {"Authorization": "Bearer $SECRET_KEY"}},
    {"extra_body": {"api_key": "x"}},
    {"extra_body": {"Authorization": "$SECRET_KEY"}},
]
SENT_AS_VALUES = [
    {"extra_body": {"user": "$SECRET_KEY ${DATABASE_URL} %PATH%"}},
    {"extra_body": {"base_url": "http://localhost:1/v1", "api_key_env": "SECRET_KEY"}},
]


def _leaks(listener) -> list[str]:
    """Names of environment variables (other than the allowed key's) whose value the
    listener saw; values shorter than 16 characters are too common to search for."""
    seen = listener.everything()
    return sorted(
        name
        for name, value in os.environ.items()
        if name != "OPENAI_API_KEY" and len(value) >= 16 and value in seen
    )


def _api_post(client, pool: int, agent: dict, **extra):
    body = {"pool": pool, "rounds": 1, "limit": 1, "agent_a": agent, **extra}
    return client.post("/api/v1/jobs", body, content_type="application/json")


@pytest.mark.django_db
def test_no_hostile_config_through_the_api_reaches_the_listener_or_makes_a_job(
    api_as, tiny_dataset, listener, settings, secrets_env, tmp_path
):
    settings.DREAM_LLM_ALLOWED_ENDPOINTS = [listener.base_url, OTHER_HOST]
    settings.DREAM_LLM_KEY_ENVS = ["OPENAI_API_KEY"]
    models = tmp_path / "models"
    models.mkdir()
    os.symlink("/etc/passwd", models / "passwd.gguf")
    os.symlink("/proc/self/environ", models / "environ.gguf")
    settings.DREAM_MODELS_DIR = str(models)
    client = api_as("admin")
    pool = tiny_dataset.pools.get().pk
    agents = [
        {"backend": "openai", "model": "x", "base_url": url} for url in _hostile_base_urls(listener)
    ]
    agents += [
        {"backend": "openai", "model": "x", "base_url": listener.base_url, "api_key_env": name}
        for name in HOSTILE_KEY_ENVS
    ]
    agents += [
        {"backend": "openai", "model": "x", "base_url": listener.base_url, **extra}
        for extra in HOSTILE_EXTRAS
    ]
    agents += [
        {"backend": "embedded", "model_path": path}
        for path in (
            "/etc/passwd",
            "/proc/self/environ",
            "../../../../../../etc/passwd",
            str(models / ".." / ".." / "etc" / "passwd"),
            str(models / "passwd.gguf"),
            str(models / "environ.gguf"),
            str(models),
        )
    ]
    for agent in agents:
        for extra in ({}, {"api_keys": {"A": "sk-typed-key-0123456789abcdef"}}):
            answer = _api_post(client, pool, agent, **extra)
            # 400: refused by the operator's lists; 422: a config that does not parse.
            assert answer.status_code in (400, 422), (agent, answer.content)
            text = answer.content.decode()
            assert "root:" not in text and "SECRET_KEY=" not in text, (agent, text)
        # A config refused for the agent B slot is refused as well.
        listed = {"backend": "openai", "model": "x", "base_url": listener.base_url}
        answer = _api_post(client, pool, listed, agent_b=agent)
        assert answer.status_code in (400, 422), (agent, answer.content)
        assert answer.json()["detail"].startswith(
            "agent B: " if answer.status_code == 400 else "agent_b."
        ), answer.content
    assert not DebateJob.objects.exists()
    assert listener.seen == []
    assert _leaks(listener) == []


@pytest.mark.django_db
def test_no_hostile_config_through_the_job_form_reaches_the_listener_or_makes_a_job(
    client_as, tiny_dataset, listener, settings, secrets_env
):
    settings.DREAM_LLM_ALLOWED_ENDPOINTS = [listener.base_url, OTHER_HOST]
    settings.DREAM_LLM_KEY_ENVS = ["OPENAI_API_KEY"]
    client = client_as("admin")
    listed = {"backend": "openai", "model": "x", "base_url": listener.base_url}
    attempts = [{"a_base_url": url} for url in _hostile_base_urls(listener) if url]
    attempts += [{"a_api_key_env": name} for name in HOSTILE_KEY_ENVS]
    attempts += [
        {"a_extra_body": '{"api_key": "x"}'},
        {"a_backend": "embedded", "a_model_path": "/etc/passwd"},
        {"a_backend": "embedded", "a_model_path": "../../../../etc/passwd"},
    ]
    for attempt in attempts:
        data = {
            "pool": str(tiny_dataset.pools.get().pk),
            "a_backend": "openai",
            "a_model": "x",
            "a_base_url": listener.base_url,
            "b_backend": "openai",
            "b_model": "x",
            "b_base_url": listed["base_url"],
            "rounds": "1",
            "judgments_per_pair": "1",
            "audit_percent": "0",
            "pair_limit": "1",
            **attempt,
        }
        answer = client.post("/jobs/new/", data)
        assert answer.status_code == 200, attempt
        errors = answer.context["form"].errors
        assert errors, attempt
        assert "root:" not in answer.content.decode(), attempt
    assert not DebateJob.objects.exists()
    assert listener.seen == []
    assert _leaks(listener) == []


@pytest.mark.django_db
def test_the_listed_configs_reach_the_listener_with_the_allowed_key_only(
    api_as, tiny_dataset, listener, settings, secrets_env, django_capture_on_commit_callbacks
):
    settings.DREAM_LLM_ALLOWED_ENDPOINTS = [listener.base_url, OTHER_HOST]
    settings.DREAM_LLM_KEY_ENVS = ["OPENAI_API_KEY"]
    client = api_as("admin")
    pool = tiny_dataset.pools.get().pk
    port = urlsplit(listener.url).port
    agents = [
        {"backend": "openai", "model": "x", "base_url": listener.base_url},
        {"backend": "openai", "model": "x", "base_url": f"HTTP://127.0.0.1:{port}/v1/"},
        {
            "backend": "openai",
            "model": "x",
            "base_url": listener.base_url,
            "api_key_env": "OPENAI_API_KEY",
        },
    ]
    agents += [
        {"backend": "openai", "model": "x", "base_url": listener.base_url, **extra}
        for extra in SENT_AS_VALUES
    ]
    for agent in agents:
        with django_capture_on_commit_callbacks(execute=False):
            # Every config is asked, even one equal to an earlier job's (no reuse).
            answer = _api_post(client, pool, agent, reuse=False)
        assert answer.status_code == 202, (agent, answer.content)
        debate_job_run_inline(job=DebateJob.objects.get(pk=answer.json()["id"]))
    chats = [s for s in listener.seen if s.path == "/v1/chat/completions"]
    assert len(chats) == 2 * len(agents)  # both agents agree in round 1 of each job
    assert {s.headers["authorization"] for s in chats} == {f"Bearer {ALLOWED_KEY}"}
    assert {s.headers.get("authorization") for s in listener.seen} <= {f"Bearer {ALLOWED_KEY}"}
    # extra_body is sent as it is: the text, never a variable's value.
    assert '"user":"$SECRET_KEY ${DATABASE_URL} %PATH%"' in listener.everything()
    assert _leaks(listener) == []
