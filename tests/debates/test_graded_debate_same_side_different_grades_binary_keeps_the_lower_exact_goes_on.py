"""Two grades on the same side of relevance (both >= 1): the binary rule agrees at once on
the lower grade; the exact rule goes on to the next round and escalates after R."""

from debates.engine import DebateConfig, consensus_label, debate_pair
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, only_block, reply


def test_binary_consensus_agrees_in_round_one_on_the_lower_grade():
    agent_a = ScriptedClient([reply(3, "exact answer")])
    agent_b = ScriptedClient([reply(1, "only related")])
    config = DebateConfig(scale="graded", max_grade=3, consensus="binary")

    outcome = debate_pair(PAIR, agent_a, agent_b, config)

    assert (outcome.status, outcome.final_label, outcome.consensus_round) == ("agreed", 1, 1)
    assert outcome.calls == 2


def test_exact_consensus_goes_on_and_agrees_when_the_grades_meet():
    agent_a = ScriptedClient([reply(3), reply(2, "fair, partial")])
    agent_b = ScriptedClient([reply(1), reply(2, "partial at best")])
    config = DebateConfig(scale="graded", max_grade=3, consensus="exact", rounds=2)

    outcome = debate_pair(PAIR, agent_a, agent_b, config)

    assert (outcome.status, outcome.final_label, outcome.consensus_round) == ("agreed", 2, 2)
    assert outcome.calls == 4
    # Round 2 shows the opponent's (B's) round-1 grade with its rubric name.
    opponent = only_block(agent_a.calls[1].messages[1]["content"], "TURN_B")
    assert opponent.splitlines()[0] == "label: 1 (related)"


def test_exact_consensus_escalates_when_the_grades_never_meet():
    agent_a = ScriptedClient([reply(3), reply(3)])
    agent_b = ScriptedClient([reply(1), reply(2)])
    config = DebateConfig(scale="graded", max_grade=3, consensus="exact", rounds=2)

    outcome = debate_pair(PAIR, agent_a, agent_b, config)

    assert (outcome.status, outcome.final_label, outcome.escalation_reason) == (
        "escalated",
        None,
        "disagreement",
    )
    assert [t.label for t in outcome.turns] == [3, 1, 3, 2]


def test_the_consensus_rules_on_every_pair_of_grades_0_to_2():
    exact = {(a, b): consensus_label(a, b, "exact") for a in range(3) for b in range(3)}
    binary = {(a, b): consensus_label(a, b, "binary") for a in range(3) for b in range(3)}
    assert exact == {
        (0, 0): 0, (0, 1): None, (0, 2): None,
        (1, 0): None, (1, 1): 1, (1, 2): None,
        (2, 0): None, (2, 1): None, (2, 2): 2,
    }  # fmt: skip
    assert binary == {
        (0, 0): 0, (0, 1): None, (0, 2): None,
        (1, 0): None, (1, 1): 1, (1, 2): 1,
        (2, 0): None, (2, 1): 1, (2, 2): 2,
    }  # fmt: skip
