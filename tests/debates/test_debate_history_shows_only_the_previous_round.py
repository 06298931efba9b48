"""From round 2 on, each agent reads both turns of the previous round, inside delimiters: as
"your turn" and "the other judge's" in the v1 layout (dream-v1), as judge A's and judge B's,
in that order for both agents, in the shared-prefix layout (dream-v2, the default)."""

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, only_block, outside_blocks, reply

# Per version: the blocks holding (for agent A) its own and the other agent's previous turn,
# the same for agent B, and how the round-2 instruction of agent A begins.
LAYOUTS = {
    "dream-v1": {
        "A": ("YOUR_TURN", "OPPONENT"),
        "B": ("YOUR_TURN", "OPPONENT"),
        "ask": "Round 2. Critique the other judge's argument",
    },
    "dream-v2": {
        "A": ("TURN_A", "TURN_B"),
        "B": ("TURN_B", "TURN_A"),
        "ask": "Round 2. Critique judge B's argument",
    },
}


@pytest.fixture(params=sorted(LAYOUTS))
def version(request):
    return request.param


def _three_round_debate(version):
    agent_a = ScriptedClient(
        [
            reply(1, "A1: the 800 IU trial answers it", ["Daily vitamin D of 800 IU"]),
            reply(1, "A2: B ignores the hip fracture result"),
            reply(1, "A3: unchanged"),
        ]
    )
    agent_b = ScriptedClient(
        [
            reply(0, "B1: lower doses showed no effect", ["Lower doses showed no effect."]),
            reply(0, "B2: the effect is dose dependent"),
            reply(0, "B3: unchanged"),
        ]
    )
    config = DebateConfig(rounds=3, prompt_version=version)
    outcome = debate_pair(PAIR, agent_a, agent_b, config)
    return outcome, agent_a, agent_b


def test_round_two_prompt_of_a_holds_b_round_one_turn_inside_the_opponent_block(version):
    _, agent_a, _ = _three_round_debate(version)
    prompt = agent_a.calls[1].last_user
    own, other = LAYOUTS[version]["A"]

    assert only_block(prompt, other) == (
        "label: 0 (irrelevant)\n"
        "argument: B1: lower doses showed no effect\n"
        "evidence:\n"
        "- Lower doses showed no effect."
    )
    assert only_block(prompt, own) == (
        "label: 1 (relevant)\n"
        "argument: A1: the 800 IU trial answers it\n"
        "evidence:\n"
        "- Daily vitamin D of 800 IU"
    )
    assert "B1:" not in outside_blocks(prompt)
    assert LAYOUTS[version]["ask"] in prompt


def test_no_agent_sees_a_turn_of_the_round_it_is_speaking_in(version):
    _, agent_a, agent_b = _three_round_debate(version)
    own, other = LAYOUTS[version]["B"]

    assert "B2:" not in agent_a.calls[1].last_user
    # B speaks after A in round 2 but must not read A's round-2 turn.
    assert "A2:" not in agent_b.calls[1].last_user
    assert "A1:" in only_block(agent_b.calls[1].last_user, other)
    assert "B1:" in only_block(agent_b.calls[1].last_user, own)


def test_round_three_shows_round_two_and_not_round_one(version):
    _, agent_a, agent_b = _three_round_debate(version)
    own_a, other_a = LAYOUTS[version]["A"]
    _, other_b = LAYOUTS[version]["B"]

    prompt_a, prompt_b = agent_a.calls[2].last_user, agent_b.calls[2].last_user
    assert "B2: the effect is dose dependent" in only_block(prompt_a, other_a)
    assert "A2: B ignores" in only_block(prompt_a, own_a)
    assert "A2: B ignores" in only_block(prompt_b, other_b)
    for old in ("A1:", "B1:", "A3:", "B3:"):
        assert old not in prompt_a and old not in prompt_b


def test_round_one_prompts_hold_no_earlier_turn(version):
    _, agent_a, agent_b = _three_round_debate(version)

    for call in (agent_a.calls[0], agent_b.calls[0]):
        for name in ("YOUR_TURN", "OPPONENT", "TURN_A", "TURN_B"):
            assert f"<<<{name}" not in call.last_user


def test_a_turn_without_evidence_is_shown_as_none(version):
    agent_a = ScriptedClient([reply(1, "A1"), reply(1)])
    agent_b = ScriptedClient([reply(0, "B1", []), reply(1)])

    debate_pair(PAIR, agent_a, agent_b, DebateConfig(prompt_version=version))

    _, other = LAYOUTS[version]["A"]
    assert only_block(agent_a.calls[1].last_user, other) == (
        "label: 0 (irrelevant)\nargument: B1\nevidence:\n(none)"
    )


def test_the_outcome_keeps_the_whole_history_verbatim(version):
    outcome, _, _ = _three_round_debate(version)

    assert [t.argument.split(":")[0] for t in outcome.turns] == ["A1", "B1", "A2", "B2", "A3", "B3"]
    assert outcome.turns[0].evidence == ("Daily vitamin D of 800 IU",)
    assert outcome.turns[1].raw == reply(
        0, "B1: lower doses showed no effect", ["Lower doses showed no effect."]
    )
    assert all(t.attempts == 1 and t.parse_error is None for t in outcome.turns)
