"""A restarted debate resumes from its stored turns: no LLM call for a stored turn again."""

import pytest

from debates.llm.base import PermanentLLMError
from debates.llm.scripted import ScriptedClient
from debates.models import Turn
from debates.services import debate_run
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply


@pytest.mark.django_db
def test_a_debate_interrupted_after_round_one_makes_only_the_round_two_calls(small_pool, fake_llms):
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2), start=False
    )
    debate = job.debates.order_by("pk").first()
    fake_llms(
        a=ScriptedClient([reply(1, "A says yes"), PermanentLLMError("server went away")]),
        b=ScriptedClient([reply(0, "B says no")]),
    )
    debate = debate_run(debate_id=debate.pk, requeue=False)
    assert (debate.status, debate.attempts) == ("pending", 1)
    assert debate.last_error == "PermanentLLMError: server went away"
    assert list(debate.turns.values_list("round", "agent")) == [(1, "A"), (1, "B")]

    a2, b2 = ScriptedClient([reply(0, "A changes")]), ScriptedClient([reply(0, "B keeps")])
    fake_llms(a=a2, b=b2)
    debate = debate_run(debate_id=debate.pk)
    assert (debate.status, debate.final_label, debate.consensus_round) == ("agreed", 0, 2)
    assert (len(a2.calls), len(b2.calls)) == (1, 1)
    # The round-2 prompt is rebuilt from the stored round-1 turns.
    assert "B says no" in a2.calls[0].last_user
    assert "A says yes" in a2.calls[0].last_user
    assert "A says yes" in b2.calls[0].last_user
    assert Turn.objects.filter(debate=debate).count() == 4
    assert (debate.calls, debate.attempts, debate.last_error) == (4, 1, "")


@pytest.mark.django_db
def test_a_debate_whose_turns_are_all_stored_finishes_without_any_call(small_pool, fake_llms):
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=1), start=False
    )
    debate = job.debates.order_by("pk").first()
    for agent, stance in (("A", "relevant"), ("B", "irrelevant")):
        Turn.objects.create(
            debate=debate, round=1, agent=agent, stance=stance, label=1, model="m", raw="{}"
        )
    a, b = ScriptedClient([]), ScriptedClient([])
    fake_llms(a=a, b=b)
    debate = debate_run(debate_id=debate.pk)
    assert (debate.status, debate.final_label, debate.consensus_round) == ("agreed", 1, 1)
    assert (len(a.calls), len(b.calls)) == (0, 0)
