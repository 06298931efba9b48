"""A pair the first job escalated and people judged is not sent to the LLM again by a second
job with the same reuse key: its debate is settled as the reused escalation (no call, no
label of its own, so never counted as the new job's debate label), its review takes the
people's answer instead of asking anyone again, and the refined qrels give the pair that
human label with its own provenance: the first job, its annotator. An escalation nobody
has judged yet is still asked again (the other test file of reuse)."""

import pytest

from assess.models import ReviewItem
from assess.refined.export_rows import labels_records
from assess.refined.refine import qrels_refine
from assess.review.services import judgment_record, review_item_claim
from debates.llm.scripted import RuleClient
from debates.models import Debate
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from debates.services.progress import debate_job_progress
from tests.fixtures.engine import stance_in
from tests.fixtures.jobs import reply

pytestmark = pytest.mark.django_db

AGENT = {"backend": "test", "name": "a"}


def escalating_wind(messages):
    """Round-1 agreement on every pair (relevant when the chunk speaks of sunlight) but the
    wind chunk, argued by stance until R runs out."""
    text = " ".join(m["content"] for m in messages)
    if "Wind turbines" in text:
        return reply(1 if stance_in(messages) == "relevant" else 0)
    return reply(1 if "sunlight" in text else 0)


def run(pool):
    # No known-answer pairs: whether the annotator's first place is a gold one depends on the
    # job's and the annotator's ids, which other tests in the same database move.
    job = debate_job_launch(
        spec=JobSpec(pool=pool, agent_a=AGENT, rounds=1, audit_share=0.0, gold_share=0.0)
    )
    debate_job_wait(job=job)
    job.refresh_from_db()
    return job


def test_the_judged_escalation_is_not_asked_again_and_keeps_its_human_provenance(
    small_pool, fake_llms, annotators, django_capture_on_commit_callbacks
):
    client = RuleClient(escalating_wind, model="m-a")
    fake_llms(a=client)
    first = run(small_pool)
    wind = first.debates.get(pair__document__doc_id="d3")
    assert (wind.status, wind.final_label) == ("escalated", None)
    (annotator,) = annotators(1)
    item = review_item_claim(annotator=annotator)
    assert item is not None and item.debate_id == wind.pk
    judgment_record(item=item, annotator=annotator, label=1, client_id="1" * 32)
    asked = len(client.calls)

    with django_capture_on_commit_callbacks(execute=True):  # the review queue hears of it
        second = run(small_pool)

    assert len(client.calls) == asked  # the judged escalation made no request either
    assert sum(second.debates.values_list("calls", flat=True)) == 0
    debate = second.debates.get(pair__document__doc_id="d3")
    assert (debate.status, debate.final_label, debate.consensus_round) == ("escalated", None, None)
    assert (debate.settled_by, debate.reused_from_id) == ("reused", wind.pk)
    assert debate.escalation_reason == wind.escalation_reason == Debate.Reason.DISAGREEMENT
    # Its review takes the first job's answer: it asks nobody, the annotator included.
    review = ReviewItem.objects.get(debate=debate)
    assert (review.kind, review.answered_by_id, review.judgments_needed) == (
        "escalated",
        item.pk,
        0,
    )
    assert review_item_claim(annotator=annotator) is None
    assert review_item_claim(annotator=annotators(1, prefix="new")[0]) is None
    # Not the new job's debate label: reused agreed labels are counted, this one is not.
    assert debate_job_progress(job=second).reused == 3
    assert second.reuse_note == (
        f"4 of its 4 pairs are already in job {first.pk} of this dataset: 3 reused (agreed "
        "there with the same reuse key; no LLM call), 1 already judged by people (escalated "
        "there with the same reuse key; their human label is taken, no LLM call), 0 asked "
        "again (escalated or failed there, or other settings)"
    )

    report = qrels_refine(pool=small_pool, name="refined")
    rows = {(r["query_id"], r["doc_id"]): r for r in labels_records(qrel_set=report.qrel_set)}
    row = rows[("q2", "d3")]
    assert (row["label"], row["source"], row["label_source"]) == (1, "human", "single-human")
    assert (row["job"], row["debate"], row["annotators"]) == (first.pk, wind.pk, ["ann1"])
    assert row["consensus_label"] is None
