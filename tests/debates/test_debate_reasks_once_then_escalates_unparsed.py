"""An unreadable reply is re-asked once; a second unreadable reply escalates, never a label."""

from debates import prompts
from debates.engine import DebateConfig, debate_pair
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, reply, result

REFUSAL = "I'm sorry, I cannot judge medical content."


def test_a_readable_re_ask_counts_both_attempts_into_the_turn():
    agent_a = ScriptedClient(
        [
            result("Relevant!", prompt_tokens=300, completion_tokens=3, latency_ms=40.0),
            result(reply(1, "fixed"), prompt_tokens=340, completion_tokens=30, latency_ms=60.0),
        ]
    )
    agent_b = ScriptedClient([reply(1)])

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig())

    turn = outcome.turns[0]
    assert (turn.label, turn.argument, turn.attempts, turn.parse_error) == (1, "fixed", 2, None)
    assert (turn.prompt_tokens, turn.completion_tokens, turn.latency_ms) == (640, 33, 100.0)
    assert turn.raw == reply(1, "fixed")
    assert (outcome.status, outcome.final_label, outcome.calls) == ("agreed", 1, 3)


def test_the_re_ask_repeats_the_messages_then_the_bad_reply_and_a_format_reminder():
    agent_a = ScriptedClient(['{"label": "partially relevant"}', reply(1)])
    agent_b = ScriptedClient([reply(1)])

    debate_pair(PAIR, agent_a, agent_b, DebateConfig())

    first, second = agent_a.calls
    assert second.messages[:2] == first.messages
    assert second.messages[2:] == [
        {"role": "assistant", "content": '{"label": "partially relevant"}'},
        {"role": "user", "content": prompts.FORMAT_REMINDER},
    ]
    assert second.params == first.params


def test_two_unreadable_replies_escalate_at_once_with_no_label():
    agent_a = ScriptedClient(
        [
            result(REFUSAL, prompt_tokens=300, completion_tokens=9, latency_ms=40.0),
            result('{"label": 1, "argu', prompt_tokens=350, completion_tokens=5, latency_ms=20.0),
        ]
    )
    agent_b = ScriptedClient([])  # B must never be asked

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig())

    assert outcome.status == "escalated"
    assert outcome.escalation_reason == "unparsed"
    assert (outcome.final_label, outcome.consensus_round) == (None, None)
    assert outcome.calls == 2
    (turn,) = outcome.turns
    assert turn.label is None
    assert turn.raw == '{"label": 1, "argu'
    assert turn.parse_error.startswith("invalid or truncated JSON")
    assert (turn.attempts, turn.prompt_tokens, turn.completion_tokens) == (2, 650, 14)
    assert (turn.argument, turn.evidence) == ("", ())
    assert agent_b.calls == []


def test_an_unreadable_turn_in_round_two_stops_the_debate_there():
    agent_a = ScriptedClient([reply(1), reply(1)])
    agent_b = ScriptedClient([reply(0), "maybe", '{"label": 0.5}'])
    seen = []

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig(rounds=3), on_turn=seen.append)

    assert (outcome.status, outcome.escalation_reason) == ("escalated", "unparsed")
    assert [(t.round, t.agent, t.label) for t in outcome.turns] == [
        (1, "A", 1),
        (1, "B", 0),
        (2, "A", 1),
        (2, "B", None),
    ]
    assert outcome.turns[-1].parse_error == "label out of range: 0.5"
    assert seen == list(outcome.turns)
    assert outcome.calls == 5
    assert agent_a.remaining == 0 and agent_b.remaining == 0


def test_a_reply_cut_at_the_token_limit_is_re_asked():
    truncated = result(reply(1), finish_reason="length")
    agent_a = ScriptedClient([truncated, reply(1)])
    agent_b = ScriptedClient([reply(1)])

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig())

    assert outcome.turns[0].attempts == 2
    assert outcome.turns[0].finish_reason == "stop"
    assert outcome.status == "agreed"
