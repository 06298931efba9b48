"""A pool that keeps judged pairs (accuracy audits) re-assesses them, but the refined set
keeps their original grade; the final label and any disagreement with the original are
recorded in the provenance, the labels JSONL and the disagreements CSV."""

import csv
import io
import json

import pytest

from assess.models import LabelProvenance
from assess.refined.exports import export_stream
from assess.refined.refine import qrels_refine
from corpora.services import pool_build, qrels_rows
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.refine import AGENT, settle

FINAL = {
    ("q1", "d1"): 0,  # judged 1: contradicts
    ("q1", "d2"): 0,  # judged 0: agrees
    ("q1", "d3"): 1,
    ("q1", "d5"): 0,
    ("q2", "d3"): 1,
    ("q2", "d4"): 1,  # judged 1: agrees
    ("q2", "d5"): 1,  # judged -1: contradicts
    ("q2", "d6"): 0,
}


@pytest.mark.django_db
def test_judged_pairs_keep_their_grade_and_contradictions_are_listed(holes):
    pool = pool_build(
        dataset=holes.dataset,
        qrel_set=holes.test,
        runs=holes.runs,
        depth=3,
        include_judged=True,
        name="audit",
    ).pool
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=AGENT, agent_b=AGENT), start=False)
    for (query_id, doc_id), label in FINAL.items():
        settle(holes.debate(query_id, doc_id, job=job), "agreed", label=label, round=1)
    report = qrels_refine(pool=pool, name="audited")
    assert list(qrels_rows(qrel_set=report.qrel_set)) == [
        ("q1", "d1", 1),
        ("q1", "d2", 0),
        ("q1", "d3", 1),
        ("q1", "d5", 0),
        ("q2", "d3", 1),
        ("q2", "d4", 1),
        ("q2", "d5", -1),
        ("q2", "d6", 0),
    ]
    s = report.summary
    assert (s.pairs, s.kept_original, s.new_relevant, s.new_nonrelevant) == (8, 4, 2, 2)
    assert s.disagree_with_original == 2
    kept = LabelProvenance.objects.get(query__query_id="q1", document__doc_id="d1")
    assert (kept.label, kept.original_relevance, kept.applied) == (0, 1, False)
    assert kept.qrel.relevance == 1 and kept.qrel.qrel_set == report.qrel_set

    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=report.qrel_set)
    first = json.loads(out.getvalue().splitlines()[0])
    assert (first["label"], first["source"]) == (1, "original")
    assert (first["assessed_label"], first["assessed_source"], first["original_label"]) == (
        0,
        "consensus",
        1,
    )
    out = io.StringIO()
    export_stream(kind="disagreements", out=out, qrel_set=report.qrel_set)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(r["query_id"], r["doc_id"], r["why listed"], r["original grade"]) for r in rows] == [
        ("q1", "d1", "differs from original grade", "1"),
        ("q2", "d5", "differs from original grade", "-1"),
    ]
