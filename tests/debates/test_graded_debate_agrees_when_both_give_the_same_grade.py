"""Graded debates: both agents giving the same grade in a round is consensus under either
rule, and every call asks for a grade 0..G in the reply schema."""

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, reply


@pytest.mark.parametrize("rule", ["exact", "binary"])
@pytest.mark.parametrize("grade", [0, 1, 2, 3])
def test_the_same_grade_in_round_one_is_the_final_grade(rule, grade):
    agent_a = ScriptedClient([reply(grade, "my grade")])
    agent_b = ScriptedClient([reply(grade, "the same grade")])
    config = DebateConfig(scale="graded", max_grade=3, consensus=rule)

    outcome = debate_pair(PAIR, agent_a, agent_b, config)

    assert (outcome.status, outcome.final_label, outcome.consensus_round) == (
        "agreed",
        grade,
        1,
    )
    assert outcome.calls == 2
    assert [(t.agent, t.stance, t.label) for t in outcome.turns] == [
        ("A", "relevant", grade),
        ("B", "irrelevant", grade),
    ]


def test_every_graded_call_has_an_integer_enum_of_the_grades_in_its_schema():
    agent_a = ScriptedClient([reply(2)])
    agent_b = ScriptedClient([reply(2)])

    debate_pair(PAIR, agent_a, agent_b, DebateConfig(scale="graded", max_grade=2))

    for call in agent_a.calls + agent_b.calls:
        label = call.params.json_schema["properties"]["label"]
        assert label == {"type": "integer", "enum": [0, 1, 2]}


def test_a_graded_config_carries_the_graded_prompt_version():
    assert DebateConfig(scale="graded", max_grade=2).prompt_version == "dream-graded-v2"
    assert DebateConfig().prompt_version == "dream-v2"
    # The layout before stays selectable, for the jobs that stored it.
    old = DebateConfig(scale="graded", max_grade=2, prompt_version="dream-graded-v1")
    assert old.prompt_version == "dream-graded-v1"


@pytest.mark.parametrize(
    "settings",
    [
        {"scale": "graded", "max_grade": 0},
        {"scale": "graded", "max_grade": 5},
        {"scale": "graded", "max_grade": True},
        {"scale": "binary", "max_grade": 2},
        {"scale": "ordinal"},
        {"scale": "graded", "max_grade": 2, "consensus": "majority"},
        {"scale": "graded", "max_grade": 2, "prompt_version": "dream-v1"},
        {"scale": "graded", "max_grade": 2, "prompt_version": "dream-v2"},
        {"scale": "binary", "prompt_version": "dream-graded-v2"},
    ],
)
def test_a_config_outside_the_graded_settings_is_refused(settings):
    with pytest.raises(ValueError):
        config = DebateConfig(**settings)
        debate_pair(PAIR, ScriptedClient([]), ScriptedClient([]), config)
