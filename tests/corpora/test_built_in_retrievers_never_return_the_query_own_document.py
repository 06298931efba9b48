"""With identical ids excluded, a built-in retriever never returns the query's own document:
it asks for k + 1 and drops it, so k rows remain when k documents match."""

import pytest

from corpora import retrieval
from corpora.services import dataset_import_beir, run_create, run_retrieve, run_rows


@pytest.mark.django_db
def test_bm25_skips_the_own_document_and_still_returns_k_rows(selfish_folder):
    dataset = dataset_import_beir(path=selfish_folder, name="selfish")
    assert dataset.exclude_identical_ids
    run = run_retrieve(run=run_create(dataset=dataset, retriever="bm25", k=1, queries="test"))
    assert run.parameters["exclude_identical_ids"] is True
    # Without the exclusion, each query's own document (same text) would be ranked first.
    assert [row[:3] for row in run_rows(run=run)] == [("q1", "d1", 1), ("q2", "d2", 1)]


@pytest.mark.django_db
def test_with_identical_ids_kept_the_own_document_comes_first(selfish_folder):
    dataset = dataset_import_beir(path=selfish_folder, name="kept", identical_ids="keep")
    run = run_retrieve(run=run_create(dataset=dataset, retriever="bm25", k=1, queries="test"))
    assert "exclude_identical_ids" not in run.parameters
    assert [row[:3] for row in run_rows(run=run)] == [("q1", "q1", 1), ("q2", "q2", 1)]


@pytest.mark.django_db
def test_dense_skips_the_own_document_too(selfish_folder):
    dataset = dataset_import_beir(path=selfish_folder, name="selfish")
    run = run_retrieve(run=run_create(dataset=dataset, retriever="dense", k=4, queries="test"))
    rows = list(run_rows(run=run))
    # Dense scores every document: 4 of the 4 others per query, never the query itself.
    assert [(q, rank) for q, _, rank, _ in rows] == [("q1", r) for r in range(1, 5)] + [
        ("q2", r) for r in range(1, 5)
    ]
    assert all(q != d for q, d, _, _ in rows)
    assert rows[0][1] == "d1" and rows[4][1] == "d2"  # the paraphrase comes first


def test_drop_query_ids_removes_only_the_own_id_and_cuts_to_k():
    doc_ids = ["a", "q1", "b", "c"]
    rankings = [[(1, 9.0), (0, 5.0), (2, 4.0)], [(0, 3.0), (2, 2.0), (3, 1.0)]]
    assert retrieval.drop_query_ids(rankings, ["q1", "q2"], doc_ids=doc_ids, k=2) == [
        [(0, 5.0), (2, 4.0)],
        [(0, 3.0), (2, 2.0)],
    ]
