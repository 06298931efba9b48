"""Two executions of the same retrieval give byte-identical run files, and pools built from
them hold the same pairs with the same provenance (real data: ADI, 82 documents)."""

import io

import pytest

from corpora.models import PairSource
from corpora.services import (
    dataset_import_beir,
    pool_build,
    qrel_set_get,
    run_create,
    run_export,
    run_retrieve,
)
from tests.fixtures.datasets import shared_dataset


def exported(run) -> str:
    out = io.StringIO()
    run_export(run=run, out=out)
    return out.getvalue().replace(f" {run.name}\n", " TAG\n")


def provenance(pool) -> list[tuple]:
    rows = PairSource.objects.filter(pair__pool=pool).values_list(
        "pair__query__query_id",
        "pair__document__doc_id",
        "pair__original_relevance",
        "run__parameters__retriever",
        "rank",
        "score",
    )
    return sorted(rows)


@pytest.mark.slow
@pytest.mark.django_db
def test_repeated_runs_export_the_same_bytes_and_pool_the_same_pairs():
    adi = dataset_import_beir(path=shared_dataset("adi"), name="adi")
    test = qrel_set_get(dataset=adi, name="test")
    first, second = [], []
    for suffix, runs in (("", first), ("-again", second)):
        for retriever in ("bm25", "dense"):
            run = run_create(dataset=adi, retriever=retriever, k=20, name=retriever + suffix)
            runs.append(run_retrieve(run=run))
    for a, b in zip(first, second, strict=True):
        text = exported(a)
        assert text == exported(b)
        assert len(text.splitlines()) == a.entries.count() > 0
    pool_a = pool_build(dataset=adi, qrel_set=test, runs=first, depth=10, name="a").pool
    pool_b = pool_build(dataset=adi, qrel_set=test, runs=second, depth=10, name="b").pool
    assert provenance(pool_a) == provenance(pool_b)
    assert pool_a.pairs.count() == pool_b.pairs.count() > 0
