"""A graded debate resumed from stored turns makes only the missing calls, and stored turns
are checked against the job's consensus rule: a round the rule counts as agreed ends the
debate, so turns stored after it are refused."""

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, reply

# Exact rule: grades 3/1, then 2/1, then 2/2: consensus on 2 in round 3.
A_REPLIES = [reply(3, "A1"), reply(2, "A2"), reply(2, "A3")]
B_REPLIES = [reply(1, "B1"), reply(1, "B2"), reply(2, "B3")]
EXACT = DebateConfig(rounds=3, scale="graded", max_grade=3, consensus="exact")


@pytest.mark.parametrize("stored", range(0, 6))
def test_resuming_a_graded_debate_makes_exactly_the_missing_calls(stored):
    full = debate_pair(PAIR, ScriptedClient(A_REPLIES), ScriptedClient(B_REPLIES), EXACT)
    assert (full.status, full.final_label, full.consensus_round) == ("agreed", 2, 3)
    done = full.turns[:stored]
    a_done = sum(1 for t in done if t.agent == "A")
    agent_a = ScriptedClient(A_REPLIES[a_done:])
    agent_b = ScriptedClient(B_REPLIES[stored - a_done :])

    resumed = debate_pair(PAIR, agent_a, agent_b, EXACT, done_turns=done)

    assert resumed.turns == full.turns
    assert resumed.calls == 6 - stored


def test_turns_after_a_round_the_binary_rule_agrees_on_are_refused():
    exact = debate_pair(PAIR, ScriptedClient(A_REPLIES), ScriptedClient(B_REPLIES), EXACT)
    binary = DebateConfig(rounds=3, scale="graded", max_grade=3, consensus="binary")

    # Under the binary rule round 1 (3 and 1, both relevant) already agreed on 1.
    with pytest.raises(ValueError, match="would not have reached"):
        debate_pair(PAIR, ScriptedClient([]), ScriptedClient([]), binary, done_turns=exact.turns)
    resumed = debate_pair(
        PAIR, ScriptedClient([]), ScriptedClient([]), binary, done_turns=exact.turns[:2]
    )
    assert (resumed.status, resumed.final_label, resumed.consensus_round) == ("agreed", 1, 1)
    assert resumed.calls == 0
