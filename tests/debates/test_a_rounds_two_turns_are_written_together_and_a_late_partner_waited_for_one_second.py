"""A debate run with both turns of a round in flight at once writes the round's two turns in
one write (they carry the same creation time), the last round's with the outcome (their
creation time is the debate's finish); a turn whose partner is late waits for it
``PARTNER_WAIT_S`` (1 s), then is written alone while the partner is still being asked.

Real PostgreSQL, the database lane's own connections; scripted agents."""

import threading
import time

import pytest
from django.db import connection

from debates.llm.scripted import RuleClient, ScriptedClient
from debates.models import Debate, Turn
from debates.services.launch import JobSpec, debate_job_launch
from debates.services.run import debate_run
from debates.services.threads import LLMGate
from debates.services.turn_writer import PARTNER_WAIT_S
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply, wait_for


@pytest.fixture
def debate(small_pool, fake_llms):
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2), start=False
    )
    return job.debates.order_by("pk").first()


def created(debate_id: int) -> dict[tuple[int, str], object]:
    return {
        (t.round, t.agent): t.created
        for t in Turn.objects.filter(debate_id=debate_id).order_by("round", "agent")
    }


@pytest.mark.django_db(transaction=True)
def test_each_rounds_two_turns_go_out_in_one_write_the_last_with_the_outcome(debate, fake_llms):
    fake_llms(
        a=ScriptedClient([reply(1, "A1"), reply(0, "A2")]),
        b=ScriptedClient([reply(0, "B1"), reply(0, "B2")]),
    )

    ended = debate_run(debate_id=debate.pk, gate=LLMGate(2))

    assert (ended.status, ended.final_label, ended.consensus_round) == ("agreed", 0, 2)
    times = created(debate.pk)
    assert list(times) == [(1, "A"), (1, "B"), (2, "A"), (2, "B")]
    assert times[(1, "A")] == times[(1, "B")]  # one write for round 1
    assert times[(2, "A")] == times[(2, "B")] == ended.finished  # round 2 with the outcome
    assert times[(1, "A")] < times[(2, "A")]
    assert (ended.calls, ended.turns.count()) == (4, 4)


@pytest.mark.django_db(transaction=True)
def test_a_turn_whose_partner_is_late_is_written_alone_after_the_partner_wait(debate, fake_llms):
    release_b = threading.Event()
    answered: dict[str, float] = {}

    def late_b(messages):
        release_b.wait(timeout=120)  # round 1's B is held until the test has seen A stored
        return reply(1, "B")

    def a_now(messages):
        answered["A"] = time.time()
        return reply(1, "A")

    fake_llms(a=RuleClient(a_now), b=RuleClient(late_b))
    result: list[Debate] = []

    def run() -> None:
        try:
            result.append(debate_run(debate_id=debate.pk, gate=LLMGate(2)))
        finally:
            connection.close()

    runner = threading.Thread(target=run)
    runner.start()
    try:
        wait_for(
            lambda: Turn.objects.filter(debate_id=debate.pk).exists(),
            timeout=60,
            every=0.02,
            what="A's turn stored while B is held",
        )
        alone = created(debate.pk)
    finally:
        release_b.set()
        runner.join(timeout=60)

    assert list(alone) == [(1, "A")]  # written without B, whose call was still held
    waited = alone[(1, "A")].timestamp() - answered["A"]
    assert waited >= PARTNER_WAIT_S - 0.01  # it waited the partner wait for B first
    (ended,) = result
    assert (ended.status, ended.final_label, ended.consensus_round) == ("agreed", 1, 1)
    times = created(debate.pk)
    assert list(times) == [(1, "A"), (1, "B")]
    assert times[(1, "B")] == ended.finished  # B came last: written with the outcome
