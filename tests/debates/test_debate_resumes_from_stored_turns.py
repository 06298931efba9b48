"""A debate resumed from its stored turns makes only the missing calls and ends the same way."""

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.base import TransientLLMError
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, reply

# Three rounds, consensus in round 3 on "irrelevant".
A_REPLIES = [reply(1, "A1"), reply(1, "A2"), reply(0, "A3")]
B_REPLIES = [reply(0, "B1"), reply(0, "B2"), reply(0, "B3")]
CONFIG = DebateConfig(rounds=3)


def _uninterrupted(config=CONFIG, clients=None):
    agent_a, agent_b = clients or (ScriptedClient(A_REPLIES), ScriptedClient(B_REPLIES))
    return debate_pair(PAIR, agent_a, agent_b, config)


@pytest.mark.parametrize("version", ["dream-v1", "dream-v2"])
@pytest.mark.parametrize("stored", range(0, 7))
def test_resuming_after_any_number_of_stored_turns_makes_exactly_the_missing_calls(stored, version):
    config = DebateConfig(rounds=3, prompt_version=version)
    full_a, full_b = ScriptedClient(A_REPLIES), ScriptedClient(B_REPLIES)
    full = _uninterrupted(config, (full_a, full_b))
    done = full.turns[:stored]
    a_done = sum(1 for t in done if t.agent == "A")
    b_done = stored - a_done
    agent_a = ScriptedClient(A_REPLIES[a_done:])
    agent_b = ScriptedClient(B_REPLIES[b_done:])
    seen = []

    resumed = debate_pair(PAIR, agent_a, agent_b, config, done_turns=done, on_turn=seen.append)

    # The resumed calls send exactly the prompts of the uninterrupted debate's same turns.
    assert [c.messages for c in agent_a.calls] == [c.messages for c in full_a.calls[a_done:]]
    assert [c.messages for c in agent_b.calls] == [c.messages for c in full_b.calls[b_done:]]

    assert resumed.turns == full.turns
    assert (resumed.status, resumed.final_label, resumed.consensus_round) == ("agreed", 0, 3)
    assert resumed.calls == 6 - stored
    assert len(agent_a.calls) + len(agent_b.calls) == 6 - stored
    assert agent_a.remaining == 0 and agent_b.remaining == 0
    assert seen == list(full.turns[stored:])
    new = full.turns[stored:]
    assert resumed.prompt_tokens == sum(t.prompt_tokens for t in new)


def test_a_resumed_round_prompt_uses_the_stored_history():
    full = _uninterrupted()
    agent_a = ScriptedClient(A_REPLIES[1:])
    agent_b = ScriptedClient(B_REPLIES[1:])

    debate_pair(PAIR, agent_a, agent_b, CONFIG, done_turns=full.turns[:2])

    assert "argument: B1" in agent_a.calls[0].last_user
    assert "argument: A1" in agent_a.calls[0].last_user


def test_a_debate_interrupted_by_an_error_finishes_identically_when_resumed():
    stored = []
    flaky_b = ScriptedClient([B_REPLIES[0], TransientLLMError("503")])
    with pytest.raises(TransientLLMError):
        debate_pair(PAIR, ScriptedClient(A_REPLIES), flaky_b, CONFIG, on_turn=stored.append)
    assert [(t.round, t.agent) for t in stored] == [(1, "A"), (1, "B"), (2, "A")]

    agent_a, agent_b = ScriptedClient(A_REPLIES[2:]), ScriptedClient(B_REPLIES[1:])
    resumed = debate_pair(PAIR, agent_a, agent_b, CONFIG, done_turns=stored)

    assert resumed.turns == _uninterrupted().turns
    assert resumed.calls == 3


def test_a_finished_debate_resumed_makes_no_call_and_returns_its_outcome():
    full = _uninterrupted()
    agent_a, agent_b = ScriptedClient([]), ScriptedClient([])

    resumed = debate_pair(PAIR, agent_a, agent_b, CONFIG, done_turns=full.turns)

    assert resumed.turns == full.turns
    assert (resumed.status, resumed.final_label, resumed.consensus_round) == ("agreed", 0, 3)
    assert (resumed.calls, resumed.prompt_tokens, resumed.latency_ms) == (0, 0, 0.0)
    assert agent_a.calls == [] and agent_b.calls == []


def test_a_stored_unparsed_turn_ends_the_resumed_debate_without_calls():
    first = debate_pair(
        PAIR, ScriptedClient([reply(1)]), ScriptedClient(["?", "??"]), DebateConfig()
    )
    assert first.escalation_reason == "unparsed"

    resumed = debate_pair(
        PAIR, ScriptedClient([]), ScriptedClient([]), DebateConfig(), done_turns=first.turns
    )

    assert (resumed.status, resumed.escalation_reason, resumed.calls) == (
        "escalated",
        "unparsed",
        0,
    )
    assert resumed.turns == first.turns


def test_stored_turns_a_debate_could_not_have_produced_are_refused_before_any_call():
    full = _uninterrupted()
    agent_a, agent_b = ScriptedClient([]), ScriptedClient([])
    bad_cases = [
        ([full.turns[0], full.turns[0]], "given twice"),
        ([full.turns[2]], "would not have reached"),  # round 2 without round 1
        (list(full.turns), "not a turn of a 2-round debate"),  # round 3 of 3, config R=2
    ]
    for done, message in bad_cases:
        config = DebateConfig(rounds=2) if "2-round" in message else CONFIG
        with pytest.raises(ValueError, match=message):
            debate_pair(PAIR, agent_a, agent_b, config, done_turns=done)
    assert agent_a.calls == [] and agent_b.calls == []


def test_stored_turns_after_a_consensus_are_refused():
    agreed = debate_pair(
        PAIR, ScriptedClient([reply(1)]), ScriptedClient([reply(1)]), DebateConfig()
    )
    later = _uninterrupted().turns[2:4]

    with pytest.raises(ValueError, match=r"would not have reached: \[\(2, 'A'\), \(2, 'B'\)\]"):
        debate_pair(
            PAIR,
            ScriptedClient([]),
            ScriptedClient([]),
            DebateConfig(),
            done_turns=agreed.turns + later,
        )
