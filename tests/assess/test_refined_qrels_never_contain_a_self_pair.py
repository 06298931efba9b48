"""Refined qrels never add a query's own document: a pool built while identical ids were kept
may hold a self-pair the debate labelled relevant, but once the dataset excludes identical
ids (its admin setting) the refinement leaves it out, and its provenance says not applied.
Original rows are copied untouched."""

import pytest

from assess.models import LabelProvenance
from assess.refined.refine import qrels_refine
from corpora.models import Dataset
from corpora.services import dataset_import_beir, pool_build, qrel_set_get, qrels_rows, run_import
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.refine import settle


@pytest.mark.django_db
def test_a_self_pair_labelled_relevant_is_not_added(selfish_folder, leaky_file):
    dataset = dataset_import_beir(path=selfish_folder, name="selfish", identical_ids="keep")
    run = run_import(dataset=dataset, path=leaky_file)
    test = qrel_set_get(dataset=dataset, name="test")
    pool = pool_build(dataset=dataset, qrel_set=test, runs=[run], depth=10, name="p").pool
    agent = {"backend": "embedded"}
    job = debate_job_launch(spec=JobSpec(pool=pool, agent_a=agent, agent_b=agent), start=False)
    pairs = sorted(pool.pairs.values_list("query__query_id", "document__doc_id"))
    assert pairs == [("q1", "q1"), ("q2", "d3"), ("q2", "q2")]
    for debate in job.debates.select_related("pair__query", "pair__document"):
        label = 1 if debate.pair.query.query_id == debate.pair.document.doc_id else 0
        settle(debate, "agreed", label=label, round=1)

    Dataset.objects.filter(pk=dataset.pk).update(exclude_identical_ids=True)
    report = qrels_refine(pool=pool, name="test-dream")
    assert list(qrels_rows(qrel_set=report.qrel_set)) == [
        ("q1", "d1", 1),
        ("q2", "d2", 1),
        ("q2", "d3", 0),
    ]
    applied = dict(
        LabelProvenance.objects.filter(qrel_set=report.qrel_set).values_list(
            "document__doc_id", "applied"
        )
    )
    assert applied == {"q1": False, "q2": False, "d3": True}
