"""Backend errors reach the caller unchanged; turns finished before them were handed over."""

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.base import PermanentLLMError, TransientLLMError
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, reply


def test_a_transient_error_in_round_two_propagates_after_three_turns_were_handed_over():
    error = TransientLLMError("HTTP 429", retry_after=7.0)
    agent_a = ScriptedClient([reply(1, "A1"), reply(1, "A2")])
    agent_b = ScriptedClient([reply(0, "B1"), error])
    seen = []

    with pytest.raises(TransientLLMError) as raised:
        debate_pair(PAIR, agent_a, agent_b, DebateConfig(), on_turn=seen.append)

    assert raised.value is error
    assert raised.value.retry_after == 7.0
    assert [(t.round, t.agent, t.argument) for t in seen] == [
        (1, "A", "A1"),
        (1, "B", "B1"),
        (2, "A", "A2"),
    ]


def test_a_permanent_error_on_the_first_call_hands_over_nothing():
    agent_a = ScriptedClient([PermanentLLMError("model not found")])
    agent_b = ScriptedClient([])
    seen = []

    with pytest.raises(PermanentLLMError, match="model not found"):
        debate_pair(PAIR, agent_a, agent_b, DebateConfig(), on_turn=seen.append)

    assert seen == []
    assert agent_b.calls == []


def test_an_error_during_the_re_ask_loses_the_half_finished_turn():
    agent_a = ScriptedClient(["not json", TransientLLMError("timeout")])
    agent_b = ScriptedClient([])
    seen = []

    with pytest.raises(TransientLLMError, match="timeout"):
        debate_pair(PAIR, agent_a, agent_b, DebateConfig(), on_turn=seen.append)

    # The unreadable first attempt is no turn: a resumed run asks this turn again.
    assert seen == []
    assert len(agent_a.calls) == 2


def test_on_turn_sees_each_turn_before_the_next_call_is_made():
    log = []

    class Logged(ScriptedClient):
        def chat(self, messages, params):
            log.append(f"call {self.model}")
            return super().chat(messages, params)

    agent_a = Logged([reply(1), reply(0)], model="a")
    agent_b = Logged([reply(0), reply(0)], model="b")

    debate_pair(
        PAIR,
        agent_a,
        agent_b,
        DebateConfig(),
        on_turn=lambda t: log.append(f"stored {t.round}{t.agent}"),
    )

    assert log == [
        "call a",
        "stored 1A",
        "call b",
        "stored 1B",
        "call a",
        "stored 2A",
        "call b",
        "stored 2B",
    ]
