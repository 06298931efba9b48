"""A job launched over the API against a listed endpoint, paused; the operator then takes the
endpoint off DREAM_LLM_ALLOWED_ENDPOINTS. A new job naming it is refused, and so is running the
old one again: resume and retry-failed over the API answer 409 naming the setting, the job
page's buttons say the same, the job stays paused and the endpoint gets no request. Listed
again, the job resumes and reaches it."""

import pytest
from django.utils.html import escape

from debates.models import Debate, DebateJob
from debates.services import debate_job_run_inline
from tests.fixtures.llm_policy import llm_endpoints_allow

KEY = "sk-allowed-0123456789-abcdef"


def _body(pool: int, agent: dict) -> dict:
    return {"pool": pool, "rounds": 1, "limit": 1, "agent_a": agent, "reuse": False}


@pytest.fixture
def paused(
    api_as, tiny_dataset, listener, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """(admin API client, the paused job's id, the listener, the refusal's words)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    llm_endpoints_allow(settings, listener.base_url)
    client = api_as("admin")
    agent = {"backend": "openai", "model": "x", "base_url": listener.base_url}
    with django_capture_on_commit_callbacks(execute=False):
        answer = client.post(
            "/api/v1/jobs",
            _body(tiny_dataset.pools.get().pk, agent),
            content_type="application/json",
        )
    assert answer.status_code == 202, answer.content
    job_id = answer.json()["id"]
    assert client.post(f"/api/v1/jobs/{job_id}/pause").status_code == 200
    settings.DREAM_LLM_ALLOWED_ENDPOINTS = ["https://api.openai.com/v1"]
    refusal = (
        f"agent A: base_url {listener.base_url} is not one of the endpoints the server's "
        "operator allows (DREAM_LLM_ALLOWED_ENDPOINTS)"
    )
    return client, job_id, listener, refusal


@pytest.mark.django_db
def test_the_api_refuses_to_resume_or_retry_a_withdrawn_endpoint(
    paused, django_capture_on_commit_callbacks
):
    client, job_id, listener, refusal = paused
    Debate.objects.filter(job_id=job_id).update(status=Debate.Status.FAILED, attempts=3)
    for action in ("resume", "retry-failed"):
        with django_capture_on_commit_callbacks(execute=False) as sent:
            answer = client.post(f"/api/v1/jobs/{job_id}/{action}")
        assert (answer.status_code, answer.json()["detail"]) == (409, refusal), action
        assert sent == []
    job = DebateJob.objects.get(pk=job_id)
    assert job.status == DebateJob.Status.PAUSED
    assert set(Debate.objects.filter(job=job).values_list("status", flat=True)) == {"failed"}
    assert listener.seen == []


@pytest.mark.django_db
def test_the_job_page_refuses_to_resume_a_withdrawn_endpoint(paused, client_as):
    _, job_id, listener, refusal = paused
    html = client_as("admin").post(f"/jobs/{job_id}/resume/", follow=True).content.decode()
    assert escape(refusal) in html
    assert DebateJob.objects.get(pk=job_id).status == DebateJob.Status.PAUSED
    assert listener.seen == []


@pytest.mark.django_db
def test_listed_again_the_job_resumes_and_reaches_the_endpoint(
    paused, settings, django_capture_on_commit_callbacks
):
    client, job_id, listener, _ = paused
    llm_endpoints_allow(settings, listener.base_url)
    with django_capture_on_commit_callbacks(execute=False):
        assert client.post(f"/api/v1/jobs/{job_id}/resume").status_code == 200
    debate_job_run_inline(job=DebateJob.objects.get(pk=job_id))
    chats = [s for s in listener.seen if s.path == "/v1/chat/completions"]
    assert [s.headers["authorization"] for s in chats] == [f"Bearer {KEY}"] * 2
