"""The job form takes a token budget, its cap and each agent's reasoning effort and extra
request body; the job stores them and its page shows them with the reasoning and cached
tokens and the "truncated" escalations."""

import pytest

from debates.models import Debate, DebateJob
from tests.fixtures.llm_policy import llm_endpoints_allow


@pytest.fixture(autouse=True)
def _the_operator_lists_the_test_server(settings):
    llm_endpoints_allow(settings, "http://127.0.0.1:9/v1")


def _form(pool_id: int, **overrides) -> dict:
    data = {
        "pool": str(pool_id),
        "a_backend": "openai",
        "a_model": "qwen3-32b",
        "a_base_url": "http://127.0.0.1:9/v1",
        "a_reasoning_effort": "high",
        "a_extra_body": '{"chat_template_kwargs": {"enable_thinking": true}}',
        "b_backend": "openai",
        "b_model": "qwen3-32b",
        "b_base_url": "http://127.0.0.1:9/v1",
        "max_tokens": "4096",
        "max_tokens_cap": "16384",
        "rounds": "2",
        "judgments_per_pair": "1",
        "audit_percent": "2",
    }
    data.update(overrides)
    return data


def test_the_form_stores_budgets_and_per_agent_reasoning_options(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # nothing runs the debates here
    client = client_as("admin")
    with django_capture_on_commit_callbacks(execute=False):
        answer = client.post("/jobs/new/", _form(tiny_dataset.pools.get().pk))

    assert answer.status_code == 302, answer.content.decode()[:2000]
    job = DebateJob.objects.get()
    assert (job.max_tokens, job.max_tokens_cap) == (4096, 16384)
    assert job.agent_a["reasoning_effort"] == "high"
    assert job.agent_a["extra_body"] == {"chat_template_kwargs": {"enable_thinking": True}}
    assert "reasoning_effort" not in job.agent_b and "extra_body" not in job.agent_b

    Debate.objects.filter(job=job).update(
        status="escalated", escalation_reason="truncated", reasoning_tokens=1234, cached_tokens=56
    )
    html = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "4096 per call; a reply cut at it is asked once more with up to 16384" in html
    assert ">truncated</th>" in html
    assert '<td class="num" id="job-reasoning-tokens">' in html
    assert "reasoning_effort high, extra_body" in html


def test_an_empty_budget_takes_2048_for_an_openai_agent(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    with django_capture_on_commit_callbacks(execute=False):
        client_as("admin").post(
            "/jobs/new/", _form(tiny_dataset.pools.get().pk, max_tokens="", max_tokens_cap="")
        )

    job = DebateJob.objects.get()
    assert (job.max_tokens, job.max_tokens_cap) == (2048, None)


def test_a_bad_extra_body_is_shown_on_its_field_and_creates_nothing(client_as, tiny_dataset):
    answer = client_as("admin").post(
        "/jobs/new/", _form(tiny_dataset.pools.get().pk, a_extra_body='{"temperature": 2}')
    )

    assert answer.status_code == 200
    assert "extra_body: &#x27;temperature&#x27; is set from the job&#x27;s own settings" in (
        answer.content.decode()
    )
    assert not DebateJob.objects.exists()
