"""Without a broker (tasks in-process: ./dream demo, run_debates) an interrupted debate is
never stranded: Ctrl-C gives it back (pending, lease cleared, stored turns kept), and the next
in-process run also takes over debates whose process died (lease expired), resuming from
their stored turns without repeating an LLM call."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from debates.llm.scripted import RuleClient
from debates.models import Debate, DebateJob, Turn
from debates.services import debate_job_run_inline, debate_run
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.engine import stance_in
from tests.fixtures.jobs import AGENT_A, AGENT_B, reply


def split_then_agree(messages):
    """Round 1: each agent keeps its stance; round 2: both say irrelevant."""
    relevant = stance_in(messages) == "relevant"
    round_two = "Round 2." in messages[-1]["content"]
    return reply(0 if round_two else int(relevant), "r2" if round_two else "r1")


def calls_of(client: RuleClient) -> list[str]:
    """``"<doc title> round <n>"`` of every call a client received."""
    out = []
    for call in client.calls:
        title = next(
            t for t in ("Solar", "Tax", "Wind", "Heat") if f"Title: {t}\n" in call.last_user
        )
        out.append(f"{title} round {2 if 'Round 2.' in call.last_user else 1}")
    return out


@pytest.mark.django_db
def test_a_keyboard_interrupt_mid_debate_leaves_it_pending_with_its_stored_turns(
    small_pool, fake_llms
):
    def interrupted_in_round_two(messages):
        if "Round 2." in messages[-1]["content"]:
            raise KeyboardInterrupt
        return split_then_agree(messages)

    fake_llms(a=RuleClient(split_then_agree), b=RuleClient(interrupted_in_round_two))
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2), start=False
    )
    debate = job.debates.order_by("pk").first()

    with pytest.raises(KeyboardInterrupt):
        debate_run(debate_id=debate.pk, requeue=False)

    debate.refresh_from_db()
    assert (debate.status, debate.lease_token, debate.lease_expires_at) == ("pending", "", None)
    assert (debate.attempts, debate.last_error) == (0, "")
    assert list(debate.turns.values_list("round", "agent", "label")) == [
        (1, "A", 1),
        (1, "B", 0),
        (2, "A", 0),
    ]


@pytest.mark.django_db
def test_a_debate_whose_lease_expired_is_finished_by_the_next_in_process_run(small_pool, fake_llms):
    a, b = RuleClient(split_then_agree), RuleClient(split_then_agree)
    fake_llms(a=a, b=b)
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B, rounds=2, limit=1),
        start=False,
    )
    debate = job.debates.get()
    # A process died after storing round 1: the debate is left running under its lease.
    for agent, label in (("A", 1), ("B", 0)):
        Turn.objects.create(
            debate=debate,
            round=1,
            agent=agent,
            stance="relevant" if agent == "A" else "irrelevant",
            label=label,
            argument="r1",
            raw=reply(label, "r1"),
            raw_attempts=[reply(label, "r1")],
            model="rule",
            prompt_tokens=100,
            completion_tokens=10,
        )
    Debate.objects.filter(pk=debate.pk).update(
        status="running",
        lease_token="dead-process",
        lease_expires_at=timezone.now() - timedelta(seconds=1),
        calls=2,
        prompt_tokens=200,
        completion_tokens=20,
    )

    debate_job_run_inline(job=job)

    debate.refresh_from_db()
    assert (debate.status, debate.final_label, debate.consensus_round) == ("agreed", 0, 2)
    assert debate.attempts == 1  # the dead process counts as one failed attempt
    assert debate.last_error == ""
    assert (calls_of(a), calls_of(b)) == (["Solar round 2"], ["Solar round 2"])
    assert debate.calls == 4 and debate.turns.count() == 4
    job.refresh_from_db()
    assert job.status == DebateJob.Status.FINISHED


@pytest.mark.django_db
def test_run_debates_interrupted_says_how_to_continue_and_resume_finishes_the_job(
    small_pool, monkeypatch
):
    state = {"interrupt": True, "calls": []}

    def rule(messages):
        user = messages[-1]["content"]
        if state["interrupt"] and "Heat pumps" in user:
            raise KeyboardInterrupt
        state["calls"].append(user)
        return split_then_agree(messages)

    client = RuleClient(rule)
    monkeypatch.setattr(
        "debates.services.backends.agent_client_get", lambda *, config, api_key=None: client
    )

    with pytest.raises(CommandError) as caught:
        call_command("run_debates", "small/pool", "--rounds", "2", "--no-progress")
    job = DebateJob.objects.get()
    assert str(caught.value) == (
        f"interrupted: job {job.pk} keeps every stored turn; continue it with "
        f"`debate_job {job.pk} resume`"
    )
    statuses = dict(job.debates.values_list("pair__document__doc_id", "status"))
    # Canonical order q1 d1, q1 d10, ...: d1 finished, d10 (heat pumps) interrupted.
    assert statuses == {"d1": "agreed", "d10": "pending", "d2": "pending", "d3": "pending"}
    assert job.status == DebateJob.Status.RUNNING

    state["interrupt"] = False
    done_before = len(state["calls"])
    call_command("debate_job", str(job.pk), "resume", "--no-progress")
    job.refresh_from_db()
    assert job.status == DebateJob.Status.FINISHED
    assert set(job.debates.values_list("status", flat=True)) == {"agreed"}
    assert len(state["calls"]) - done_before == 3 * 4  # 3 pairs, 2 rounds, 2 agents
