"""An agreeing round escalates as "low_confidence" when an agent's label probability (from
the server's logprobs) is below the job's floor; without a probability it settles."""

import math
from dataclasses import replace

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.base import TokenLogprob
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, reply, result


def sure(label: int, p: float):
    """A reply of ``label`` whose label token the server scored at ``p`` against the other
    value at 1 - p."""
    text = reply(label)
    head, tail = text.split(str(label), 1)
    other = str(1 - label)
    tokens = (
        TokenLogprob(head, -0.01),
        TokenLogprob(
            str(label), math.log(p), ((str(label), math.log(p)), (other, math.log(1 - p)))
        ),
        TokenLogprob(tail, -0.01),
    )
    return replace(result(text), logprobs=tokens)


def test_an_agreement_where_one_agent_is_unsure_escalates_as_low_confidence():
    agent_a = ScriptedClient([sure(1, 0.95)])
    agent_b = ScriptedClient([sure(1, 0.55)])
    config = DebateConfig(rounds=2, min_agreement_probability=0.6)
    outcome = debate_pair(PAIR, agent_a, agent_b, config)
    assert (outcome.status, outcome.escalation_reason) == ("escalated", "low_confidence")
    assert [t.label_probability for t in outcome.turns] == [
        pytest.approx(0.95),
        pytest.approx(0.55),
    ]
    assert outcome.calls == 2


def test_the_same_agreement_settles_when_both_are_above_the_floor_or_the_floor_is_off():
    for floor, p_b in ((0.5, 0.55), (0.0, 0.55)):
        outcome = debate_pair(
            PAIR,
            ScriptedClient([sure(1, 0.95)]),
            ScriptedClient([sure(1, p_b)]),
            DebateConfig(rounds=2, min_agreement_probability=floor),
        )
        assert (outcome.status, outcome.final_label, outcome.consensus_round) == ("agreed", 1, 1)


def test_an_agent_without_a_probability_cannot_make_an_agreement_escalate():
    outcome = debate_pair(
        PAIR,
        ScriptedClient([reply(0)]),
        ScriptedClient([reply(0)]),
        DebateConfig(rounds=2, min_agreement_probability=0.99),
    )
    assert (outcome.status, outcome.final_label) == ("agreed", 0)


def test_a_floor_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="min_agreement_probability must be between 0 and 1"):
        DebateConfig(min_agreement_probability=1.5)
