"""A pool built with a strategy stores each pair's place in its judging order and its
budget; a budget beyond the pool falls back to every pair and says so; a refused build (an
unknown strategy, a budget of 0, a run ranking none of the judged queries) leaves nothing."""

import pytest
from django.core.management import call_command

from corpora.models import Pair, Pool
from corpora.services import PoolError, pool_build, qrel_set_get

# q1 is judged (d1 relevant, d3 not); q2 judged (d3 relevant, d4 -1). Unjudged pairs
# pooled at depth 3: q1 d2 (A 2, B 1), q1 d4 (A 3), q2 d1 (A 1), q2 d2 (B 1).
RUN_A = ["q1 Q0 d1 1 3 A", "q1 Q0 d2 2 2 A", "q1 Q0 d4 3 1 A", "q2 Q0 d1 1 .9 A"]
RUN_B = ["q1 Q0 d2 1 3 B", "q1 Q0 d3 2 2 B", "q2 Q0 d2 1 .9 B"]
ELSEWHERE = ["q3 Q0 d1 1 3 C"]  # q3 has no judgment in "test"


def order_of(pool):
    return list(
        Pair.objects.filter(pool=pool)
        .order_by("pool_order")
        .values_list("query__query_id", "document__doc_id", "pool_order")
    )


@pytest.mark.django_db
def test_an_rbp_pool_stores_its_order_and_a_budget_of_two_pairs(energy, import_run):
    runs = [import_run(energy, "a", RUN_A), import_run(energy, "b", RUN_B)]
    test = qrel_set_get(dataset=energy, name="test")
    report = pool_build(dataset=energy, qrel_set=test, runs=runs, depth=3, strategy="rbp", budget=2)
    assert report.pool.name == "test-depth3-rbp"
    assert (report.pool.strategy, report.pool.budget, report.budget_note) == ("rbp", 2, "")
    # RBP weights (p = 0.8): q1 d2 = 0.16 + 0.2 = 0.36, d1 = 0.2, d3 = 0.16, d4 = 0.128;
    # q2 d1 = 0.2, d2 = 0.2 (tie: doc id). Places within each query count the judged d1, d3
    # (trectools' top-X pool, whose judged pairs cost nothing): q1 d2 1st, d4 4th; q2 d1
    # 1st, d2 2nd. Interleaved by place: q1 d2, q2 d1, q2 d2, q1 d4.
    assert order_of(report.pool) == [
        ("q1", "d2", 1), ("q2", "d1", 2), ("q2", "d2", 3), ("q1", "d4", 4)
    ]  # fmt: skip


@pytest.mark.django_db
def test_a_depth_pool_without_a_budget_keeps_the_canonical_order(energy, import_run):
    run = import_run(energy, "a", RUN_A)
    test = qrel_set_get(dataset=energy, name="test")
    pool = pool_build(dataset=energy, qrel_set=test, runs=[run], depth=3).pool
    assert pool.strategy == "depth" and pool.budget is None
    assert set(Pair.objects.filter(pool=pool).values_list("pool_order", flat=True)) == {None}


@pytest.mark.django_db
def test_a_budget_beyond_the_pool_falls_back_to_every_pair_and_says_so(energy, import_run):
    run = import_run(energy, "a", RUN_A)
    test = qrel_set_get(dataset=energy, name="test")
    report = pool_build(
        dataset=energy, qrel_set=test, runs=[run], depth=3, strategy="bandit", budget=50
    )
    assert report.pool.budget == 3
    assert report.budget_note == "budget 50 is more than the pool's 3 pairs: every pair is judged"


@pytest.mark.django_db
def test_a_share_budget_is_a_share_of_the_pool(energy, import_run):
    runs = [import_run(energy, "a", RUN_A), import_run(energy, "b", RUN_B)]
    test = qrel_set_get(dataset=energy, name="test")
    pool = pool_build(
        dataset=energy, qrel_set=test, runs=runs, depth=3, strategy="mtc", budget=0.5
    ).pool
    assert pool.budget == 2  # half of 4 pairs


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"strategy": "random"}, "unknown pool strategy 'random'"),
        ({"strategy": "rbp", "budget": 0}, "budget must be more than 0"),
        ({"strategy": "rbp", "budget": 2.5}, "budget 2.5: give a whole number of pairs"),
    ],
)
def test_a_bad_strategy_or_budget_is_refused_and_builds_nothing(
    energy, import_run, kwargs, message
):
    run = import_run(energy, "a", RUN_A)
    test = qrel_set_get(dataset=energy, name="test")
    with pytest.raises(PoolError, match=message):
        pool_build(dataset=energy, qrel_set=test, runs=[run], depth=3, **kwargs)
    assert not Pool.objects.exists() and not Pair.objects.exists()


@pytest.mark.django_db
def test_a_run_with_no_overlap_is_refused_by_name_and_no_half_built_pool_is_left(
    energy, import_run
):
    runs = [import_run(energy, "a", RUN_A), import_run(energy, "c", ELSEWHERE)]
    test = qrel_set_get(dataset=energy, name="test")
    with pytest.raises(PoolError, match=r"run\(s\) c rank none of the queries the qrels judge"):
        pool_build(dataset=energy, qrel_set=test, runs=runs, depth=3, strategy="bandit")
    assert not Pool.objects.exists() and not Pair.objects.exists()


@pytest.mark.django_db
def test_build_pool_takes_a_strategy_and_a_budget_and_prints_them(energy, import_run, capsys):
    import_run(energy, "a", RUN_A)
    import_run(energy, "b", RUN_B)
    call_command(
        "build_pool", "energy", "--runs", "a,b", "--depth", "3", "--strategy", "bandit",
        "--budget", "0.5", "--totals-only",
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "judging order: bandit (MaxMean over runs); budget 2 pairs" in out
    pool = Pool.objects.get()
    assert (pool.name, pool.strategy, pool.budget) == ("test-depth3-bandit", "bandit", 2)
    assert sorted(p for *_, p in order_of(pool)) == [1, 2, 3, 4]
