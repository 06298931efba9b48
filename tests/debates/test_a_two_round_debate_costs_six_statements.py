"""A paired debate that agrees in round 2 costs six SQL statements, whichever thread runs them:
the claim with the read of the debate (one statement on PostgreSQL), round 1's two turns
with their cost (two), the outcome with round 2's turns (two), the job's finishing check
(one), and nothing read back; plus the review queue's one look at the ended debate."""

import pytest
from django.db.backends import utils

from debates.llm.scripted import ScriptedClient
from debates.models import Debate
from debates.services.launch import JobSpec, debate_job_launch
from debates.services.run import debate_run_status
from debates.services.threads import LLMGate
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply


@pytest.mark.django_db(transaction=True)
def test_a_debate_of_two_rounds_runs_six_statements_and_one_for_the_review_queue(
    small_pool, fake_llms, monkeypatch
):
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2), start=False
    )
    debate = job.debates.order_by("pk").first()
    fake_llms(
        a=ScriptedClient([reply(1, "A1"), reply(0, "A2")]),
        b=ScriptedClient([reply(0, "B1"), reply(0, "B2")]),
    )
    statements: list[str] = []
    execute = utils.CursorWrapper.execute

    def counted(self, sql, params=None):
        statements.append(" ".join(sql.split())[:60])
        return execute(self, sql, params)

    monkeypatch.setattr(utils.CursorWrapper, "execute", counted)

    ran = debate_run_status(debate_id=debate.pk, gate=LLMGate(2))

    monkeypatch.undo()
    assert (ran.status, ran.last_error) == ("agreed", "")
    debate = Debate.objects.get(pk=debate.pk)
    assert (debate.status, debate.consensus_round, debate.turns.count()) == ("agreed", 2, 4)
    kinds = [s.split()[0] for s in statements]
    assert kinds == ["WITH", "UPDATE", "INSERT", "UPDATE", "INSERT", "UPDATE", "SELECT"], statements
