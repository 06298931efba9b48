"""The shared-prefix layout (dream-v2, dream-graded-v2, the default): the system prompt and
the query/answers/chunk blocks are the same for both agents and every round and come first;
the previous round's turns follow, A's then B's for both agents; the agent's stance and the
round's instruction come last. So every call repeats the longest possible prefix of the calls
of its debate before it (what vLLM, SGLang and OpenAI's prefix caches reuse)."""

import os

import pytest

from debates import prompts
from debates.engine import DebateConfig, debate_pair, judge_single
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, PAIR_WITH_ANSWERS, blocks, reply

JUDGE_LINE = "You are judge "

CONFIGS = {
    "binary": DebateConfig(rounds=3),
    "graded": DebateConfig(rounds=3, scale="graded", max_grade=2),
}


@pytest.fixture(params=[(s, p) for s in sorted(CONFIGS) for p in ("plain", "answers")])
def debate(request):
    """Every call of a three-round debate that never agrees: (A's calls, B's calls), each the
    RecordedCalls of rounds 1, 2, 3."""
    scale, pair = request.param
    top = CONFIGS[scale].graded_max_grade or 1
    agent_a = ScriptedClient(
        [
            reply(top, f"A{r}: the trial answers it", ["Daily vitamin D of 800 IU"])
            for r in (1, 2, 3)
        ]
    )
    agent_b = ScriptedClient(
        [
            reply(0, f"B{r}: lower doses failed", ["Lower doses showed no effect."])
            for r in (1, 2, 3)
        ]
    )
    config = CONFIGS[scale]
    assert config.prompt_version in prompts.SHARED_PREFIX_VERSIONS
    debate_pair(PAIR_WITH_ANSWERS if pair == "answers" else PAIR, agent_a, agent_b, config)
    return agent_a.calls, agent_b.calls


def _text(call) -> str:
    """A call's messages as one string, as a chat template lays them out: in order."""
    return "".join(f"<|{m['role']}|>{m['content']}" for m in call.messages)


def _common(*texts: str) -> str:
    return os.path.commonprefix(list(texts))


def test_v2_prompts_of_a_and_b_share_everything_up_to_the_stance(debate):
    (a1, *_), (b1, *_) = debate

    assert a1.system == b1.system
    shared = _common(_text(a1), _text(b1))
    # They part ways at the judge's letter, right after the query/answers/chunk blocks.
    assert shared.endswith("CHUNK>>>\n" + JUDGE_LINE)
    assert _text(a1)[len(shared) :].startswith("A. Your initial stance: RELEVANT")
    assert _text(b1)[len(shared) :].startswith("B. Your initial stance: IRRELEVANT")


def test_a_round_two_prompt_starts_with_the_round_one_prompts_shared_prefix(debate):
    (a1, a2, a3), (b1, b2, b3) = debate
    round_one = _common(_text(a1), _text(b1)).removesuffix(JUDGE_LINE)

    for later in (a2, b2, a3, b3):
        assert _text(later).startswith(round_one)
    # Within a round, B repeats A's prompt up to the judge line: turns of the last round too.
    for a, b in ((a2, b2), (a3, b3)):
        shared = _common(_text(a), _text(b))
        assert shared.endswith("TURN_B>>>\n" + JUDGE_LINE)
        assert len(shared) > len(round_one) + len("<<<TURN_A") + len("<<<TURN_B")


def test_a_and_b_turns_appear_in_fixed_order_for_both_agents(debate):
    (_, a2, a3), (_, b2, b3) = debate

    for number, calls in ((1, (a2, b2)), (2, (a3, b3))):
        histories = set()
        for call in calls:
            user = call.last_user
            turns = user[user.index("CHUNK>>>") : user.rindex(JUDGE_LINE)]
            histories.add(turns)
            assert turns.index("Judge A (initial stance: relevant):\n<<<TURN_A") < turns.index(
                "Judge B (initial stance: irrelevant):\n<<<TURN_B"
            )
            (turn_a,) = blocks(user, "TURN_A")
            (turn_b,) = blocks(user, "TURN_B")
            assert f"argument: A{number}:" in turn_a and f"argument: B{number}:" in turn_b
            for word in ("YOUR_TURN", "OPPONENT", "Your turn", "other judge's turn"):
                assert word not in user
        assert len(histories) == 1  # the same text for A and for B


def test_each_agent_is_told_its_stance_and_the_judge_to_critique_at_the_end(debate):
    (a1, a2, _), (b1, b2, _) = debate

    assert a1.last_user.split("\n")[-2].startswith("You are judge A. Your initial stance: RELEVANT")
    assert b1.last_user.split("\n")[-2].startswith("You are judge B. Your initial stance: IRRELE")
    assert a2.last_user.split("\n")[-1].startswith("Round 2. Critique judge B's argument")
    assert b2.last_user.split("\n")[-1].startswith("Round 2. Critique judge A's argument")


def test_the_graded_stances_are_the_highest_supported_grade_and_grade_zero():
    common = {"query": PAIR.query, "answers": (), "title": PAIR.title, "chunk": PAIR.chunk}
    first_a = prompts.shared_user_prompt(agent="A", round=1, max_grade=2, **common)
    first_b = prompts.shared_user_prompt(agent="B", round=1, max_grade=2, **common)

    assert first_a.endswith(
        "You are judge A. Your initial stance: RELEVANT.\nRound 1. Argue that the chunk is "
        "relevant, for the highest grade its evidence supports. Quote evidence sentences from "
        "the chunk. Reply with the JSON object only."
    )
    assert first_b.endswith(
        "You are judge B. Your initial stance: IRRELEVANT (grade 0).\nRound 1. Argue that the "
        "chunk is not relevant (grade 0). Quote evidence sentences from the chunk. Reply with "
        "the JSON object only."
    )
    with pytest.raises(ValueError, match="round 2 needs both turns of round 1"):
        prompts.shared_user_prompt(agent="A", round=2, **common)


def test_a_re_ask_repeats_the_whole_prompt_of_its_turn():
    agent_a = ScriptedClient(["not json", reply(1)])
    agent_b = ScriptedClient([reply(1)])

    debate_pair(PAIR, agent_a, agent_b, DebateConfig())

    first, again = agent_a.calls
    assert again.messages[:2] == first.messages
    assert again.messages[-1] == {"role": "user", "content": prompts.FORMAT_REMINDER}


@pytest.mark.parametrize(
    ("scale", "versions"),
    [("binary", ("dream-v1", "dream-v2")), ("graded", ("dream-graded-v1", "dream-graded-v2"))],
)
def test_a_config_takes_either_version_of_its_scale_and_names_them_when_refused(scale, versions):
    grades = {"max_grade": 2} if scale == "graded" else {}
    for version in versions:
        assert DebateConfig(scale=scale, prompt_version=version, **grades).prompt_version == version
    assert DebateConfig(scale=scale, **grades).prompt_version == versions[-1]
    other = "dream-graded-v2" if scale == "binary" else "dream-v2"
    named = f"'{versions[0]}', '{versions[1]}'"
    with pytest.raises(ValueError, match=f"not available for {scale} debates.*{named}"):
        DebateConfig(scale=scale, prompt_version=other, **grades)


def test_the_single_judge_prompt_is_the_same_in_every_version():
    sent = []
    for version in ("dream-v1", "dream-v2"):
        client = ScriptedClient([reply(1)])
        judge_single(PAIR_WITH_ANSWERS, client, DebateConfig(prompt_version=version))
        sent.append(client.calls[0].messages)
    assert sent[0] == sent[1]
