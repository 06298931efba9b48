"""run_debates creates a job, runs it in-process when no broker is configured, and prints
agreed by round, escalated by reason, failed, and calls, tokens and seconds per pair."""

import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.review.agreement import audit_selected
from debates.llm.base import LLMResult, PermanentLLMError
from debates.llm.scripted import RuleClient
from debates.models import Debate, DebateJob
from tests.fixtures.engine import stance_in
from tests.fixtures.jobs import reply


def by_document(messages):
    """d1: both relevant at once; d2: split, then both irrelevant in round 2; d10: split in
    every round; d3 (wind): a permanent error. Every call costs 100 + 10 tokens."""
    user = messages[1]["content"]
    relevant_stance = stance_in(messages) == "relevant"
    if "Wind turbines" in user:
        return PermanentLLMError("model refuses wind")
    if "Solar panels convert" in user:
        label = 1
    elif "solar tax credit" in user and "Round 2." in user:
        label = 0
    else:
        label = int(relevant_stance)
    return LLMResult(reply(label), "rule", 100, 10, 5.0, "stop")


@pytest.fixture
def rule_agents(monkeypatch):
    client = RuleClient(by_document)
    monkeypatch.setattr(
        "debates.services.backends.agent_client_get", lambda *, config, api_key=None: client
    )
    return client


@pytest.mark.django_db
def test_a_pool_is_debated_in_process_and_summarised(small_pool, rule_agents, capsys):
    call_command("run_debates", "small/pool", "--rounds", "2", "--no-progress")
    out = capsys.readouterr().out.splitlines()
    job = DebateJob.objects.get()
    outcomes = dict(job.debates.values_list("pair__document__doc_id", "status"))
    assert outcomes == {"d1": "agreed", "d2": "agreed", "d10": "escalated", "d3": "failed"}
    assert out[0] == (
        f"job {job.pk} (finished): 4 pairs of pool small/pool, R=2, agents: embedded "
        "SmolLM2-135M-Instruct-Q4_1 (in-process; for trying the pipeline, not a benchmark)"
    )
    assert out[1:4] == [
        "agreed: 2 (round 1: 1, round 2: 1)",
        "escalated: 1 (disagreement: 1)",
        "failed: 1",
    ]
    # 2 + 4 + 4 calls over 4 finished pairs, each 100 prompt + 10 completion tokens.
    assert re.fullmatch(
        r"per pair: 2\.50 LLM calls, 275 tokens \(250 prompt \+ 25 completion\), \d+\.\d\d s",
        out[4],
    )
    assert out[5] == "tokens: 1,000 prompt + 100 completion"
    # Then what `debate_job ID progress` adds: the review queue and the audit. Whether the
    # 2% audit draws either agreed label depends on the job's id (a reproducible hash of job
    # and pair), which depends on the tests run before: the count is the draw's own.
    agreed = job.debates.filter(status="agreed").values_list("pair_id", flat=True)
    audited = sum(audit_selected(job.pk, pair_id, 0.02) for pair_id in agreed)
    assert out[6:] == [
        f"human review: 1 escalated (0 judged), {audited} audited agreed labels (0 judged), "
        "audit share 2%",
        f"audit: {audited} agreed pairs sampled, none judged yet",
    ]
    failed = Debate.objects.get(status="failed")
    assert (failed.attempts, failed.last_error) == (3, "PermanentLLMError: model refuses wind")
    assert len(rule_agents.calls) == 10 + 3


@pytest.mark.django_db
def test_a_limit_debates_only_the_first_pairs(small_pool, rule_agents, capsys):
    call_command("run_debates", "small/pool", "--rounds", "1", "--limit", "2", "--no-progress")
    out = capsys.readouterr().out.splitlines()
    assert "2 pairs of pool small/pool, R=1" in out[0]
    assert Debate.objects.count() == 2


@pytest.mark.django_db
def test_an_unknown_pool_is_named_with_the_known_ones(small_pool):
    with pytest.raises(CommandError, match=r"no pool 'nope' \(known: small/pool\)"):
        call_command("run_debates", "nope")


@pytest.mark.django_db
def test_bad_settings_are_reported_and_no_job_is_created(small_pool):
    with pytest.raises(CommandError, match="rounds must be an integer in 1..5, got 9"):
        call_command("run_debates", "small/pool", "--rounds", "9")
    with pytest.raises(CommandError, match="agent B: model: required for the openai backend"):
        call_command("run_debates", "small/pool", "--backend-b", "openai")
    assert DebateJob.objects.count() == 0
