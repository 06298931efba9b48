"""The job page counts debates by status, agreed ones by round, escalated ones by reason,
lists failed debates with their errors (escaped), sums calls, tokens and seconds, and
estimates the cost at DREAM_LLM_PRICES as the rest of the app prices tokens (per backend and
model, cached and batch prices, each agent at its own price), at DREAM_PRICE_PER_1K_TOKENS
only when those leave the agents unpriced, and else names DREAM_LLM_PRICES. A job of
simulated debaters marks its cost panel SIMULATED."""

import json
from html import unescape

import pytest

from debates.models import Debate, DebateJob, Turn
from tests.fixtures.ui import html_tables

ERROR = "TransientLLMError: 503 <b>upstream</b> down"


@pytest.fixture
def mixed_job(make_review_job):
    review = make_review_job(escalated=2, agreed=4, sync=False)
    job = review.job
    DebateJob.objects.filter(pk=job.pk).update(status=DebateJob.Status.RUNNING)
    agreed = review.agreed
    Debate.objects.filter(pk=agreed[0].pk).update(consensus_round=2)
    Debate.objects.filter(pk=agreed[2].pk).update(
        status=Debate.Status.FAILED, last_error=ERROR, attempts=3, final_label=None
    )
    Debate.objects.filter(pk=agreed[3].pk).update(status=Debate.Status.PENDING, final_label=None)
    Debate.objects.filter(pk=review.escalated[1].pk).update(escalation_reason="unparsed")
    # Cost: every debate 1,000 prompt + 250 completion tokens and 2.5 s; 5 are done.
    Debate.objects.filter(job=job).update(prompt_tokens=1000, completion_tokens=250, seconds=2.5)
    return review


def test_counts_by_status_round_and_reason_and_sums(client_as, mixed_job, settings):
    settings.DREAM_LLM_PRICES = ""
    settings.DREAM_PRICE_PER_1K_TOKENS = ""
    html = client_as("researcher").get(f"/jobs/{mixed_job.job.pk}/").content.decode()
    tables = html_tables(html)
    assert tables[0] == [
        ["pending", "1"],
        ["running", "0"],
        ["agreed", "2"],
        ["escalated", "2"],
        ["failed", "1"],
    ]
    assert tables[1] == [["round 1", "1"], ["round 2", "1"]]
    assert tables[2] == [["disagreement", "1"], ["unparsed", "1"]]
    # calls: escalated debates 4 each, agreed 2 each (fixture) = 4 + 4 + 4 * 2 = 16.
    assert tables[3] == [
        ["LLM calls", "16"],
        ["prompt tokens", "6,000"],
        ["completion tokens", "1,500"],
        ["of which reasoning", "0"],
        ["prompt tokens cached", "0"],
        ["worker seconds", "15.0"],
        ["calls per pair", "3.20"],
        ["tokens per pair", "1500"],
        ["seconds per pair", "3.00"],
    ]
    assert (
        '<p class="muted small" id="job-cost-note">No estimated cost: price not set for '
        "SmolLM2-135M-Instruct-Q4_1; set DREAM_LLM_PRICES (per backend and model).</p>"
    ) in html
    assert "SIMULATED" not in html
    assert '<strong id="job-percent">83%</strong>' in html  # 5 of 6


def test_failed_pairs_are_listed_with_their_error_escaped_and_the_counts(client_as, mixed_job):
    html = client_as("admin").get(f"/jobs/{mixed_job.job.pk}/").content.decode()
    failed = html_tables(html)[4]
    debate = mixed_job.agreed[2]
    assert failed[0] == ["Debate", "Pair", "Query", "Document", "Attempts", "Last error"]
    assert failed[1:] == [[str(debate.pk), str(debate.pair_id), "q005", "d005", "3", ERROR]]
    assert (
        "1 of 6 pairs failed (2 settled, 2 escalated, 1 pending, 0 running). Last failure: "
        '<code class="error-text">TransientLLMError: 503 &lt;b&gt;upstream&lt;/b&gt; down</code>'
    ) in html
    assert "503 &lt;b&gt;upstream&lt;/b&gt; down" in html
    assert "<b>upstream</b>" not in html
    assert 'id="job-failures-more"' not in html  # all shown


def test_only_the_first_failures_are_shown_and_the_rest_are_pointed_to(
    client_as, mixed_job, monkeypatch
):
    monkeypatch.setattr("debates.views.FAILED_SHOWN", 1)
    job = mixed_job.job
    Debate.objects.filter(pk=mixed_job.agreed[3].pk).update(status=Debate.Status.FAILED)
    html = client_as("admin").get(f"/jobs/{job.pk}/").content.decode()
    assert len(html_tables(html)[4]) == 2  # the header and one failure
    assert (
        "The first 1 of 2 are shown; <code>GET /api/v1/jobs/"
        f"{job.pk}/failures?page=N</code> lists them all"
    ) in html


def cost_panel(client, job) -> tuple[list[list[str]], str]:
    """The cost table's last two rows and the note under it, unescaped."""
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    note = page[page.index('id="job-cost-note">') :].split(">", 1)[1].split("</p>", 1)[0]
    return html_tables(page)[3][-2:], unescape(note)


