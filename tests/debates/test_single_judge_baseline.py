"""The single-LLM-judge baseline: one neutral call, the same parser and the same one re-ask."""

import pytest

from debates import prompts
from debates.engine import DebateConfig, TurnRecord, judge_single
from debates.llm.base import TransientLLMError
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, PAIR_WITH_ANSWERS, only_block, reply, result


def test_one_readable_reply_is_one_neutral_turn():
    client = ScriptedClient(
        [
            result(
                reply("relevant", "800 IU cut hip fractures", ["Daily vitamin D"]),
                prompt_tokens=210,
                completion_tokens=25,
                latency_ms=75.0,
            )
        ]
    )

    turn = judge_single(PAIR, client, DebateConfig())

    assert turn == TurnRecord(
        round=1,
        agent="J",
        stance="neutral",
        label=1,
        argument="800 IU cut hip fractures",
        evidence=("Daily vitamin D",),
        raw=reply("relevant", "800 IU cut hip fractures", ["Daily vitamin D"]),
        model="scripted",
        prompt_tokens=210,
        completion_tokens=25,
        latency_ms=75.0,
        attempts=1,
        parse_error=None,
        chunk_truncated=False,
        finish_reason="stop",
        raw_attempts=(reply("relevant", "800 IU cut hip fractures", ["Daily vitamin D"]),),
        attempt_log=(
            {
                "why": "first",
                "max_tokens": 384,
                "finish_reason": "stop",
                "prompt_tokens": 210,
                "completion_tokens": 25,
                "reasoning_tokens": 0,
                "cached_tokens": 0,
                "error": None,
                "reasoning": "",
            },
        ),
    )
    assert len(client.calls) == 1


def test_the_judge_prompt_names_no_stance_and_no_debate():
    client = ScriptedClient([reply(0)])

    judge_single(PAIR, client, DebateConfig())

    call = client.calls[0]
    assert call.system == prompts.single_judge_system_prompt(answer_aware=False)
    for word in ("stance", "debate", "RELEVANT", "Argue", "other judge"):
        assert word not in call.system and word not in call.last_user
    assert "Reply with one JSON object only" in call.system
    assert only_block(call.last_user, "CHUNK") == f"Title: {PAIR.title}\n{PAIR.chunk}"
    assert call.params.temperature == 0.0
    assert call.params.json_schema == prompts.REPLY_JSON_SCHEMA


def test_the_judge_is_answer_aware_when_reference_answers_exist():
    client = ScriptedClient([reply(1)])

    judge_single(PAIR_WITH_ANSWERS, client, DebateConfig())

    assert "reference answers" in client.calls[0].system
    assert "- yes, at 800 IU a day" in only_block(client.calls[0].last_user, "ANSWERS")


def test_an_unreadable_reply_is_re_asked_once():
    client = ScriptedClient(
        [
            result("Yes.", prompt_tokens=200, completion_tokens=2, latency_ms=10.0),
            result(reply(0), prompt_tokens=260, completion_tokens=20, latency_ms=30.0),
        ]
    )

    turn = judge_single(PAIR, client, DebateConfig())

    assert (turn.label, turn.attempts, turn.parse_error) == (0, 2, None)
    assert (turn.prompt_tokens, turn.completion_tokens, turn.latency_ms) == (460, 22, 40.0)
    assert client.calls[1].messages[-1] == {"role": "user", "content": prompts.FORMAT_REMINDER}


def test_two_unreadable_replies_give_no_label():
    client = ScriptedClient(["Yes.", '{"label": "somewhat"}'])

    turn = judge_single(PAIR, client, DebateConfig())

    assert turn.label is None
    assert turn.raw == '{"label": "somewhat"}'
    assert turn.parse_error == "label not understood: 'somewhat'"
    assert turn.attempts == 2
    assert client.remaining == 0


def test_an_llm_error_propagates_from_the_judge():
    client = ScriptedClient([TransientLLMError("connection reset")])

    with pytest.raises(TransientLLMError, match="connection reset"):
        judge_single(PAIR, client, DebateConfig())
