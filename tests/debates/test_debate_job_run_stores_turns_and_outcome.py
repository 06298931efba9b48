"""Running a debate stores every turn and the outcome, its cost, and finishes the job."""

import pytest

from debates.llm.base import LLMResult
from debates.llm.scripted import ScriptedClient
from debates.models import Debate, Turn
from debates.services import debate_run
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply


def result(label, *, prompt=100, completion=10, ms=50.0, model="m", text=None):
    return LLMResult(
        text=text if text is not None else reply(label, f"label {label}", ("Solar panels",)),
        model=model,
        prompt_tokens=prompt,
        completion_tokens=completion,
        latency_ms=ms,
        finish_reason="stop",
    )


@pytest.fixture
def job(small_pool, fake_llms):
    return debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2), start=False
    )


@pytest.mark.django_db
def test_a_debate_agreeing_in_round_two_stores_four_turns_and_its_cost(job, fake_llms):
    a = ScriptedClient([result(1, model="ma"), result(0, prompt=300, completion=20, model="ma")])
    b = ScriptedClient([result(0, model="mb"), result(0, prompt=310, completion=30, model="mb")])
    fake_llms(a=a, b=b)
    debate = job.debates.order_by("pk").first()
    debate = debate_run(debate_id=debate.pk)
    assert (debate.status, debate.final_label, debate.consensus_round) == ("agreed", 0, 2)
    assert debate.escalation_reason == ""
    assert (debate.calls, debate.prompt_tokens, debate.completion_tokens) == (4, 810, 70)
    assert debate.latency_ms == 200.0
    assert debate.seconds > 0
    assert (debate.attempts, debate.last_error, debate.lease_token) == (0, "", "")
    assert debate.started <= debate.finished
    turns = list(debate.turns.values_list("round", "agent", "stance", "label", "model"))
    assert turns == [
        (1, "A", "relevant", 1, "ma"),
        (1, "B", "irrelevant", 0, "mb"),
        (2, "A", "relevant", 0, "ma"),
        (2, "B", "irrelevant", 0, "mb"),
    ]
    first = debate.turns.get(round=1, agent="A")
    assert first.evidence == ["Solar panels"]
    assert first.argument == "label 1"
    assert first.raw == reply(1, "label 1", ("Solar panels",))
    assert (first.attempts, first.parse_error, first.prompt_tokens, first.latency_ms) == (
        1,
        "",
        100,
        50.0,
    )
    assert (a.remaining, b.remaining) == (0, 0)


@pytest.mark.django_db
def test_a_debate_agreeing_at_once_makes_two_calls(job, fake_llms):
    fake_llms(a=ScriptedClient([result(1)]), b=ScriptedClient([result(1)]))
    debate = debate_run(debate_id=job.debates.order_by("pk").first().pk)
    assert (debate.status, debate.final_label, debate.consensus_round, debate.calls) == (
        "agreed",
        1,
        1,
        2,
    )
    assert debate.turns.count() == 2


@pytest.mark.django_db
def test_disagreement_after_r_rounds_is_escalated(job, fake_llms):
    fake_llms(a=ScriptedClient([result(1), result(1)]), b=ScriptedClient([result(0), result(0)]))
    debate = debate_run(debate_id=job.debates.order_by("pk").first().pk)
    assert (debate.status, debate.final_label, debate.consensus_round) == ("escalated", None, None)
    assert (debate.escalation_reason, debate.calls, debate.turns.count()) == ("disagreement", 4, 4)


@pytest.mark.django_db
def test_an_unreadable_reply_after_the_reask_escalates_with_the_raw_text_kept(job, fake_llms):
    a = ScriptedClient([result(None, text="I cannot help."), result(None, text="Sorry, no.")])
    fake_llms(a=a, b=ScriptedClient([]))
    debate = debate_run(debate_id=job.debates.order_by("pk").first().pk)
    assert (debate.status, debate.escalation_reason, debate.final_label) == (
        "escalated",
        "unparsed",
        None,
    )
    turn = Turn.objects.get(debate=debate)
    assert (turn.label, turn.attempts, turn.raw) == (None, 2, "Sorry, no.")
    assert turn.parse_error
    assert (debate.calls, debate.prompt_tokens) == (2, 200)


@pytest.mark.django_db
def test_the_job_finishes_when_its_last_debate_ends(job, fake_llms):
    replies = [result(1)] * 4
    fake_llms(a=ScriptedClient(replies), b=ScriptedClient(replies))
    debates = list(job.debates.order_by("pk"))
    for debate in debates[:-1]:
        debate_run(debate_id=debate.pk)
        job.refresh_from_db()
        assert job.status == "running"
    debate_run(debate_id=(debates[-1]).pk)
    job.refresh_from_db()
    assert job.status == "finished"
    assert job.finished is not None
    assert Debate.objects.filter(job=job, status="agreed").count() == 4
