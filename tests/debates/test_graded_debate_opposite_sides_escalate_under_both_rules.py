"""A grade of 0 against a grade >= 1 is disagreement under both consensus rules: the pair
escalates after R rounds as in binary DREAM."""

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, reply


@pytest.mark.parametrize("rule", ["exact", "binary"])
def test_relevant_against_not_relevant_for_r_rounds_escalates(rule):
    agent_a = ScriptedClient([reply(2), reply(1, "at least partly")])
    agent_b = ScriptedClient([reply(0), reply(0, "still nothing")])
    config = DebateConfig(scale="graded", max_grade=2, consensus=rule, rounds=2)

    outcome = debate_pair(PAIR, agent_a, agent_b, config)

    assert (outcome.status, outcome.final_label, outcome.escalation_reason) == (
        "escalated",
        None,
        "disagreement",
    )
    assert outcome.calls == 4
    assert [(t.round, t.agent, t.label) for t in outcome.turns] == [
        (1, "A", 2),
        (1, "B", 0),
        (2, "A", 1),
        (2, "B", 0),
    ]


@pytest.mark.parametrize("rule", ["exact", "binary"])
def test_the_sceptic_conceding_a_grade_in_round_two_ends_the_debate(rule):
    agent_a = ScriptedClient([reply(1), reply(1)])
    agent_b = ScriptedClient([reply(0), reply(1, "it is related after all")])
    config = DebateConfig(scale="graded", max_grade=2, consensus=rule, rounds=3)

    outcome = debate_pair(PAIR, agent_a, agent_b, config)

    assert (outcome.status, outcome.final_label, outcome.consensus_round) == ("agreed", 1, 2)
    assert agent_a.remaining == 0 and agent_b.remaining == 0
