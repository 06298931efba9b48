"""With a pair runner the two turns of a round, which both see only the previous round, are
asked at once: same prompts, turns and outcome as one after the other, each turn stored as
soon as it arrives, and a failure of one still stores the other, so a resumed debate asks
only the missing turn. Pure engine: no database, scripted clients."""

import threading

import pytest

from debates.engine import DebateConfig, debate_pair
from debates.llm.base import TransientLLMError
from debates.llm.scripted import ScriptedClient
from tests.fixtures.engine import PAIR, reply, round_of

A_REPLIES = [reply(1, "A1"), reply(1, "A2"), reply(0, "A3")]
B_REPLIES = [reply(0, "B1"), reply(0, "B2"), reply(0, "B3")]
CONFIG = DebateConfig(rounds=3)


def threaded_runner(first, second):
    """The engine's PairRunner contract, as the debate service implements it."""
    out = []

    def run_first():
        try:
            out.append((first(), None))
        except BaseException as exc:
            out.append((None, exc))

    helper = threading.Thread(target=run_first)
    helper.start()
    try:
        mine = (second(), None)
    except Exception as exc:
        mine = (None, exc)
    helper.join()
    return out[0], mine


def paired(agent_a, agent_b, stored, **kwargs):
    """The debate with both turns of each round at once, every stored turn appended to
    ``stored``."""
    return debate_pair(
        PAIR,
        agent_a,
        agent_b,
        CONFIG,
        on_turn=stored.append,
        pair_runner=threaded_runner,
        **kwargs,
    )


class MeetingClient(ScriptedClient):
    """A scripted client whose every call waits for the other agent's call of the round:
    one after the other, the first call would wait in vain (BrokenBarrierError)."""

    def __init__(self, replies, barrier):
        super().__init__(replies)
        self.barrier = barrier

    def chat(self, messages, params):
        self.barrier.wait()
        return super().chat(messages, params)


def test_both_calls_of_every_round_are_in_flight_together_and_the_outcome_is_unchanged():
    barrier = threading.Barrier(2, timeout=5)
    a, b = MeetingClient(A_REPLIES, barrier), MeetingClient(B_REPLIES, barrier)
    stored = []

    both = paired(a, b, stored)
    alone_a, alone_b = ScriptedClient(A_REPLIES), ScriptedClient(B_REPLIES)
    alone = debate_pair(PAIR, alone_a, alone_b, CONFIG)

    assert both == alone
    assert (both.status, both.final_label, both.consensus_round) == ("agreed", 0, 3)
    assert both.calls == 6
    assert sorted((t.round, t.agent) for t in stored) == [
        (r, agent) for r in (1, 2, 3) for agent in ("A", "B")
    ]
    assert [t.round for t in stored] == [1, 1, 2, 2, 3, 3]  # a round after the one before
    assert [c.messages for c in a.calls] == [c.messages for c in alone_a.calls]
    assert [c.messages for c in b.calls] == [c.messages for c in alone_b.calls]


def test_when_b_fails_a_is_stored_and_a_resumed_run_asks_only_b():
    stored = []
    b = ScriptedClient([B_REPLIES[0], TransientLLMError("503")])
    with pytest.raises(TransientLLMError, match="503"):
        paired(ScriptedClient(A_REPLIES), b, stored)
    assert sorted((t.round, t.agent) for t in stored) == [(1, "A"), (1, "B"), (2, "A")]
    stored.sort(key=lambda t: (t.round, t.agent))

    a, b = ScriptedClient(A_REPLIES[2:]), ScriptedClient(B_REPLIES[1:])
    resumed = paired(a, b, [], done_turns=list(stored))
    # B of round 2 alone, then round 3 with both.
    assert [round_of(c.messages) for c in b.calls] == [2, 3]
    assert [round_of(c.messages) for c in a.calls] == [3]
    assert (
        resumed.turns
        == debate_pair(PAIR, ScriptedClient(A_REPLIES), ScriptedClient(B_REPLIES), CONFIG).turns
    )


def test_when_a_fails_b_is_stored_and_a_resumed_run_asks_only_a():
    stored = []
    a = ScriptedClient([TransientLLMError("timeout")])
    with pytest.raises(TransientLLMError, match="timeout"):
        paired(a, ScriptedClient(B_REPLIES), stored)
    assert [(t.round, t.agent) for t in stored] == [(1, "B")]

    a, b = ScriptedClient(A_REPLIES), ScriptedClient(B_REPLIES[1:])
    resumed = debate_pair(PAIR, a, b, CONFIG, done_turns=stored)
    assert [round_of(c.messages) for c in a.calls] == [1, 2, 3]
    assert [round_of(c.messages) for c in b.calls] == [2, 3]
    assert (resumed.status, resumed.final_label, resumed.consensus_round) == ("agreed", 0, 3)


def test_an_unreadable_a_escalates_and_keeps_the_b_turn_that_was_asked_with_it():
    unreadable = ["not json", "still not json"]  # the reply and its re-ask
    stored = []
    outcome = paired(ScriptedClient(unreadable), ScriptedClient(B_REPLIES), stored)
    assert (outcome.status, outcome.escalation_reason) == ("escalated", "unparsed")
    assert sorted((t.round, t.agent, t.label) for t in stored) == [(1, "A", None), (1, "B", 0)]
    assert outcome.calls == 3  # what was asked, and billed

    # Stored so, the debate resumes (e.g. after a crash before its outcome was written).
    again = debate_pair(PAIR, ScriptedClient([]), ScriptedClient([]), CONFIG, done_turns=stored)
    assert (again.status, again.escalation_reason, again.calls) == ("escalated", "unparsed", 0)


def test_one_after_the_other_b_is_still_not_asked_after_an_unreadable_a():
    b = ScriptedClient(B_REPLIES)
    outcome = debate_pair(PAIR, ScriptedClient(["no", "no"]), b, CONFIG)
    assert (outcome.status, outcome.escalation_reason, outcome.calls) == (
        "escalated",
        "unparsed",
        2,
    )
    assert b.calls == []
