"""A job gets one pending Debate per pool pair, in canonical order; extending adds only new ones."""

import pytest

from debates.models import Debate, DebateJob
from debates.services import DebateJobError, debate_job_extend
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.jobs import AGENT_A, AGENT_B, add_pairs


def pair_ids(job):
    return [
        (d.pair.query.query_id, d.pair.document.doc_id)
        for d in job.debates.select_related("pair__query", "pair__document").order_by("pk")
    ]


@pytest.mark.django_db
def test_a_job_holds_a_pending_debate_for_every_pair_in_query_then_doc_id_order(small_pool):
    job = debate_job_launch(spec=JobSpec(pool=small_pool, rounds=2), start=False)
    assert pair_ids(job) == [("q1", "d1"), ("q1", "d10"), ("q1", "d2"), ("q2", "d3")]
    assert set(job.debates.values_list("status", flat=True)) == {"pending"}
    assert (job.status, job.rounds, job.temperature, job.prompt_version) == (
        "running",
        2,
        0.0,
        "dream-v2",
    )
    assert (job.judgments_per_pair, job.audit_share, job.started) == (1, 0.02, None)


@pytest.mark.django_db
def test_a_limit_takes_the_first_pairs_in_canonical_order(small_pool):
    job = debate_job_launch(spec=JobSpec(pool=small_pool, limit=2), start=False)
    assert pair_ids(job) == [("q1", "d1"), ("q1", "d10")]
    assert job.pair_limit == 2


@pytest.mark.django_db
def test_the_embedded_default_is_stored_for_both_agents(small_pool):
    job = debate_job_launch(spec=JobSpec(pool=small_pool), start=False)
    expected = {"backend": "embedded", "model": "SmolLM2-135M-Instruct-Q4_1", "n_ctx": 2048}
    assert (job.agent_a, job.agent_b) == (expected, expected)


@pytest.mark.django_db
def test_an_openai_agent_is_stored_with_the_name_of_its_key_variable_only(small_pool):
    job = debate_job_launch(
        spec=JobSpec(
            pool=small_pool,
            agent_a={"backend": "embedded"},
            agent_b={"backend": "openai", "model": "gpt-4o-mini", "api_key_env": "MY_KEY"},
        ),
        start=False,
    )
    job.refresh_from_db()
    assert job.agent_b["api_key_env"] == "MY_KEY"
    assert "api_key" not in job.agent_b


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"rounds": 6}, "rounds must be an integer in 1..5, got 6"),
        ({"rounds": 0}, "rounds must be an integer in 1..5, got 0"),
        ({"limit": 0}, "limit must be at least 1, got 0"),
        ({"prompt_version": "dream-v0"}, "prompt version 'dream-v0' is not available"),
        (
            {"agent_b": {"backend": "openai", "model": "m", "api_key": "sk-secret"}},
            "agent B: api_key: secrets are never stored",
        ),
        ({"agent_a": {"backend": "test"}}, "agent A: backend 'test' exists only when"),
    ],
)
def test_bad_settings_are_refused_and_nothing_is_created(small_pool, settings, message):
    with pytest.raises(DebateJobError) as err:
        debate_job_launch(spec=JobSpec(pool=small_pool, **settings), start=False)
    assert str(err.value).startswith(message)
    assert (DebateJob.objects.count(), Debate.objects.count()) == (0, 0)


@pytest.mark.django_db
def test_extending_a_job_creates_debates_only_for_pairs_added_since(small_pool, fake_llms):
    job = debate_job_launch(
        spec=JobSpec(pool=small_pool, agent_a=AGENT_A, agent_b=AGENT_B), start=False
    )
    first = set(job.debates.values_list("pk", flat=True))
    assert debate_job_extend(job=job, enqueue=False) == 0
    add_pairs(small_pool, [("q2", "d1"), ("q2", "d10")])
    assert debate_job_extend(job=job, enqueue=False) == 2
    assert set(job.debates.values_list("pk", flat=True)) > first
    assert pair_ids(job)[-2:] == [("q2", "d1"), ("q2", "d10")]
    assert debate_job_extend(job=job, enqueue=False) == 0
    assert job.debates.count() == 6


@pytest.mark.django_db
def test_a_finished_job_runs_again_when_extended(small_pool):
    job = debate_job_launch(spec=JobSpec(pool=small_pool), start=False)
    job.debates.update(status="agreed", final_label=1, consensus_round=1)
    DebateJob.objects.filter(pk=job.pk).update(status="finished")
    add_pairs(small_pool, [("q2", "d1")])
    assert debate_job_extend(job=job, enqueue=False) == 1
    assert (job.status, job.finished) == ("running", None)
