"""With identical ids excluded, a pool never holds a query paired with its own document,
whether a built-in or an imported run ranks it: ArguAna's depth-10 BM25 pool has none, and
the entries skipped are counted."""

import pytest

from corpora import pooling
from corpora.services import (
    dataset_import_beir,
    pool_build,
    qrel_set_get,
    run_create,
    run_import,
    run_retrieve,
)
from tests.fixtures.datasets import shared_dataset


def test_pool_candidates_leave_out_the_excluded_pairs():
    entries = [("r", "q1", "q1", 1, 9.0), ("r", "q1", "d1", 2, 5.0), ("r", "q2", "d2", 1, 3.0)]
    result = pooling.pool_candidates(entries, depth=10, judged={}, excluded={("q1", "q1")})
    assert [(c.query, c.document) for c in result.candidates] == [("q1", "d1"), ("q2", "d2")]
    assert result.excluded_left_out == 1


@pytest.mark.django_db
def test_an_imported_run_ranking_own_documents_adds_no_self_pair(selfish_folder, leaky_file):
    dataset = dataset_import_beir(path=selfish_folder, name="selfish")
    run = run_import(dataset=dataset, path=leaky_file)
    test = qrel_set_get(dataset=dataset, name="test")
    report = pool_build(dataset=dataset, qrel_set=test, runs=[run], depth=10)
    pairs = report.pool.pairs.values_list("query__query_id", "document__doc_id")
    assert sorted(pairs) == [("q2", "d3")]  # q1-d1 and q2-d2 are judged
    assert report.result.excluded_left_out == 2


@pytest.mark.slow
@pytest.mark.django_db
def test_arguana_depth_10_bm25_pool_has_no_self_pair():
    dataset = dataset_import_beir(path=shared_dataset("arguana"), name="arguana", splits=["test"])
    run = run_retrieve(run=run_create(dataset=dataset, retriever="bm25", k=10, queries="test"))
    test = qrel_set_get(dataset=dataset, name="test")
    report = pool_build(dataset=dataset, qrel_set=test, runs=[run], depth=10)
    pairs = list(report.pool.pairs.values_list("query__query_id", "document__doc_id"))
    assert sum(q == d for q, d in pairs) == 0
    assert report.result.excluded_left_out == 0  # the run itself never returned one
    assert run.entries.count() == 1401 * 10
