"""Building the same pool again creates no pair and no provenance row."""

import pytest

from corpora.models import Pair, PairSource
from corpora.services import pool_build, qrel_set_get

RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q2 Q0 d3 1 .9 A", "q2 Q0 d1 2 .8 A"]
RUN_B = ["q1 Q0 d2 1 .9 B", "q1 Q0 d4 2 .5 B", "q2 Q0 d2 1 .7 B", "q2 Q0 d3 2 .6 B"]


@pytest.mark.django_db
def test_a_pool_built_twice_creates_nothing_new(energy, import_run):
    runs = [import_run(energy, "a", RUN_A), import_run(energy, "b", RUN_B)]
    test = qrel_set_get(dataset=energy, name="test")
    first = pool_build(dataset=energy, qrel_set=test, runs=runs, depth=2)
    assert first.pool.name == "test-depth2"
    assert (first.created_pairs, first.created_sources) == (4, 5)
    rows = sorted(
        PairSource.objects.values_list(
            "pair__query__query_id", "pair__document__doc_id", "run__name", "rank", "score"
        )
    )
    assert rows == [
        ("q1", "d2", "a", 2, 2.0),
        ("q1", "d2", "b", 1, 0.9),
        ("q1", "d4", "b", 2, 0.5),
        ("q2", "d1", "a", 2, 0.8),
        ("q2", "d2", "b", 1, 0.7),
    ]
    pair_pks = sorted(Pair.objects.values_list("pk", flat=True))
    second = pool_build(dataset=energy, qrel_set=test, runs=runs, depth=2)
    assert (second.created_pairs, second.created_sources) == (0, 0)
    assert second.pool.pk == first.pool.pk
    assert sorted(Pair.objects.values_list("pk", flat=True)) == pair_pks
    assert PairSource.objects.count() == 5
