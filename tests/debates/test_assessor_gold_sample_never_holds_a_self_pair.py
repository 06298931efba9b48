"""With identical ids excluded, evaluate_assessor's gold sample never draws a query paired with
its own document: the ``leaky`` run ranks q1-q1 and q2-q2 in its top 10, but the only
unjudged negative left is q2-d3, and the two self-pairs are counted."""

import pytest

from corpora.services import dataset_import_beir, qrel_set_get, run_import
from debates.services.assessor import evaluation_pool_create


@pytest.mark.django_db
@pytest.mark.parametrize(("policy", "skipped"), [("exclude", 2), ("keep", 0)])
def test_the_gold_sample_skips_self_pairs(selfish_folder, leaky_file, policy, skipped):
    dataset = dataset_import_beir(path=selfish_folder, name="selfish", identical_ids=policy)
    run = run_import(dataset=dataset, path=leaky_file)
    sample = evaluation_pool_create(
        dataset=dataset,
        qrel_set=qrel_set_get(dataset=dataset, name="test"),
        sample=6,
        run=run,
        unjudged_negatives=True,
    )
    pairs = sorted(sample.pool.pairs.values_list("query__query_id", "document__doc_id"))
    negatives = [p for p in pairs if p not in {("q1", "d1"), ("q2", "d2")}]
    if policy == "exclude":
        assert negatives == [("q2", "d3")]
    else:
        assert negatives == [("q1", "q1"), ("q2", "d3"), ("q2", "q2")]
    assert sample.self_pairs_skipped == skipped
