"""A check of the judged pairs asks the agents exactly what any job asks: what they see of a
pair (``PairText``) has no grade, and every prompt of a pair is the same, byte for byte,
whatever its original grade; no prompt speaks of qrels or an original label. Only after the
debate is the consensus compared with the grade (confirmed, or suspect)."""

from dataclasses import fields

import pytest

from debates.engine import PairText
from debates.models import Debate
from debates.services.claimed import claimed_debate_load
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.check_judged import truth_agent
from tests.fixtures.jobs import AGENT_A, AGENT_B, pair_key


def _check(world, agent) -> tuple[object, dict[str, list[str]]]:
    """Run a check job with ``agent`` on both sides; its prompts by pair key (A's then B's)."""
    agent.calls.clear()
    job = debate_job_launch(
        spec=JobSpec(
            pool=world.pool, agent_a=AGENT_A, agent_b=AGENT_B, check_judged=True, gold_share=0.0
        )
    )
    debate_job_wait(job=job)
    prompts: dict[str, list[str]] = {}
    for call in agent.calls:
        text = "\n".join(m["content"] for m in call.messages)
        prompts.setdefault(pair_key(call.last_user), []).append(text)
    return job, {key: sorted(texts) for key, texts in prompts.items()}


def test_what_the_agents_see_of_a_pair_has_no_grade():
    assert [f.name for f in fields(PairText)] == [
        "query_id",
        "query",
        "doc_id",
        "title",
        "chunk",
        "answers",
    ]


@pytest.mark.django_db
def test_the_prompts_are_the_same_whatever_the_original_grade(flipped_scifact, fake_llms):
    world = flipped_scifact
    agent = truth_agent(world.pool, world.truth)
    fake_llms(a=agent, b=agent)
    first, asked = _check(world, agent)
    assert first.debates.filter(status=Debate.Status.ESCALATED).count() == 2
    # Swap every grade: the 2 flipped pairs become relevant, the 38 others not relevant.
    judged = world.pool.pairs.filter(original_relevance__isnull=False)
    flipped = [p.pk for p in judged if p.original_relevance == 0]
    judged.update(original_relevance=0)
    judged.filter(pk__in=flipped).update(original_relevance=2)
    second, asked_again = _check(world, agent)
    assert second.debates.filter(status=Debate.Status.ESCALATED).count() == 38
    assert len(asked) == 40 and asked_again == asked  # round 1 of each pair, A and B
    everything = "\n".join(text for texts in asked.values() for text in texts).lower()
    assert "qrels" not in everything and "original" not in everything
    debate = second.debates.filter(pair__pk__in=flipped).first()
    loaded = claimed_debate_load(debate_id=debate.pk)
    assert loaded.original_to_check == 2  # kept beside the pair text, never in it
    assert isinstance(loaded.pair, PairText)
