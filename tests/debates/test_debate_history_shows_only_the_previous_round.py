"""From round 2 on, each agent reads both turns of the previous round, inside delimiters."""

from debates.engine import DebateConfig, debate_pair
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, only_block, outside_blocks, reply


def _three_round_debate():
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
    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig(rounds=3))
    return outcome, agent_a, agent_b


def test_round_two_prompt_of_a_holds_b_round_one_turn_inside_the_opponent_block():
    _, agent_a, _ = _three_round_debate()
    prompt = agent_a.calls[1].last_user

    assert only_block(prompt, "OPPONENT") == (
        "label: 0 (irrelevant)\n"
        "argument: B1: lower doses showed no effect\n"
        "evidence:\n"
        "- Lower doses showed no effect."
    )
    assert only_block(prompt, "YOUR_TURN") == (
        "label: 1 (relevant)\n"
        "argument: A1: the 800 IU trial answers it\n"
        "evidence:\n"
        "- Daily vitamin D of 800 IU"
    )
    assert "B1:" not in outside_blocks(prompt)
    assert "Round 2. Critique the other judge's argument" in prompt


def test_no_agent_sees_a_turn_of_the_round_it_is_speaking_in():
    _, agent_a, agent_b = _three_round_debate()

    assert "B2:" not in agent_a.calls[1].last_user
    # B speaks after A in round 2 but must not read A's round-2 turn.
    assert "A2:" not in agent_b.calls[1].last_user
    assert "A1:" in only_block(agent_b.calls[1].last_user, "OPPONENT")
    assert "B1:" in only_block(agent_b.calls[1].last_user, "YOUR_TURN")


def test_round_three_shows_round_two_and_not_round_one():
    _, agent_a, agent_b = _three_round_debate()

    prompt_a, prompt_b = agent_a.calls[2].last_user, agent_b.calls[2].last_user
    assert "B2: the effect is dose dependent" in only_block(prompt_a, "OPPONENT")
    assert "A2: B ignores" in only_block(prompt_a, "YOUR_TURN")
    assert "A2: B ignores" in only_block(prompt_b, "OPPONENT")
    for old in ("A1:", "B1:", "A3:", "B3:"):
        assert old not in prompt_a and old not in prompt_b


def test_round_one_prompts_hold_no_earlier_turn():
    _, agent_a, agent_b = _three_round_debate()

    for call in (agent_a.calls[0], agent_b.calls[0]):
        assert "<<<OPPONENT" not in call.last_user and "<<<YOUR_TURN" not in call.last_user


def test_a_turn_without_evidence_is_shown_as_none():
    agent_a = ScriptedClient([reply(1, "A1"), reply(1)])
    agent_b = ScriptedClient([reply(0, "B1", []), reply(1)])

    debate_pair(PAIR, agent_a, agent_b, DebateConfig())

    assert only_block(agent_a.calls[1].last_user, "OPPONENT") == (
        "label: 0 (irrelevant)\nargument: B1\nevidence:\n(none)"
    )


def test_the_outcome_keeps_the_whole_history_verbatim():
    outcome, _, _ = _three_round_debate()

    assert [t.argument.split(":")[0] for t in outcome.turns] == ["A1", "B1", "A2", "B2", "A3", "B3"]
    assert outcome.turns[0].evidence == ("Daily vitamin D of 800 IU",)
    assert outcome.turns[1].raw == reply(
        0, "B1: lower doses showed no effect", ["Lower doses showed no effect."]
    )
    assert all(t.attempts == 1 and t.parse_error is None for t in outcome.turns)
