"""A job launched over the API against a listed endpoint keeps running (queued, or continued
later) after the operator takes the endpoint off DREAM_LLM_ALLOWED_ENDPOINTS and restarts the
workers. The workers ask the settings as they are before they call: the run makes no request,
writes no label, leaves every debate pending with no attempt counted, and pauses the job with
a note naming the agent, the field and the setting (on the API and the job page). Listed again,
it resumes and reaches the endpoint. A job a command launched with an endpoint of its own (the
operator's) is never held to the list."""

import pytest
from django.utils.html import escape

from debates.llm.config import AgentConfig
from debates.models import Debate, DebateJob
from debates.services import debate_job_run_inline
from debates.services.launch import JobSpec, debate_job_launch
from debates.services.run import debate_run
from tests.fixtures.llm_policy import llm_endpoints_allow

KEY = "sk-allowed-0123456789-abcdef"


@pytest.fixture
def withdrawn(
    api_as, tiny_dataset, listener, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """(admin API client, the running job's id, the listener, the refusal's words): a job
    launched over the API while the listener was listed, the listener withdrawn since."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    llm_endpoints_allow(settings, listener.base_url)
    client = api_as("admin")
    agent = {"backend": "openai", "model": "x", "base_url": listener.base_url}
    body = {"pool": tiny_dataset.pools.get().pk, "rounds": 1, "agent_a": agent, "reuse": False}
    with django_capture_on_commit_callbacks(execute=False):  # no background run yet
        answer = client.post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 202, answer.content
    job_id = answer.json()["id"]
    assert DebateJob.objects.get(pk=job_id).launched_from == DebateJob.LaunchedFrom.WEB
    settings.DREAM_LLM_ALLOWED_ENDPOINTS = ["https://api.openai.com/v1"]
    refusal = (
        f"agent A: base_url {listener.base_url} is not one of the endpoints the server's "
        "operator allows (DREAM_LLM_ALLOWED_ENDPOINTS)"
    )
    return client, job_id, listener, refusal


def _assert_stopped_untouched(job_id: int, refusal: str) -> None:
    job = DebateJob.objects.get(pk=job_id)
    assert job.status == DebateJob.Status.PAUSED
    assert job.stop_note == refusal
    rows = Debate.objects.filter(job=job).values_list(
        "status", "attempts", "calls", "final_label", "last_error", "lease_token"
    )
    assert set(rows) == {("pending", 0, 0, None, "", "")}


@pytest.mark.django_db
def test_an_in_process_run_makes_no_call_and_pauses_the_job_saying_why(withdrawn, client_as):
    client, job_id, listener, refusal = withdrawn
    debate_job_run_inline(job=DebateJob.objects.get(pk=job_id))
    assert listener.seen == []
    _assert_stopped_untouched(job_id, refusal)
    warnings = client.get(f"/api/v1/jobs/{job_id}").json()["warnings"]
    assert warnings[0] == f"paused by the workers, resumable once allowed: {refusal}"
    html = client_as("researcher").get(f"/jobs/{job_id}/").content.decode()
    assert escape(refusal) in html


@pytest.mark.django_db
def test_a_worker_given_one_queued_debate_makes_no_call(withdrawn):
    _, job_id, listener, refusal = withdrawn
    first, second = Debate.objects.filter(job_id=job_id).order_by("pk")
    assert debate_run(debate_id=first.pk, requeue=False).status == Debate.Status.PENDING
    # The job is paused now: the next queued debate is not even claimed.
    assert debate_run(debate_id=second.pk, requeue=False).status == Debate.Status.PENDING
    assert listener.seen == []
    _assert_stopped_untouched(job_id, refusal)


@pytest.mark.django_db
def test_listed_again_the_stopped_job_resumes_and_reaches_the_endpoint(
    withdrawn, settings, django_capture_on_commit_callbacks
):
    client, job_id, listener, _ = withdrawn
    debate_job_run_inline(job=DebateJob.objects.get(pk=job_id))
    llm_endpoints_allow(settings, listener.base_url)
    with django_capture_on_commit_callbacks(execute=False):
        assert client.post(f"/api/v1/jobs/{job_id}/resume").status_code == 200
    assert DebateJob.objects.get(pk=job_id).stop_note == ""
    debate_job_run_inline(job=DebateJob.objects.get(pk=job_id))
    assert [s for s in listener.seen if s.path == "/v1/chat/completions"]
    statuses = set(Debate.objects.filter(job_id=job_id).values_list("status", flat=True))
    assert statuses == {"agreed"}
    assert DebateJob.objects.get(pk=job_id).status == DebateJob.Status.FINISHED


@pytest.mark.django_db
def test_a_job_a_command_launched_runs_on_an_endpoint_of_its_own(
    tiny_dataset, listener, settings, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    settings.DREAM_LLM_ALLOWED_ENDPOINTS = ["https://api.openai.com/v1"]
    agent = AgentConfig.load({"backend": "openai", "model": "x", "base_url": listener.base_url})
    spec = JobSpec(pool=tiny_dataset.pools.get(), agent_a=agent, rounds=1, reuse=False)
    job = debate_job_launch(spec=spec)  # as run_debates, evaluate_assessor, the pipeline
    assert job.launched_from == DebateJob.LaunchedFrom.COMMAND
    debate_job_run_inline(job=job)
    assert [s for s in listener.seen if s.path == "/v1/chat/completions"]
    job.refresh_from_db()
    assert (job.status, job.stop_note) == (DebateJob.Status.FINISHED, "")
    assert set(Debate.objects.filter(job=job).values_list("status", flat=True)) == {"agreed"}


@pytest.mark.django_db
def test_jobs_made_before_the_field_are_a_commands_only_without_a_creator(tiny_dataset, api_as):
    # The browser and the API always record the signed-in user; the commands leave the
    # creator empty (run_debates records one only with --user).
    import importlib

    from django.apps import apps

    migration = importlib.import_module(
        "debates.migrations.0026_debate_job_launched_from_stop_note"
    )
    pool = tiny_dataset.pools.get()
    user = api_as("admin").user
    made = {
        who: DebateJob.objects.create(pool=pool, agent_a={}, agent_b={}, created_by=who)
        for who in (None, user)
    }
    migration.commands_mark(apps, None)
    assert DebateJob.objects.get(pk=made[None].pk).launched_from == "command"
    assert DebateJob.objects.get(pk=made[user].pk).launched_from == "web"
