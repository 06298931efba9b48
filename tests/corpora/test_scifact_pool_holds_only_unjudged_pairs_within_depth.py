"""The SciFact pool (BM25 + dense, depth 10, test qrels): no pair is judged in the test qrels,
every provenance rank is within the depth, and its size is the measured one."""

import io

import pytest
from django.core.management import call_command
from django.db.models import Count, Max

from corpora.models import Pair, PairSource, Qrel
from corpora.services import qrel_set_get, run_create, run_retrieve
from tests.fixtures.pooling import EMBEDDING_CACHE


@pytest.mark.slow
@pytest.mark.django_db
def test_the_scifact_depth_10_pool_has_only_unjudged_pairs_ranked_within_10(scifact):
    run_retrieve(run=run_create(dataset=scifact, retriever="bm25", k=100))
    run_retrieve(
        run=run_create(dataset=scifact, retriever="dense", k=100), cache_dir=EMBEDDING_CACHE
    )
    out = io.StringIO()
    call_command(
        "build_pool",
        "scifact",
        "--runs",
        "bm25,dense",
        "--depth",
        "10",
        "--qrels",
        "test",
        stdout=out,
    )
    printed = out.getvalue()
    assert printed.splitlines()[0].split() == [
        "query",
        "pool",
        "bm25",
        "dense",
        "shared",
        "judged-out",
    ]
    assert (
        "pool test-depth10 (runs bm25, dense; depth 10; qrels test): 300 queries, 4,774 pairs, "
        "4,774 unjudged, 703 found by 2+ runs, 295 judged pairs left out, 0 judged kept"
    ) in printed
    test = qrel_set_get(dataset=scifact, name="test")
    pairs = Pair.objects.filter(pool__name="test-depth10")
    judged = Qrel.objects.filter(qrel_set=test).values_list("query_id", "document_id")
    assert not set(pairs.values_list("query_id", "document_id")) & set(judged)
    assert pairs.filter(original_relevance__isnull=False).count() == 0
    assert PairSource.objects.aggregate(Max("rank"))["rank__max"] <= 10
    assert pairs.annotate(n=Count("sources")).filter(n=0).count() == 0
    # measured: 4,774 pairs over all 300 test queries; 703 came from both runs
    assert pairs.count() == 4774
    assert pairs.values("query").distinct().count() == 300
    assert PairSource.objects.count() == 4774 + 703
