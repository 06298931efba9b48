"""On SciFact with 5% of its judged pairs flipped on purpose (2 of 40, drawn with a seed), a
check of the judged pairs whose agents know the true label sends exactly the flipped pairs
to humans as suspect original labels and confirms the other 38. Annotators give the true
label; a normal job fills the pool's two holes. The refined qrels then correct exactly the
flipped pairs (0 -> 1) with their provenance (original -> corrected, by whom, from which
debate and job); the labels export and the datasheet count 2 corrections; the re-benchmark
shows the corrections' effect apart from the holes'."""

import io
import json
import uuid

import pytest
from django.core.management import call_command

from assess.evaluation.effects import BOTH, CORRECTIONS, HOLES, ORIGINAL, effects_table
from assess.evaluation.rebench import rebench_compute
from assess.models import LabelProvenance, ReviewItem
from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from assess.refined.exports import export_stream
from assess.refined.refine import qrels_refine
from assess.review.services import judgment_record, review_item_claim
from corpora.services import qrels_rows
from debates.models import Debate
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.check_judged import HOLES as HOLE_PAIRS
from tests.fixtures.check_judged import truth_agent
from tests.fixtures.jobs import AGENT_A, AGENT_B


def _pair(debate) -> tuple[str, str]:
    return debate.pair.query.query_id, debate.pair.document.doc_id


def _humans_judge(annotator, truth) -> list[tuple[str, str]]:
    """The annotator judges every pair the queue gives them with its true label."""
    judged = []
    while (item := review_item_claim(annotator=annotator)) is not None:
        pair = _pair(item.debate)
        judgment_record(item=item, annotator=annotator, label=truth[pair], client_id=uuid.uuid4())
        judged.append(pair)
    return judged


@pytest.fixture
def checked(flipped_scifact, fake_llms, annotators):
    world = flipped_scifact
    agent = truth_agent(world.pool, world.truth)
    fake_llms(a=agent, b=agent)
    check = debate_job_launch(
        spec=JobSpec(
            pool=world.pool, agent_a=AGENT_A, agent_b=AGENT_B, check_judged=True, gold_share=0.0
        )
    )
    debate_job_wait(job=check)
    (annotator,) = annotators(1)
    world.check, world.annotator = check, annotator
    world.humans_judged = _humans_judge(annotator, world.truth)
    # A normal job fills the holes (it debates every pair; humans already settled the flips).
    world.fill = debate_job_launch(
        spec=JobSpec(
            pool=world.pool, agent_a=AGENT_A, agent_b=AGENT_B, audit_share=0.0, gold_share=0.0
        )
    )
    debate_job_wait(job=world.fill)
    world.report = qrels_refine(pool=world.pool, name="test-checked")
    return world


@pytest.mark.django_db
def test_the_check_debates_only_the_judged_pairs_and_sends_exactly_the_flipped_ones_to_humans(
    checked, client_as, api_as
):
    world, check = checked, checked.check
    assert world.flipped == {("13", "1606628"), ("100", "4381486")}  # the seeded draw
    debates = list(check.debates.select_related("pair__query", "pair__document"))
    assert sorted(_pair(d) for d in debates) == sorted(world.judged)  # no hole
    suspect = {_pair(d) for d in debates if d.status == Debate.Status.ESCALATED}
    assert suspect == world.flipped
    assert {d.escalation_reason for d in debates if _pair(d) in suspect} == {"suspect_original"}
    confirmed = [d for d in debates if d.status == Debate.Status.AGREED]
    assert len(confirmed) == 38 and {d.final_label for d in confirmed} == {1}
    items = ReviewItem.objects.filter(debate__job=check)
    assert {_pair(i.debate) for i in items} == world.flipped  # no audit, no gold
    assert sorted(world.humans_judged) == sorted(world.flipped)
    assert check.audit_share == 0.0
    page = client_as("researcher").get(f"/jobs/{check.pk}/").content.decode()
    assert "38 original labels confirmed by the agents, 2 suspect (sent to humans" in page
    body = api_as("researcher").get(f"/api/v1/jobs/{check.pk}").json()
    assert body["check_judged"] is True
    assert body["progress"]["escalated_by_reason"] == {"suspect_original": 2}


