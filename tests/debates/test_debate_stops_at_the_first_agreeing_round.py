"""A debate ends at the first round whose two labels agree: that label is final."""

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.scripted import RuleClient, ScriptedClient
from tests.fixtures.engine import PAIR, reply, result, round_of, stance_in


def test_agreement_in_round_one_ends_the_debate_after_two_calls():
    agent_a = ScriptedClient([reply(1, "the trial shows it", ["Daily vitamin D"])])
    agent_b = ScriptedClient([reply("relevant", "I concede")])

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig(rounds=2))

    assert outcome.status == "agreed"
    assert outcome.final_label == 1
    assert outcome.consensus_round == 1
    assert outcome.escalation_reason is None
    assert outcome.calls == 2
    assert [(t.round, t.agent, t.stance, t.label) for t in outcome.turns] == [
        (1, "A", "relevant", 1),
        (1, "B", "irrelevant", 1),
    ]
    assert len(agent_a.calls) == 1 and len(agent_b.calls) == 1


def test_agreement_in_round_two_ends_the_debate_after_four_calls():
    agent_a = ScriptedClient([reply(1), reply(0, "B is right")])
    agent_b = ScriptedClient([reply(0), reply(0, "still irrelevant")])

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig(rounds=3))

    assert (outcome.status, outcome.final_label, outcome.consensus_round) == ("agreed", 0, 2)
    assert outcome.calls == 4
    assert [(t.round, t.agent, t.label) for t in outcome.turns] == [
        (1, "A", 1),
        (1, "B", 0),
        (2, "A", 0),
        (2, "B", 0),
    ]
    assert agent_a.remaining == 0 and agent_b.remaining == 0


def test_the_outcome_sums_tokens_and_latency_over_all_calls():
    agent_a = ScriptedClient(
        [
            result(reply(1), prompt_tokens=300, completion_tokens=40, latency_ms=120.5),
            result(reply(1), prompt_tokens=500, completion_tokens=30, latency_ms=80.0),
        ]
    )
    agent_b = ScriptedClient(
        [
            result(reply(0), prompt_tokens=310, completion_tokens=25, latency_ms=99.5),
            result(reply(1), prompt_tokens=520, completion_tokens=35, latency_ms=100.0),
        ]
    )

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig())

    assert outcome.consensus_round == 2
    assert outcome.prompt_tokens == 300 + 500 + 310 + 520
    assert outcome.completion_tokens == 40 + 30 + 25 + 35
    assert outcome.latency_ms == pytest.approx(120.5 + 80.0 + 99.5 + 100.0)
    assert [t.prompt_tokens for t in outcome.turns] == [300, 310, 500, 520]


def test_every_call_is_made_at_temperature_zero_with_the_reply_schema():
    agent_a = ScriptedClient([reply(1), reply(1)])
    agent_b = ScriptedClient([reply(0), reply(1)])

    debate_pair(PAIR, agent_a, agent_b, DebateConfig(max_tokens=200))

    for call in agent_a.calls + agent_b.calls:
        assert call.params.temperature == 0.0
        assert call.params.max_tokens == 200
        schema = call.params.json_schema
        assert schema["properties"]["label"] == {"type": "integer", "enum": [0, 1]}
        assert schema["required"] == ["label", "argument", "evidence"]
        # Bounded strings keep a small model from rambling past max_tokens.
        assert schema["properties"]["argument"]["maxLength"] == 400
        assert schema["properties"]["evidence"]["maxItems"] == 3


def _stubborn_until(concede_round: int):
    """An agent that argues its stance, then takes label 1 from ``concede_round`` on."""

    def rule(messages):
        stance_label = 1 if stance_in(messages) == "relevant" else 0
        return reply(1 if round_of(messages) >= concede_round else stance_label)

    return rule


@pytest.mark.parametrize("concede_round", [1, 2, 3, 4, 5])
def test_rule_agents_agree_exactly_in_the_round_the_sceptic_concedes(concede_round):
    agent_a = RuleClient(_stubborn_until(99))  # always "relevant", it is its stance
    agent_b = RuleClient(_stubborn_until(concede_round))

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig(rounds=5))

    assert outcome.status == "agreed"
    assert outcome.final_label == 1
    assert outcome.consensus_round == concede_round
    assert outcome.calls == 2 * concede_round
    assert [round_of(c.messages) for c in agent_b.calls] == list(range(1, concede_round + 1))
