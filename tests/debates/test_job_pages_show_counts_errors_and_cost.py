"""The job page counts debates by status, agreed ones by round, escalated ones by reason,
lists failed debates with their errors (escaped), sums calls, tokens and seconds, and
estimates the cost when DREAM_PRICE_PER_1K_TOKENS is set."""

import pytest

from debates.models import Debate, DebateJob
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


def test_counts_by_status_round_and_reason_and_sums(client_as, mixed_job):
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
    assert "Set DREAM_PRICE_PER_1K_TOKENS to see an estimated cost." in html
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


def test_the_cost_is_estimated_from_the_price_per_thousand_tokens(client_as, mixed_job, settings):
    settings.DREAM_PRICE_PER_1K_TOKENS = "0.002"
    html = client_as("admin").get(f"/jobs/{mixed_job.job.pk}/").content.decode()
    cost = html_tables(html)[3]
    # 7,500 tokens / 1,000 * 0.002 = 0.015; per done pair 0.015 / 5 = 0.003.
    assert cost[-2:] == [["estimated cost", "0.0150"], ["per pair", "0.003000"]]
    assert "At 0.002 per 1,000 tokens" in html
