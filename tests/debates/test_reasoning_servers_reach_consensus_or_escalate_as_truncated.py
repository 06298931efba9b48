"""A debate job through the openai backend against a server answering in each shape real
servers send (tests/fixtures/llm_servers.py): reasoning in the content, in a field of its
own, replies cut at the budget, text a database cannot store, OpenAI's refusals.

Each case: R = 1, both agents the same model, two pairs, one debate at a time, a first budget
of 600 tokens (the fake server cuts below 1,000) and the default cap of twice it. The
outcome, escalation reason, stored reasoning, counted calls and tokens and the budget of
every request are asserted; no debate may fail."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from debates.models import Debate, Turn
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.llm_servers import OPENAI_REASONING_TOKENS, REASONING, tokens

pytestmark = pytest.mark.django_db

FIRST = 600  # the job's budget: below the server's 1,000, so budget shapes cut at first
GROWN = 2 * FIRST


@dataclass(frozen=True)
class Expect:
    """What one shape must give on each of the two debates."""

    status: str
    reason: str = ""
    budgets: tuple[int, ...] = (FIRST,)  # max_tokens of each attempt of a turn
    reasoning: str | None = ""  # the stored reasoning of each turn (None: not checked)
    turns: int = 2  # turns stored per debate


AGREED = Expect("agreed")
GROWN_THEN_AGREED = Expect("agreed", budgets=(FIRST, GROWN), reasoning=None)
# A's turn unread (asked one debate at a time, B is not asked after an unreadable A).
TRUNCATED = Expect("escalated", "truncated", budgets=(FIRST, GROWN), reasoning=None, turns=1)

CASES = {
    "plain": AGREED,
    "think-tags": Expect("agreed", reasoning=REASONING),
    "think-no-opener": Expect("agreed", reasoning=REASONING),
    "reasoning-field": Expect("agreed", reasoning=REASONING),
    "reasoning-content": Expect("agreed", reasoning=REASONING),
    "llama-cpp-reasoning": Expect("agreed", reasoning=REASONING),
    "budget-on-reasoning": Expect("agreed", budgets=(FIRST, GROWN), reasoning=REASONING),
    "cut-then-fine": GROWN_THEN_AGREED,
    "vllm-cut-in-reasoning": Expect("agreed", budgets=(FIRST, GROWN), reasoning=REASONING),
    "ollama-reasoning": Expect("agreed", budgets=(FIRST, GROWN), reasoning=REASONING),
    "ik-llama-cpp-cut-as-stop": GROWN_THEN_AGREED,
    "always-cut": TRUNCATED,
    "always-thinking": TRUNCATED,
    "json-in-reasoning": TRUNCATED,
    "surrogate-in-argument": AGREED,
    "nul-in-argument": AGREED,
    "valid-emoji": AGREED,
    # The lone surrogate sits in a note after the JSON: text after the object, so the
    # format re-ask comes (same budget) and the pair escalates as unparsed, stored, not failed.
    "surrogate-in-content": Expect("escalated", "unparsed", budgets=(FIRST, FIRST), turns=1),
    "cached": AGREED,
    "details-null": AGREED,
}


def _run(small_pool, server, shape: str, **agent_options):
    agent = {"backend": "openai", "model": shape, "base_url": server.base_url, **agent_options}
    spec = JobSpec(
        pool=small_pool, agent_a=agent, rounds=1, limit=2, max_tokens=FIRST, concurrency=1
    )
    job = debate_job_launch(spec=spec)
    progress = debate_job_wait(job=job)
    return job, progress


@pytest.mark.parametrize("shape", sorted(CASES))
def test_each_server_shape_ends_as_expected_and_no_debate_fails(shape, small_pool, quirks_server):
    expect = CASES[shape]
    job, progress = _run(small_pool, quirks_server, shape)

    assert progress.failed == 0
    debates = list(Debate.objects.filter(job=job).order_by("pk"))
    assert [d.status for d in debates] == [expect.status] * 2
    assert [d.escalation_reason for d in debates] == [expect.reason] * 2
    turns = list(Turn.objects.filter(debate__job=job).order_by("debate_id", "agent"))
    assert len(turns) == 2 * expect.turns
    for turn in turns:
        assert [a["max_tokens"] for a in turn.attempt_log] == list(expect.budgets)
        assert turn.attempts == len(expect.budgets)
        assert len(turn.raw_attempts) == len(expect.budgets)
        if expect.reasoning is not None:
            assert turn.reasoning == expect.reasoning
        assert turn.cut_off == (expect.reason == "truncated")
    # Every request the server answered is one counted call, and each asked what was logged.
    answered = quirks_server.requests_for(shape)
    assert progress.calls == len(answered) == sum(t.attempts for t in turns)
    assert [r["max_tokens"] for r in answered] == [
        a["max_tokens"] for t in turns for a in t.attempt_log
    ]
    assert progress.prompt_tokens == sum(t.prompt_tokens for t in turns) > 0


def test_a_cut_reply_escalates_as_truncated_with_the_reason_of_its_last_attempt(
    small_pool, quirks_server
):
    job, _ = _run(small_pool, quirks_server, "always-cut")

    turn = Turn.objects.filter(debate__job=job).first()
    assert turn.label is None
    assert turn.parse_error == (
        f"reply cut off at its budget of {GROWN} tokens ({GROWN} used, finish_reason=length)"
    )
    assert [a["why"] for a in turn.attempt_log] == ["first", "budget"]


def test_a_cap_equal_to_the_budget_escalates_a_cut_reply_at_once(small_pool, quirks_server):
    agent = {"backend": "openai", "model": "always-cut", "base_url": quirks_server.base_url}
    spec = JobSpec(
        pool=small_pool,
        agent_a=agent,
        rounds=1,
        limit=1,
        max_tokens=FIRST,
        max_tokens_cap=FIRST,
        concurrency=1,
    )
    job = debate_job_launch(spec=spec)
    debate_job_wait(job=job)

    debate = Debate.objects.get(job=job)
    assert (debate.status, debate.escalation_reason, debate.calls) == ("escalated", "truncated", 1)
    assert [r["max_tokens"] for r in quirks_server.requests_for("always-cut")] == [FIRST]


def test_budget_spent_on_reasoning_is_counted_and_the_reasoning_kept(small_pool, quirks_server):
    job, progress = _run(small_pool, quirks_server, "budget-on-reasoning")

    turn = Turn.objects.filter(debate__job=job, agent="A").order_by("debate_id").first()
    # First attempt: the whole budget went on reasoning; second: reasoning then the answer.
    assert turn.reasoning_tokens == FIRST + tokens(REASONING)
    assert [a["reasoning_tokens"] for a in turn.attempt_log] == [FIRST, tokens(REASONING)]
    assert turn.attempt_log[0]["error"].startswith("reply cut off at its budget of 600 tokens")
    assert progress.reasoning_tokens == 4 * (FIRST + tokens(REASONING))


def test_text_a_database_cannot_hold_is_replaced_and_the_reply_kept_exactly(
    small_pool, quirks_server
):
    job, _ = _run(small_pool, quirks_server, "nul-in-argument")
    turn = Turn.objects.filter(debate__job=job).first()
    assert turn.argument == "The chunk states it\ufffd plainly."
    # The content itself holds the escape \u0000 (valid text): stored as it came.
    assert "\\u0000" in turn.raw

    job, _ = _run(small_pool, quirks_server, "surrogate-in-argument")
    assert Turn.objects.filter(debate__job=job).first().argument == "The chunk states it \ufffd."

    job, _ = _run(small_pool, quirks_server, "valid-emoji")
    assert Turn.objects.filter(debate__job=job).first().argument == (
        "The chunk states it plainly 😀."
    )


def test_a_lone_surrogate_in_the_content_is_stored_cleaned_with_the_exact_reply_escaped(
    small_pool, quirks_server
):
    job, _ = _run(small_pool, quirks_server, "surrogate-in-content")

    turn = Turn.objects.filter(debate__job=job).first()
    assert turn.raw.endswith("(note: \ufffd)")
    assert all(a["raw_escaped"].endswith('(note: \\ud83d)"') for a in turn.attempt_log)


def test_an_openai_reasoning_model_is_asked_with_max_completion_tokens_and_its_effort(
    small_pool, quirks_server
):
    job, progress = _run(small_pool, quirks_server, "openai-reasoning", reasoning_effort="low")

    assert progress.agreed == 2
    sent = quirks_server.requests_for("openai-reasoning")
    answered = [r for r in sent if "max_tokens" not in r and "temperature" not in r]
    assert len(answered) == progress.calls == 4
    assert all(r["max_completion_tokens"] == FIRST for r in answered)
    assert all(r["reasoning_effort"] == "low" for r in sent)
    # One refusal of max_tokens, then one of the temperature; remembered after that.
    assert len(sent) == 6
    assert progress.reasoning_tokens == 4 * OPENAI_REASONING_TOKENS
    assert job.agents[0].reasoning_effort == "low"


def test_cached_prompt_tokens_are_counted(small_pool, quirks_server):
    job, progress = _run(small_pool, quirks_server, "cached")

    turns = Turn.objects.filter(debate__job=job)
    assert [t.cached_tokens for t in turns] == [t.prompt_tokens // 2 for t in turns]
    assert progress.cached_tokens == sum(t.prompt_tokens // 2 for t in turns) > 0


def test_an_extra_body_reaches_the_server_as_given(small_pool, quirks_server):
    extra = {"chat_template_kwargs": {"enable_thinking": False}}
    _run(small_pool, quirks_server, "plain", extra_body=extra)

    sent = quirks_server.requests_for("plain")
    assert sent and all(r["chat_template_kwargs"] == {"enable_thinking": False} for r in sent)