@pytest.mark.django_db
def test_the_refined_qrels_correct_exactly_the_flipped_pairs_with_their_provenance(checked):
    world = checked
    rows = {(q, d): g for q, d, g in qrels_rows(qrel_set=world.report.qrel_set)}
    assert rows == {**dict.fromkeys(world.judged, 1), **HOLE_PAIRS}  # the truth
    s = world.report.summary
    assert (s.corrections, s.kept_original, s.new_relevant, s.new_nonrelevant) == (2, 38, 1, 1)
    assert world.report.refinement.counts["corrections"] == 2
    corrected = LabelProvenance.objects.filter(qrel_set=world.report.qrel_set, applied=True)
    corrected = [p for p in corrected.select_related("query", "document") if p.is_correction]
    assert len(corrected) == 2
    for row in corrected:
        pair = (row.query.query_id, row.document.doc_id)
        debate = world.check.debates.get(pair__query=row.query, pair__document=row.document)
        assert pair in world.flipped
        assert (row.original_relevance, row.grade, row.label, row.source) == (0, 1, 1, "human")
        assert (row.annotators, row.adjudicator) == ([world.annotator.username], "")
        assert (row.job_id, row.debate_id, row.escalation_reason) == (
            world.check.pk,
            debate.pk,
            "suspect_original",
        )
        assert row.qrel.relevance == 1


@pytest.mark.django_db
def test_the_labels_export_and_the_datasheet_count_two_corrections(checked):
    world = checked
    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=world.report.qrel_set)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    corrections = [r for r in records if r["correction"]]
    assert len(records) == 42 and len(corrections) == 2
    assert {(r["query_id"], r["doc_id"]) for r in corrections} == world.flipped
    assert {(r["original_label"], r["label"], r["source"], r["job"]) for r in corrections} == {
        (0, 1, "human", world.check.pk)
    }
    assert all(r["annotators"] == [world.annotator.username] for r in corrections)
    text = datasheet_render(sheet=benchmark_datasheet(refinement=world.report.refinement))
    assert "whose 40 rows are copied, 2 of them corrected" in text
    assert "- Corrections of the original judgments: 2 (" in text


@pytest.mark.django_db
def test_the_rebenchmark_shows_the_corrections_effect_apart_from_the_holes(checked):
    world = checked
    report = rebench_compute(
        dataset=world.dataset,
        original=world.pool.qrel_set,
        refined=world.report.qrel_set,
        use_cache=False,
    )
    effects = report.effects
    assert (effects.corrections, effects.holes, len(effects.queries)) == (2, 2, 33)
    # judged-order ranks each query's judged documents: on the original its 31 queries
    # with a relevant document score 1, the 2 flipped ones 0 (31/33); the corrections make
    # those 2 relevant (33/33); the relevant hole of query 1 lowers it to 1/(1 + 1/log2 3)
    # = 0.6131 there ((30 + 0.6131)/33 = 0.9277); both: (32 + 0.6131)/33 = 0.9883.
    # flips-first ranks only the 2 flipped documents: 0, then 2/33 = 0.0606 once corrected.
    expected = {
        ("judged-order", ORIGINAL): (0.9394, 1),
        ("judged-order", CORRECTIONS): (1.0, 1),
        ("judged-order", HOLES): (0.9277, 1),
        ("judged-order", BOTH): (0.9883, 1),
        ("flips-first", ORIGINAL): (0.0, 2),
        ("flips-first", CORRECTIONS): (0.0606, 2),
        ("flips-first", HOLES): (0.0, 2),
        ("flips-first", BOTH): (0.0606, 2),
    }
    for (system, side), (value, rank) in expected.items():
        score, got_rank = effects.score(side, system)
        assert (round(score, 4), got_rank) == (value, rank), (system, side)
    table = effects_table(effects)
    assert table.rows[0] == (
        "judged-order",
        "0.9394 (1)",
        "1.0000 (1)",
        "0.9277 (1)",
        "0.9883 (1)",
        "+0.0606",
        "-0.0117",
        "+0.0489",
    )
    assert report.effects_tables() == [table]


@pytest.mark.django_db
def test_the_corrections_table_reaches_the_command_the_page_and_the_api(checked, client_as, api_as):
    title = "Corrections apart from filled holes (nDCG@10, rank in brackets)"
    out = io.StringIO()
    call_command(
        "rebenchmark", "scifact", "--original", "test", "--refined", "test-checked",
        "--no-intervals", stdout=out,
    )  # fmt: skip
    table = out.getvalue().split(title, 1)[1]
    row = next(line for line in table.splitlines() if line.startswith("judged-order"))
    expected = "judged-order 0.9394 (1) 1.0000 (1) 0.9277 (1) 0.9883 (1) +0.0606 -0.0117 +0.0489"
    assert row.split() == expected.split()
    page = client_as("researcher").get(
        "/datasets/scifact/rebenchmark/?original=test&refined=test-checked"
    )
    assert title in page.content.decode()
    body = api_as("researcher").get("/api/v1/datasets/scifact/refined/test-checked/rebenchmark")
    answer = body.json()
    assert answer["tables"][-1]["title"] == title
    assert (answer["effects"]["corrections"], answer["effects"]["holes"]) == (2, 2)
    assert answer["effects"]["leaderboards"]["corrections only"][0] == {
        "system": "judged-order",
        "rank": 1,
        "ndcg@10": 1.0,
    }
