"""Two jobs over the same pool with the same settings: the second makes no LLM call, its
labels are the first job's agreed labels, marked "reused" down to the refined qrels and the
labels export (as free labels). A different model or prompt version asks every pair again;
so does an escalated earlier debate. The launch says what the pool shares with earlier jobs."""

import pytest

from assess.refined.export_rows import labels_records
from assess.refined.refine import qrels_refine
from debates.llm.scripted import RuleClient
from debates.models import Debate, Turn
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.engine import stance_in
from tests.fixtures.jobs import reply

pytestmark = pytest.mark.django_db

AGENT = {"backend": "test", "name": "a"}


def text(messages):
    return " ".join(m["content"] for m in messages)


def agreeing(messages):
    """Both agents agree in round 1: relevant when the chunk speaks of sunlight."""
    return reply(1 if "sunlight" in text(messages) else 0)


def escalating_wind(messages):
    """As :func:`agreeing`, but the wind chunk is argued by stance until R runs out."""
    if "Wind turbines" in text(messages):
        return reply(1 if stance_in(messages) == "relevant" else 0)
    return agreeing(messages)


def run(pool, **options):
    job = debate_job_launch(
        spec=JobSpec(pool=pool, agent_a=AGENT, rounds=1, audit_share=0.0, **options)
    )
    debate_job_wait(job=job)
    job.refresh_from_db()
    return job


def outcomes(job):
    return {
        (d.pair.query.query_id, d.pair.document.doc_id): (d.status, d.final_label, d.settled_by)
        for d in job.debates.select_related("pair__query", "pair__document")
    }


def calls(job):
    return sum(job.debates.values_list("calls", flat=True))


def test_the_second_job_makes_no_call_and_its_labels_say_reused(small_pool, fake_llms):
    client = RuleClient(agreeing, model="m-a")
    fake_llms(a=client)
    first = run(small_pool)
    asked = len(client.calls)
    assert (asked, calls(first)) == (8, 8)  # 4 pairs x 2 agents, 1 round

    second = run(small_pool)

    assert len(client.calls) == asked  # not one more request
    assert calls(second) == 0
    assert sum(second.debates.values_list("prompt_tokens", flat=True)) == 0
    assert not Turn.objects.filter(debate__job=second).exists()
    assert second.status == "finished"
    assert second.reuse_key == first.reuse_key and len(second.reuse_key) == 64
    assert outcomes(second) == {
        ("q1", "d1"): ("agreed", 1, "reused"),
        ("q1", "d10"): ("agreed", 0, "reused"),
        ("q1", "d2"): ("agreed", 0, "reused"),
        ("q2", "d3"): ("agreed", 0, "reused"),
    }
    sources = dict(second.debates.values_list("pair_id", "reused_from__job_id"))
    assert set(sources.values()) == {first.pk}
    debate = second.debates.get(pair__document__doc_id="d10")
    source = first.debates.get(pair__document__doc_id="d10")
    assert (debate.reused_from_id, debate.consensus_round) == (source.pk, 1)

    report = qrels_refine(pool=small_pool, name="refined")
    rows = {(r["query_id"], r["doc_id"]): r for r in labels_records(qrel_set=report.qrel_set)}
    row = rows[("q1", "d10")]
    assert (row["label"], row["source"], row["label_source"]) == (0, "consensus", "consensus")
    assert row["reused"] == f"reused by job {second.pk} from job {first.pk} (debate {source.pk})"
    assert (row["job"], row["debate"], row["llm_calls"], row["prompt_tokens"]) == (
        second.pk,
        debate.pk,
        0,
        0,
    )
    # The rest is the first debate's provenance: its round, agents and prompts.
    assert (row["consensus_round"], row["models"], row["prompt_version"]) == (
        1,
        ["test", "test"],  # a test agent names its backend
        "dream-v2",
    )
    assert rows[("q1", "d1")]["source"] == "original"  # judged in the qrels: kept as it was


def test_a_third_job_reuses_the_first_debate_through_the_second(small_pool, fake_llms):
    fake_llms(a=RuleClient(agreeing, model="m-a"))
    first, second = run(small_pool), run(small_pool)
    third = run(small_pool)
    assert calls(third) == 0
    assert set(third.debates.values_list("reused_from__job_id", flat=True)) == {first.pk}
    assert second.pk < third.pk


def test_a_different_model_or_prompt_version_asks_every_pair_again(small_pool, fake_llms):
    fake_llms(a=RuleClient(agreeing, model="m-a"), b=RuleClient(agreeing, model="m-b"))
    first = run(small_pool)

    other_model = run(small_pool, agent_b={"backend": "test", "name": "b"})
    other_prompts = run(small_pool, prompt_version="dream-v1")

    for job in (other_model, other_prompts):
        assert job.reuse_key != first.reuse_key
        assert calls(job) == 8, job.prompt_version
        assert set(job.debates.values_list("settled_by", flat=True)) == {""}
        assert not job.debates.filter(reused_from__isnull=False).exists()
    assert other_model.reuse_key != other_prompts.reuse_key


def test_an_escalated_earlier_debate_is_asked_again_and_the_launch_warns(
    small_pool, fake_llms, caplog
):
    client = RuleClient(escalating_wind, model="m-a")
    fake_llms(a=client)
    first = run(small_pool)
    assert outcomes(first)[("q2", "d3")] == ("escalated", None, "")
    asked = len(client.calls)

    caplog.set_level("WARNING", logger="debates.services.launch")
    second = run(small_pool)

    assert len(client.calls) - asked == 2  # the escalated pair only: 2 agents, 1 round
    assert outcomes(second)[("q2", "d3")] == ("escalated", None, "")
    assert second.debates.filter(settled_by="reused").count() == 3
    warning = (
        f"4 of its 4 pairs are already in job {first.pk} of this dataset: 3 reused (agreed "
        "there with the same reuse key; no LLM call), 1 asked again (escalated or failed "
        "there, or other settings)"
    )
    assert second.reuse_note == warning
    assert f"job {second.pk}: {warning}" in caplog.messages


def test_a_job_whose_pool_shares_nothing_with_earlier_jobs_has_no_reuse_warning(
    small_pool, fake_llms
):
    fake_llms(a=RuleClient(agreeing, model="m-a"))
    job = run(small_pool)
    assert (job.reuse, job.reuse_note) == (True, "")
    assert Debate.objects.filter(settled_by="reused").count() == 0
