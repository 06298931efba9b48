"""A reply cut at its token budget is asked again once with twice the budget (up to the cap
and what the context leaves); still cut, the debate escalates as "truncated", never
"unparsed". An unreadable whole reply keeps the format re-ask at the same budget. A
reasoning model's reasoning is kept apart and never read as the answer. No database."""

import pytest

from debates.engine import DebateConfig, debate_pair, judge_single
from debates.llm.scripted import ScriptedClient
from debates.turns import prompt_token_count
from tests.fixtures.engine import PAIR, reply, result

CUT = '{"label": 1, "argument": "The chunk'


def cut(tokens: int) -> object:
    return result(CUT, completion_tokens=tokens, finish_reason="length")


def budgets(client: ScriptedClient) -> list[int]:
    return [call.params.max_tokens for call in client.calls]


def test_a_cut_reply_is_asked_again_with_the_same_messages_and_twice_the_budget():
    a = ScriptedClient([cut(384), reply(1)])
    b = ScriptedClient([reply(1)])

    outcome = debate_pair(PAIR, a, b, DebateConfig(rounds=1))

    assert (outcome.status, outcome.final_label, outcome.calls) == ("agreed", 1, 3)
    assert budgets(a) == [384, 768]
    assert a.calls[0].messages == a.calls[1].messages  # no format reminder, same prefix
    turn = outcome.turns[0]
    assert [e["why"] for e in turn.attempt_log] == ["first", "budget"]
    assert turn.attempt_log[0]["error"] == (
        "reply cut off at its budget of 384 tokens (384 used, finish_reason=length)"
    )
    assert turn.raw_attempts == (CUT, reply(1))


def test_a_reply_still_cut_escalates_as_truncated_not_unparsed():
    a = ScriptedClient([cut(384), cut(768)])
    b = ScriptedClient([])

    outcome = debate_pair(PAIR, a, b, DebateConfig(rounds=2))

    assert (outcome.status, outcome.escalation_reason) == ("escalated", "truncated")
    assert outcome.turns[0].cut_off and outcome.turns[0].label is None
    assert budgets(a) == [384, 768]
    assert outcome.calls == 2


def test_the_cap_bounds_the_grown_budget_and_a_cap_equal_to_it_asks_no_more():
    a = ScriptedClient([cut(1000), reply(1)])
    debate_pair(
        PAIR,
        a,
        ScriptedClient([reply(1)]),
        DebateConfig(rounds=1, max_tokens=1000, max_tokens_cap=1500),
    )
    assert budgets(a) == [1000, 1500]

    a = ScriptedClient([cut(1000)])
    outcome = debate_pair(
        PAIR, a, ScriptedClient([]), DebateConfig(rounds=1, max_tokens=1000, max_tokens_cap=1000)
    )
    assert (outcome.escalation_reason, outcome.calls) == ("truncated", 1)


def test_the_grown_budget_never_exceeds_what_the_context_leaves_after_the_prompt():
    a = ScriptedClient([cut(450), reply(1)], context_window=1000)

    debate_pair(
        PAIR,
        a,
        ScriptedClient([reply(1)], context_window=1000),
        DebateConfig(rounds=1, max_tokens=450, max_tokens_cap=5000),
    )

    room = 1000 - prompt_token_count(a, a.calls[0].messages)
    assert 450 < room < 900
    assert budgets(a) == [450, room]


def test_the_first_budget_is_at_most_half_the_context():
    a = ScriptedClient([reply(1)], context_window=1000)

    debate_pair(PAIR, a, ScriptedClient([reply(1)]), DebateConfig(rounds=1, max_tokens=2048))

    assert budgets(a) == [500]


def test_a_reply_that_used_its_whole_budget_counts_as_cut_even_when_it_says_stop():
    a = ScriptedClient([result(CUT, completion_tokens=384), reply(1)])

    outcome = debate_pair(PAIR, a, ScriptedClient([reply(1)]), DebateConfig(rounds=1))

    assert outcome.status == "agreed"
    assert budgets(a) == [384, 768]


def test_only_reasoning_and_no_answer_is_cut_and_asked_with_a_larger_budget():
    thinking = result("<think>\nStep 1, step 2", completion_tokens=200, finish_reason="stop")
    a = ScriptedClient([thinking, f"<think>Done.</think>{reply(1)}"])

    outcome = debate_pair(PAIR, a, ScriptedClient([reply(1)]), DebateConfig(rounds=1))

    assert outcome.status == "agreed"
    assert budgets(a) == [384, 768]
    assert outcome.turns[0].reasoning == "Done."
    assert outcome.turns[0].attempt_log[0]["reasoning"] == "Step 1, step 2"
    assert outcome.turns[0].attempt_log[0]["error"].startswith("no answer after the reasoning")


def test_the_reasoning_is_never_read_as_the_answer():
    # A JSON object inside the reasoning, an answer that is not JSON: no label.
    sly = f"<think>{reply(1)}</think>I think it is relevant."
    a = ScriptedClient([sly, sly])

    outcome = debate_pair(PAIR, a, ScriptedClient([]), DebateConfig(rounds=1))

    assert (outcome.status, outcome.escalation_reason) == ("escalated", "unparsed")
    # The format re-ask quotes the answer only, not the reasoning, at the same budget.
    assert a.calls[1].messages[-2] == {"role": "assistant", "content": "I think it is relevant."}
    assert budgets(a) == [384, 384]


def test_a_format_re_ask_that_comes_back_cut_still_gets_its_larger_budget():
    a = ScriptedClient(["not json", cut(384), reply(0)])

    outcome = debate_pair(PAIR, a, ScriptedClient([reply(0)]), DebateConfig(rounds=1))

    assert (outcome.status, outcome.final_label) == ("agreed", 0)
    assert budgets(a) == [384, 384, 768]
    assert [e["why"] for e in outcome.turns[0].attempt_log] == ["first", "format", "budget"]


def test_reasoning_and_cached_tokens_are_summed_over_attempts_and_the_debate():
    from debates.llm.base import LLMResult

    def answered(text, finish="stop", completion=20):
        return LLMResult(text, "m", 100, completion, 5.0, finish, "why", 15, 40)

    a = ScriptedClient([answered(CUT, "length", 384), answered(reply(1))])
    b = ScriptedClient([answered(reply(1))])

    outcome = debate_pair(PAIR, a, b, DebateConfig(rounds=1))

    assert [t.reasoning_tokens for t in outcome.turns] == [30, 15]
    assert [t.cached_tokens for t in outcome.turns] == [80, 40]
    assert (outcome.reasoning_tokens, outcome.cached_tokens) == (45, 120)
    assert outcome.turns[0].reasoning == "why"


def test_the_single_judge_grows_its_budget_the_same_way():
    client = ScriptedClient([cut(384), reply(0)])

    turn = judge_single(PAIR, client, DebateConfig())

    assert (turn.label, turn.attempts) == (0, 2)
    assert budgets(client) == [384, 768]


def test_a_cap_below_the_budget_is_refused():
    with pytest.raises(ValueError, match="max_tokens_cap must be at least max_tokens \\(384\\)"):
        DebateConfig(max_tokens_cap=100)


def test_a_whole_readable_reply_that_used_its_whole_budget_is_kept():
    # Exactly the budget, finish "stop", complete JSON: nothing was cut, nothing is asked again.
    a = ScriptedClient([result(reply(1), completion_tokens=384)])

    outcome = debate_pair(PAIR, a, ScriptedClient([reply(1)]), DebateConfig(rounds=1))

    assert (outcome.status, outcome.calls) == ("agreed", 2)
    assert budgets(a) == [384]