def test_the_cost_is_priced_at_dream_llm_prices_with_its_cached_price(
    client_as, mixed_job, settings
):
    prices = {"embedded": {"prompt": 1.0, "completion": 4.0, "cached_prompt": 0.5}}
    settings.DREAM_LLM_PRICES = json.dumps(prices)
    settings.DREAM_PRICE_PER_1K_TOKENS = "0.002"  # the older setting: not read here
    Debate.objects.filter(job=mixed_job.job).update(cached_tokens=200)
    rows, note = cost_panel(client_as("admin"), mixed_job.job)
    # 6,000 prompt tokens of which 1,200 cached, 1,500 completion:
    # 4,800 / 1,000 * 1 + 1,200 / 1,000 * 0.5 + 1,500 / 1,000 * 4 = 4.8 + 0.6 + 6 = 11.4;
    # per done pair 11.4 / 5 = 2.28.
    assert rows == [["estimated cost", "11.4000"], ["per pair", "2.280000"]]
    assert note == "At SmolLM2-135M-Instruct-Q4_1's prices (DREAM_LLM_PRICES)."


def test_a_batch_job_is_priced_at_the_batch_prices(client_as, mixed_job, settings):
    prices = {"embedded": {"prompt": 1.0, "completion": 4.0, "batch_prompt": 0.5,
                           "batch_completion": 2.0, "cached_prompt": 0.5}}  # fmt: skip
    settings.DREAM_LLM_PRICES = json.dumps(prices)
    DebateJob.objects.filter(pk=mixed_job.job.pk).update(batch=True)
    Debate.objects.filter(job=mixed_job.job).update(cached_tokens=200)
    rows, note = cost_panel(client_as("admin"), mixed_job.job)
    # 4,800 / 1,000 * 0.5 + 1,200 / 1,000 * 0.5 + 1,500 / 1,000 * 2 = 2.4 + 0.6 + 3 = 6; 6 / 5.
    assert rows == [["estimated cost", "6.0000"], ["per pair", "1.200000"]]
    assert note == "At SmolLM2-135M-Instruct-Q4_1's batch prices (DREAM_LLM_PRICES)."


def test_agents_at_two_prices_are_each_priced_on_their_own_turns(client_as, mixed_job, settings):
    job = mixed_job.job
    DebateJob.objects.filter(pk=job.pk).update(
        agent_b={"backend": "openai", "model": "gpt-4o-mini"}
    )
    prices = {
        "embedded": {"prompt": 1.0, "completion": 4.0},
        "openai:gpt-4o-mini": {"prompt": 2.0, "completion": 10.0},
    }
    settings.DREAM_LLM_PRICES = json.dumps(prices)
    # 8 turns each (two escalated debates of 2 rounds, four agreed of 1).
    Turn.objects.filter(debate__job=job, agent="A").update(prompt_tokens=100, completion_tokens=10)
    Turn.objects.filter(debate__job=job, agent="B").update(prompt_tokens=300, completion_tokens=30)
    rows, note = cost_panel(client_as("admin"), job)
    # A: 800 / 1,000 * 1 + 80 / 1,000 * 4 = 1.12; B: 2,400 / 1,000 * 2 + 240 / 1,000 * 10 = 7.2;
    # 8.32 in all, 8.32 / 5 = 1.664 per done pair.
    assert rows == [["estimated cost", "8.3200"], ["per pair", "1.664000"]]
    assert note == "At SmolLM2-135M-Instruct-Q4_1 and gpt-4o-mini's prices (DREAM_LLM_PRICES)."


def test_the_older_single_price_is_read_only_when_dream_llm_prices_leaves_an_agent_unpriced(
    client_as, mixed_job, settings
):
    settings.DREAM_LLM_PRICES = json.dumps({"openai": {"prompt": 1.0, "completion": 1.0}})
    settings.DREAM_PRICE_PER_1K_TOKENS = "0.002"
    rows, note = cost_panel(client_as("admin"), mixed_job.job)
    # 7,500 tokens / 1,000 * 0.002 = 0.015; per done pair 0.015 / 5 = 0.003.
    assert rows == [["estimated cost", "0.0150"], ["per pair", "0.003000"]]
    assert note == (
        "At 0.002 per 1,000 tokens, prompt and completion alike (DREAM_PRICE_PER_1K_TOKENS, "
        "read because DREAM_LLM_PRICES gives no price: price not set for "
        "SmolLM2-135M-Instruct-Q4_1)."
    )


def test_the_cost_of_simulated_debaters_is_marked_simulated(client_as, mixed_job, settings):
    settings.DREAM_LLM_PRICES = ""
    settings.DREAM_PRICE_PER_1K_TOKENS = ""
    simulated = {
        "backend": "simulated",
        "model": "simulated:sens0.9-spec0.8-pers0.3-seed1",
        "truth": "/nowhere/truth.qrels",
        "dataset": mixed_job.job.pool.dataset.slug,
        "sensitivity": 0.9,
        "specificity": 0.8,
        "persistence": 0.3,
        "seed": 1,
    }
    DebateJob.objects.filter(pk=mixed_job.job.pk).update(agent_a=simulated, agent_b=simulated)
    page = client_as("admin").get(f"/jobs/{mixed_job.job.pk}/").content.decode()
    assert '<h3>Cost <strong class="simulated">SIMULATED</strong></h3>' in page
    assert (
        '<p class="muted small" id="job-cost-simulated">SIMULATED debaters make no real LLM '
        "call: these calls and tokens are the simulation's, not a server's.</p>"
    ) in page
    assert "price not set for simulated:sens0.9-spec0.8-pers0.3-seed1;" in page
