"""A graded reply whose grade is outside 0..G, a fraction or an unknown word is re-asked once
(naming the grades) and then escalated "unparsed": never guessed, never clamped."""

import json

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, reply

GRADED = DebateConfig(scale="graded", max_grade=2)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (reply(3), reply(-1)),
        (reply(1.5), reply("1/2")),
        (reply(2.0), reply("2.0")),
        (reply("relevant"), reply("somewhat relevant")),
        (reply(True), reply(None)),
    ],
)
def test_two_unreadable_grades_escalate_unparsed_before_agent_b_speaks(first, second):
    agent_a = ScriptedClient([first, second])
    agent_b = ScriptedClient([])

    outcome = debate_pair(PAIR, agent_a, agent_b, GRADED)

    assert (outcome.status, outcome.final_label, outcome.escalation_reason) == (
        "escalated",
        None,
        "unparsed",
    )
    [turn] = outcome.turns
    assert turn.label is None and turn.attempts == 2
    assert turn.raw_attempts == (first, second)
    assert turn.parse_error
    assert outcome.calls == 2 and len(agent_b.calls) == 0


def test_the_reask_names_the_grades_and_a_readable_second_reply_counts():
    agent_a = ScriptedClient([reply(3), reply("highly relevant", "the answer is direct")])
    agent_b = ScriptedClient([reply(2)])

    outcome = debate_pair(PAIR, agent_a, agent_b, GRADED)

    assert (outcome.status, outcome.final_label) == ("agreed", 2)
    assert outcome.turns[0].attempts == 2
    reask = agent_a.calls[1].messages
    assert reask[-2] == {"role": "assistant", "content": reply(3)}
    assert reask[-1]["role"] == "user"
    assert reask[-1]["content"].splitlines()[-1] == (
        "label is one whole number from 0 to 2: 0 (not relevant), 1 (partially relevant), "
        "2 (highly relevant)."
    )


def test_a_grade_out_of_range_for_agent_b_is_never_clamped_to_the_top_grade():
    agent_a = ScriptedClient([reply(2)])
    agent_b = ScriptedClient([reply(7), json.dumps({"label": 7, "argument": "", "evidence": []})])

    outcome = debate_pair(PAIR, agent_a, agent_b, GRADED)

    assert (outcome.status, outcome.escalation_reason) == ("escalated", "unparsed")
    assert [t.label for t in outcome.turns] == [2, None]
    assert outcome.turns[1].parse_error == "grade out of range 0..2: 7"
