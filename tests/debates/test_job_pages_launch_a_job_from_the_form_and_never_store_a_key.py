"""An admin launches a debate job from the form: pool, backend and model per agent, rounds,
judgments per escalated pair, audit share, pair limit. The API key is the NAME of the variable
holding it, or typed in the key field (kept only encrypted, see
test_job_form_api_key_is_stored_encrypted_and_reaches_the_server); no key is ever stored in
the config or shown."""

import json

from debates.models import Debate, DebateJob
from tests.fixtures.llm_policy import llm_endpoints_allow, llm_key_envs_allow

SECRET = "sk-proj-SECRET-0123456789"


def _form(pool_id: int, **overrides) -> dict:
    data = {
        "pool": str(pool_id),
        "a_backend": "embedded",
        "b_backend": "embedded",
        "rounds": "1",
        "judgments_per_pair": "2",
        "audit_percent": "5",
        "pair_limit": "1",
        "note": "first try",
    }
    data.update(overrides)
    return data


def test_a_valid_form_creates_the_job_starts_it_and_opens_its_page(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # a broker would get the debates; none runs here
    client = client_as("admin")
    pool = tiny_dataset.pools.get()
    form_page = client.get("/jobs/new/")
    assert form_page.status_code == 200
    assert 'name="a_api_key_env"' in form_page.content.decode()
    with django_capture_on_commit_callbacks(execute=False) as sent:
        answer = client.post("/jobs/new/", _form(pool.pk))
    job = DebateJob.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == f"/jobs/{job.pk}/"
    assert (job.rounds, job.judgments_per_pair, job.audit_share, job.pair_limit) == (
        1,
        2,
        0.05,
        1,
    )
    assert (
        job.agent_a
        == job.agent_b
        == {
            "backend": "embedded",
            "model": "SmolLM2-135M-Instruct-Q4_1",
            "n_ctx": 2048,
        }
    )
    assert (job.status, job.note, job.created_by.username) == ("running", "first try", "admin")
    assert job.started is not None
    assert Debate.objects.filter(job=job).count() == 1
    assert len(sent) == 1  # the debates are enqueued once the transaction commits


def test_without_a_broker_the_job_is_handed_to_a_background_thread_after_commit(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    client = client_as("admin")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        answer = client.post("/jobs/new/", _form(tiny_dataset.pools.get().pk))
    assert answer.status_code == 302
    assert [cb.__qualname__ for cb in callbacks] == [
        "debate_job_run_in_background.<locals>.<lambda>"
    ]


def test_an_openai_agent_stores_the_variable_name_and_never_the_key(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    # A typed key is stored (encrypted) only under a SECRET_KEY of one's own.
    settings.SECRET_KEY = "a-private-secret-key-for-this-test-0123456789"
    settings.SECRET_KEY_IS_DEVELOPMENT = False
    # The operator's configuration: this endpoint and this key variable are allowed.
    llm_endpoints_allow(settings, "https://api.example.test/v1")
    llm_key_envs_allow(settings, "TEAM_OPENAI_KEY")
    client = client_as("admin")
    data = _form(
        tiny_dataset.pools.get().pk,
        a_backend="openai",
        a_model="gpt-4o-mini",
        a_base_url="https://api.example.test/v1",
        a_api_key_env="TEAM_OPENAI_KEY",
        a_api_key=SECRET,  # the key field: stored only encrypted, never in the config
        api_key=SECRET,  # not a field of the form: ignored
    )
    with django_capture_on_commit_callbacks(execute=False):
        client.post("/jobs/new/", data)
    job = DebateJob.objects.get()
    assert job.agent_a == {
        "backend": "openai",
        "model": "gpt-4o-mini",
        "base_url": "https://api.example.test/v1",
        "api_key_env": "TEAM_OPENAI_KEY",
        "timeout": 60.0,
    }
    assert SECRET not in json.dumps([job.agent_a, job.agent_b, job.note])
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert SECRET not in page
    assert "openai gpt-4o-mini at https://api.example.test/v1" in page


def test_a_key_typed_as_the_variable_name_is_refused_and_not_echoed(client_as, tiny_dataset):
    client = client_as("admin")
    data = _form(tiny_dataset.pools.get().pk, a_backend="openai", a_model="m", a_api_key_env=SECRET)
    answer = client.post("/jobs/new/", data)
    html = answer.content.decode()
    assert answer.status_code == 200
    assert DebateJob.objects.count() == 0
    assert SECRET not in html
    assert "api_key_env must be the NAME of an environment variable" in html


def test_bad_settings_are_reported_on_the_form(client_as, tiny_dataset):
    client = client_as("admin")
    pool = tiny_dataset.pools.get().pk
    for overrides, message in (
        ({"rounds": "6"}, "Ensure this value is less than or equal to 5."),
        ({"audit_percent": "101"}, "Ensure this value is less than or equal to 100."),
        ({"a_backend": "openai"}, "model: required for the openai backend"),
        ({"b_backend": "openai", "b_model": "m", "b_base_url": "ftp://x"}, "must be an http(s)"),
    ):
        answer = client.post("/jobs/new/", _form(pool, **overrides))
        assert answer.status_code == 200
        assert message in answer.content.decode()
    assert DebateJob.objects.count() == 0
