"""Adding a run to an existing pool adds only its new pairs (and its provenance on pairs that
were already there), so earlier pairs, and the debates about them, are kept as they are."""

import pytest

from corpora.models import Pair, PairSource, Pool
from corpora.services import PoolError, pool_build, qrel_set_get

RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q2 Q0 d3 1 .9 A", "q2 Q0 d1 2 .8 A"]
RUN_C = ["q1 Q0 d2 1 5 C", "q1 Q0 d3 2 4 C", "q3 Q0 d4 1 1 C", "q3 Q0 d1 2 .5 C"]


@pytest.mark.django_db
def test_a_new_run_adds_only_its_new_pairs_and_provenance(energy, import_run):
    test = qrel_set_get(dataset=energy, name="test")
    a = import_run(energy, "a", RUN_A)
    c = import_run(energy, "c", RUN_C)
    first = pool_build(dataset=energy, qrel_set=test, runs=[a], depth=2)
    before = {
        (q, d): pk
        for q, d, pk in Pair.objects.values_list("query__query_id", "document__doc_id", "pk")
    }
    assert set(before) == {("q1", "d2"), ("q2", "d1")}

    report = pool_build(dataset=energy, qrel_set=test, runs=[c], depth=2)
    assert report.pool.pk == first.pool.pk
    assert sorted(report.pool.runs.values_list("name", flat=True)) == ["a", "c"]
    # c's q1 d3 is judged (grade 0) and q3 is not a judged query of "test": nothing new
    # but c's provenance on the existing pair q1 d2
    assert (report.created_pairs, report.created_sources) == (0, 1)
    after = {
        (q, d): pk
        for q, d, pk in Pair.objects.values_list("query__query_id", "document__doc_id", "pk")
    }
    assert after == before
    assert sorted(
        PairSource.objects.filter(pair__query__query_id="q1").values_list("run__name", "rank")
    ) == [("a", 2), ("c", 1)]


@pytest.mark.django_db
def test_a_deeper_pool_under_the_same_name_is_refused(energy, import_run):
    test = qrel_set_get(dataset=energy, name="test")
    a = import_run(energy, "a", RUN_A)
    pool_build(dataset=energy, qrel_set=test, runs=[a], depth=1, name="mine")
    with pytest.raises(PoolError, match="pool 'mine' exists with qrels 'test', depth 1"):
        pool_build(dataset=energy, qrel_set=test, runs=[a], depth=2, name="mine")
    assert Pool.objects.get().depth == 1
