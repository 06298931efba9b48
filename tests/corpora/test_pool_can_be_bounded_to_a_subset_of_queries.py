"""A pool can be bounded to chosen queries (a quick demo); the subset is kept on the pool."""

import pytest

from corpora.models import Pair
from corpora.services import PoolError, pool_build, qrel_set_get

RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q2 Q0 d3 1 .9 A", "q2 Q0 d1 2 .8 A"]


@pytest.mark.django_db
def test_a_pool_of_one_query_holds_only_that_querys_pairs(energy, import_run):
    run = import_run(energy, "a", RUN_A)
    test = qrel_set_get(dataset=energy, name="test")
    report = pool_build(
        dataset=energy, qrel_set=test, runs=[run], depth=2, name="one", queries=["q2"]
    )
    assert report.pool.query_ids == ["q2"]
    assert list(Pair.objects.values_list("query__query_id", "document__doc_id")) == [("q2", "d1")]


@pytest.mark.django_db
def test_extending_a_bounded_pool_with_other_queries_is_refused(energy, import_run):
    run = import_run(energy, "a", RUN_A)
    test = qrel_set_get(dataset=energy, name="test")
    pool_build(dataset=energy, qrel_set=test, runs=[run], depth=2, name="one", queries=["q2"])
    with pytest.raises(PoolError) as err:
        pool_build(dataset=energy, qrel_set=test, runs=[run], depth=2, name="one")
    assert str(err.value) == (
        "pool 'one' exists with qrels 'test', depth 2, include_judged=False, 1 queries, "
        "strategy depth: build it with those settings to add runs, or use another name"
    )


@pytest.mark.django_db
def test_an_unknown_query_id_in_the_subset_is_refused(energy, import_run):
    run = import_run(energy, "a", RUN_A)
    test = qrel_set_get(dataset=energy, name="test")
    with pytest.raises(PoolError) as err:
        pool_build(dataset=energy, qrel_set=test, runs=[run], name="x", queries=["q9"])
    assert str(err.value) == "unknown query id(s) in 'energy': q9"
