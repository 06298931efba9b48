"""Prompts that would overflow the context window get a cut chunk with a marker, never overflow.

The scripted clients count one token per whitespace-separated word, so limits are exact.
"""

import pytest

from debates import prompts
from debates.engine import DebateConfig, PairText, debate_pair, judge_single, prompt_token_count
from debates.llm.base import ContextTooLongError
from debates.llm.scripted import ScriptedClient
from debates.turns import chunk_fit
from tests.fixtures.engine import PAIR, only_block, reply, result

LONG = PairText(
    query_id="q1",
    query="which word comes first",
    doc_id="d1",
    title="Words",
    chunk=" ".join(f"w{i}" for i in range(2000)),
)
MARKER_WORDS = len(prompts.TRUNCATION_MARKER.split())


def _kept_words(call) -> list[str]:
    text = only_block(call.messages[1]["content"], "CHUNK").removeprefix("Title: Words\n")
    assert text.endswith(" " + prompts.TRUNCATION_MARKER)
    return text.removesuffix(" " + prompts.TRUNCATION_MARKER).split()


def test_a_chunk_that_fits_is_sent_whole_and_not_flagged():
    agent_a, agent_b = ScriptedClient([reply(1)]), ScriptedClient([reply(1)])

    outcome = debate_pair(LONG, agent_a, agent_b, DebateConfig())

    assert not outcome.chunk_truncated
    assert only_block(agent_a.calls[0].last_user, "CHUNK") == f"Title: Words\n{LONG.chunk}"


def test_a_long_chunk_is_cut_to_exactly_fill_the_context_with_a_marker():
    config = DebateConfig(max_tokens=384)
    agent_a = ScriptedClient([reply(1)], context_window=1024)
    agent_b = ScriptedClient([reply(1)], context_window=1024)

    outcome = debate_pair(LONG, agent_a, agent_b, config)

    assert outcome.chunk_truncated
    assert all(t.chunk_truncated for t in outcome.turns)
    call = agent_a.calls[0]
    kept = _kept_words(call)
    # The kept words are the start of the chunk, in order, whole words only.
    assert kept == [f"w{i}" for i in range(len(kept))]
    # Word counting makes the fit tight: one more word would overflow.
    assert prompt_token_count(agent_a, call.messages) == 1024 - 384
    assert 300 < len(kept) < 2000


@pytest.mark.parametrize(
    ("version", "system"),
    [
        ("dream-v1", prompts.debate_system_prompt(stance="relevant", answer_aware=False)),
        ("dream-v2", prompts.shared_system_prompt(answer_aware=False)),
    ],
)
def test_instructions_and_query_are_never_cut(version, system):
    agent_a = ScriptedClient([reply(1)], context_window=1024)
    agent_b = ScriptedClient([reply(1)], context_window=1024)

    outcome = debate_pair(LONG, agent_a, agent_b, DebateConfig(prompt_version=version))

    assert outcome.chunk_truncated
    call = agent_a.calls[0]
    assert call.system == system
    assert only_block(call.last_user, "QUERY") == LONG.query
    assert call.last_user.endswith(
        "Round 1. Argue that the chunk is relevant. Quote evidence sentences from the chunk. "
        "Reply with the JSON object only."
    )


def test_later_rounds_cut_more_to_make_room_for_the_history():
    argument = "x " * 60
    agent_a = ScriptedClient([reply(1, argument), reply(1)], context_window=1024)
    agent_b = ScriptedClient([reply(0, argument), reply(1)], context_window=1024)

    outcome = debate_pair(LONG, agent_a, agent_b, DebateConfig())

    assert outcome.consensus_round == 2
    round_one, round_two = _kept_words(agent_a.calls[0]), _kept_words(agent_a.calls[1])
    assert len(round_one) - len(round_two) >= 120
    for call in agent_a.calls + agent_b.calls:
        assert prompt_token_count(agent_a, call.messages) <= 1024 - 384


def test_the_re_ask_also_fits_although_it_carries_the_bad_reply():
    bad = "blah " * 200
    agent_a = ScriptedClient([bad, reply(1)], context_window=1024)
    agent_b = ScriptedClient([reply(1)], context_window=1024)

    outcome = debate_pair(LONG, agent_a, agent_b, DebateConfig())

    first, reask = agent_a.calls
    assert reask.messages[2] == {"role": "assistant", "content": bad}
    assert prompt_token_count(agent_a, reask.messages) == 1024 - 384
    assert (
        len(_kept_words(first)) - len(_kept_words(reask))
        == 200 + len(prompts.FORMAT_REMINDER.split()) + 2 * 8
    )
    assert outcome.turns[0].attempts == 2


def test_a_prompt_that_cannot_fit_even_without_a_chunk_escalates_as_too_long_before_any_call():
    agent_a = ScriptedClient([], context_window=400)
    agent_b = ScriptedClient([], context_window=400)

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig(max_tokens=384))

    assert (outcome.status, outcome.escalation_reason) == ("escalated", "too_long")
    assert (outcome.turns, outcome.calls, outcome.final_label) == ((), 0, None)
    assert agent_a.calls == [] and agent_b.calls == []


def test_the_fit_itself_still_raises_a_context_error_naming_the_window():
    agent = ScriptedClient([], context_window=400)
    build = lambda chunk: [{"role": "user", "content": "word " * 50 + chunk}]  # noqa: E731

    with pytest.raises(ContextTooLongError, match=r"even with an empty chunk.*\(400\)"):
        chunk_fit(agent, build, "", 384)


def test_history_too_long_for_round_two_escalates_as_too_long_keeping_round_one():
    huge = "y " * 700
    # Each reply fits its budget (a server never returns more tokens than max_tokens); it is
    # the history of round 1, quoted back, that cannot fit round 2.
    agent_a = ScriptedClient([result(reply(1, huge), completion_tokens=300)], context_window=1024)
    agent_b = ScriptedClient([result(reply(0, huge), completion_tokens=300)], context_window=1024)
    seen = []

    outcome = debate_pair(PAIR, agent_a, agent_b, DebateConfig(), on_turn=seen.append)

    assert (outcome.status, outcome.escalation_reason) == ("escalated", "too_long")
    assert [(t.round, t.agent) for t in seen] == [(1, "A"), (1, "B")]
    assert [(t.round, t.agent) for t in outcome.turns] == [(1, "A"), (1, "B")]
    assert outcome.calls == 2
    assert len(agent_a.calls) == 1 and len(agent_b.calls) == 1


def test_the_single_judge_cuts_the_chunk_the_same_way():
    client = ScriptedClient([reply(0)], context_window=900)

    turn = judge_single(LONG, client, DebateConfig(max_tokens=100))

    assert turn.chunk_truncated
    assert prompt_token_count(client, client.calls[0].messages) == 900 - 100
    assert _kept_words(client.calls[0])[-1] != "w1999"
