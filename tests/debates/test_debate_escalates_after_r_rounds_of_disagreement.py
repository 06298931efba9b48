"""Agents that still disagree after R rounds send the pair to a human: 2R calls, no label."""

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.scripted import RuleClient, ScriptedClient
from tests.fixtures.engine import PAIR, reply, stance_in


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_r_rounds_of_disagreement_escalate_after_two_r_calls(rounds):
    agent_a = ScriptedClient([reply(1)] * rounds)
    agent_b = ScriptedClient([reply(0)] * rounds)

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig(rounds=rounds))

    assert outcome.status == "escalated"
    assert outcome.escalation_reason == "disagreement"
    assert outcome.final_label is None
    assert outcome.consensus_round is None
    assert outcome.calls == 2 * rounds
    assert [(t.round, t.agent) for t in outcome.turns] == [
        (r, agent) for r in range(1, rounds + 1) for agent in ("A", "B")
    ]
    assert agent_a.remaining == 0 and agent_b.remaining == 0


def test_agents_that_never_leave_their_stance_use_all_five_rounds():
    def stubborn(messages):
        return reply("relevant" if stance_in(messages) == "relevant" else "not relevant")

    agent_a, agent_b = RuleClient(stubborn), RuleClient(stubborn)

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig(rounds=5))

    assert (outcome.status, outcome.escalation_reason, outcome.calls) == (
        "escalated",
        "disagreement",
        10,
    )
    assert [t.label for t in outcome.turns] == [1, 0] * 5


@pytest.mark.parametrize("rounds", [0, 6, -1, 2.0, True, None])
def test_rounds_outside_one_to_five_are_refused(rounds):
    with pytest.raises(ValueError, match="rounds must be an integer in 1..5"):
        DebateConfig(rounds=rounds)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("temperature", -0.1, "temperature"), ("max_tokens", 0, "max_tokens")],
)
def test_a_negative_temperature_or_an_empty_token_budget_is_refused(field, value, message):
    with pytest.raises(ValueError, match=message):
        DebateConfig(**{field: value})


def test_a_prompt_version_this_code_does_not_have_is_refused_before_any_call():
    agent_a, agent_b = ScriptedClient([]), ScriptedClient([])

    with pytest.raises(ValueError, match="prompt version 'dream-v0' is not available"):
        debate_pair(PAIR, agent_a, agent_b, DebateConfig(prompt_version="dream-v0"))
    assert agent_a.calls == [] and agent_b.calls == []
