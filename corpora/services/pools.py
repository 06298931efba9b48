"""Pools: the union of runs' top-k candidates per judged query, with provenance.

:func:`pool_build` builds or extends a Pool from done runs (failing a run whose execution
died first, :func:`~corpora.services.runs.run_fail_stale`); each Pair keeps its original
grade and one PairSource per run that ranked it within the depth. The candidate logic itself
is pure (:mod:`corpora.pooling`); this module reads and writes the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from core.names import name_problem

from .. import pool_strategies, pooling
from ..models import Dataset, Pair, PairSource, Pool, QrelSet, Query, Run, RunEntry
from ..selectors import excluded_pk_pairs
from .datasets import BATCH_SIZE, copy_rows
from .runs import run_fail_stale


class PoolError(ValueError):
    """A pool build that is refused (runs of another dataset, unfinished runs, a pool of that
    name built with other settings...)."""


@dataclass
class PoolBuildReport:
    """What :func:`pool_build` did: the pool, its full candidate set with statistics, and how
    many pairs and provenance rows this build created. ``query_ids`` and ``run_names`` map the
    database ids in ``result`` to benchmark query ids and run names."""

    pool: Pool
    result: pooling.PoolResult[int, int, int]  # keys: Run, Query, Document pks
    created_pairs: int
    created_sources: int
    query_ids: dict[int, str]
    run_names: dict[int, str]
    budget_note: str = ""
    #: The pool's runs before this build, by name ([] for a pool this build created: a pool
    #: is never stored without a run).
    runs_before: list[str] = field(default_factory=list)


def pool_default_name(
    *, qrel_set: QrelSet, depth: int, include_judged: bool, strategy: str = Pool.Strategy.DEPTH
) -> str:
    """``<qrels>-depth<k>``, plus ``-judged`` when judged pairs are re-judged and
    ``-<strategy>`` for a strategy other than depth."""
    return (
        f"{qrel_set.name}-depth{depth}"
        + ("-judged" if include_judged else "")
        + ("" if strategy == Pool.Strategy.DEPTH else f"-{strategy}")
    )


def pool_build(
    *,
    dataset: Dataset,
    qrel_set: QrelSet,
    runs: Sequence[Run],
    depth: int = 10,
    include_judged: bool = False,
    name: str | None = None,
    queries: Sequence[str] | None = None,
    strategy: str = Pool.Strategy.DEPTH,
    budget: float | None = None,
) -> PoolBuildReport:
    """Build or extend a Pool: the union of each run's top ``depth`` per query.

    Only queries judged in ``qrel_set`` are pooled. Pairs judged there (any grade) are left
    out unless ``include_judged``. Each Pair gets one PairSource per run ranking it within the
    depth, and its original grade. Incremental and idempotent: building the same pool again
    creates nothing; adding a run adds only the new pairs and provenance rows; pairs are never
    deleted. One transaction. ``name`` defaults to :func:`pool_default_name`; an existing
    pool of that name must have the same qrel set, depth and ``include_judged``.
    ``queries`` (benchmark query ids) bounds the pool to that subset of the judged queries,
    e.g. for a quick demo; it is stored on the pool and must match when the pool is extended.
    Every run must be done; one left running by a task that died is marked failed first
    (:func:`run_fail_stale`) and refused with that reason. When the dataset excludes
    identical ids, a query's own document is never pooled (``result.excluded_left_out``
    counts the run entries skipped for it).

    ``strategy`` (:mod:`corpora.pool_strategies`: depth, rbp, rrf, bandit, mtc) orders the
    pairs for judging and ``budget`` caps how many a job judges: a number of pairs, or below
    1 a share of the pool; more than the pool judges every pair (``budget_note`` says so).
    Any strategy but depth, or a budget, stores each pair's place (``Pair.pool_order``),
    recomputed when runs are added; adaptive strategies start from the qrels' labels and are
    reordered by jobs as labels arrive. An existing pool must have the same strategy and
    budget. A run that ranks none of the pooled queries is refused (it would add nothing).
    Raises :class:`PoolError`; a refused build leaves no pool, pair or order behind."""
    _pool_runs_check(dataset=dataset, qrel_set=qrel_set, runs=runs, depth=depth)
    _pool_strategy_check(strategy, budget)
    name = name or pool_default_name(
        qrel_set=qrel_set, depth=depth, include_judged=include_judged, strategy=strategy
    )
    problem = name_problem(name, field="pool name")
    if problem:
        raise PoolError(problem)
    subset = _pool_query_subset(dataset, queries)
    with transaction.atomic():
        pool = _pool_lock(
            dataset=dataset,
            name=name,
            qrel_set=qrel_set,
            depth=depth,
            include_judged=include_judged,
            subset=subset,
            strategy=strategy,
            budget=budget,
        )
        runs_before = sorted(pool.runs.values_list("name", flat=True))
        pool.runs.add(*runs)
        pooled_runs = list(pool.runs.all())
        result = _pool_candidates(dataset=dataset, pool=pool, pooled_runs=pooled_runs)
        _pool_overlap_check(result, runs)
        created_pairs, created_sources = _pool_rows_write(pool, result)
        budget_note = _pool_order_write(pool, dataset=dataset, pooled_runs=pooled_runs)
    query_ids = dict(
        Query.objects.filter(pk__in=[s.query for s in result.per_query]).values_list(
            "pk", "query_id"
        )
    )
    # Report queries in benchmark id order, not database id order.
    result.per_query.sort(key=lambda s: query_ids[s.query])
    return PoolBuildReport(
        pool=pool,
        result=result,
        created_pairs=created_pairs,
        created_sources=created_sources,
        query_ids=query_ids,
        run_names={r.pk: r.name for r in pooled_runs},
        budget_note=budget_note,
        runs_before=runs_before,
    )


def _pool_strategy_check(strategy: str, budget: float | None) -> None:
    """Raise :class:`PoolError` for an unknown strategy or a budget of 0 or less, or a
    count that is not a whole number."""
    if strategy not in Pool.Strategy.values:
        raise PoolError(
            f"unknown pool strategy {strategy!r} (expected {', '.join(Pool.Strategy.values)})"
        )
    try:
        pool_strategies.budget_resolve(budget, pool_size=1)
    except ValueError as exc:
        raise PoolError(str(exc)) from None


def _pool_overlap_check(result: pooling.PoolResult[int, int, int], runs: Sequence[Run]) -> None:
    """Raise :class:`PoolError` naming each of ``runs`` that ranks none of the pooled queries
    within the depth (no overlap with the qrels: a wrong run file, or another topic set)."""
    contributing = {s.run for c in result.candidates for s in c.sources}
    contributing |= {r for q in result.per_query for r, n in q.by_run.items() if n}
    # A run whose top documents are all judged contributes no candidate but does overlap.
    ranked = set(
        RunEntry.objects.filter(
            run__in=[r.pk for r in runs], query_id__in=[q.query for q in result.per_query]
        )
        .values_list("run_id", flat=True)
        .distinct()
    )
    idle = [r.name for r in runs if r.pk not in contributing and r.pk not in ranked]
    if idle:
        raise PoolError(
            f"run(s) {', '.join(idle)} rank none of the queries the qrels judge (no overlap "
            "with the pool): check the run's query ids, or leave it out"
        )


def pool_rankings(*, pool: Pool, runs: Sequence[Run]) -> dict[int, dict[int, list[int]]]:
    """What a pool strategy orders: each of ``runs``' top ``pool.depth`` documents per query
    the pool covers (judged in its qrel set, within its query subset), never a query's own
    document when the dataset excludes identical ids; by database ids, run -> query ->
    documents in rank order (:func:`corpora.pool_strategies.rankings_from_entries`)."""
    judged_queries = pool.qrel_set.qrels.values("query_id")
    if pool.query_ids:
        judged_queries = judged_queries.filter(query__query_id__in=pool.query_ids)
    excluded = excluded_pk_pairs(dataset=pool.dataset)
    entries = RunEntry.objects.filter(
        run__in=runs, rank__lte=pool.depth, query_id__in=judged_queries
    ).values_list("run_id", "query_id", "document_id", "rank")
    return pool_strategies.rankings_from_entries(
        (e for e in entries.iterator(chunk_size=BATCH_SIZE) if (e[1], e[2]) not in excluded),
        depth=pool.depth,
    )


def _pool_order_write(pool: Pool, *, dataset: Dataset, pooled_runs: list[Run]) -> str:
    """Store each pair's place in ``pool``'s strategy order (``Pair.pool_order``, 1 first) and
    the pool's budget resolved against its size; returns the budget's note. A depth pool
    without a budget keeps the canonical order (no places stored). The strategy sees every
    run's top ``depth`` of the pooled queries, judged pairs included with their qrels grade
    as known labels (unless the pool re-judges them)."""
    asked = pool.strategy_parameters.get("budget_asked")
    if pool.strategy == Pool.Strategy.DEPTH and asked is None:
        return ""
    rankings = pool_rankings(pool=pool, runs=pooled_runs)
    labels = (
        {}
        if pool.include_judged
        else {
            (q, d): grade
            for q, d, grade in pool.qrel_set.qrels.values_list(
                "query_id", "document_id", "relevance"
            )
        }
    )
    params = pool_strategy_params(pool=pool)
    order = pool_strategies.pool_order(pool.strategy, rankings, labels=labels, params=params)
    pairs = {(p.query_id, p.document_id): p for p in pool.pairs.only("pk", "query", "document")}
    changed = []
    for place, key in enumerate((k for k in order if k in pairs), start=1):
        pair = pairs[key]
        pair.pool_order = place
        changed.append(pair)
    Pair.objects.bulk_update(changed, ["pool_order"], batch_size=1000)
    count, note = pool_strategies.budget_resolve(asked, pool_size=len(pairs))
    pool.budget = None if asked is None else count
    pool.save(update_fields=["budget"])
    return note


def pool_strategy_params(*, pool: Pool) -> pool_strategies.StrategyParams:
    """``pool``'s stored strategy settings, typed (defaults where a key is missing)."""
    stored = pool.strategy_parameters
    default = pool_strategies.DEFAULT_PARAMS
    return pool_strategies.StrategyParams(
        rbp_p=float(stored.get("rbp_p", default.rbp_p)),
        rrf_k=int(stored.get("rrf_k", default.rrf_k)),
        bandit_discount=float(stored.get("bandit_discount", default.bandit_discount)),
        rel_level=int(stored.get("rel_level", default.rel_level)),
    )


def _pool_runs_check(
    *, dataset: Dataset, qrel_set: QrelSet, runs: Sequence[Run], depth: int
) -> None:
    """Raise :class:`PoolError` unless ``depth`` >= 1 and ``runs`` are one or more done runs
    of ``dataset``, ``qrel_set`` one of its qrel sets. A run left running by a task that died
    is first marked failed (:func:`run_fail_stale`) and refused with that reason."""
    if depth < 1:
        raise PoolError(f"pool depth must be at least 1, got {depth}")
    if not runs:
        raise PoolError("a pool needs at least one run")
    if qrel_set.dataset_id != dataset.pk:
        raise PoolError(f"qrel set {qrel_set} is not in dataset {dataset.slug!r}")
    for run in runs:
        if run.dataset_id != dataset.pk:
            raise PoolError(f"run {run} is not in dataset {dataset.slug!r}")
    # A run left "running" by a task that died is refused as failed, with why, not as running.
    run_fail_stale(runs=runs)
    current = {
        pk: (status, error)
        for pk, status, error in Run.objects.filter(pk__in=[r.pk for r in runs]).values_list(
            "pk", "status", "error"
        )
    }
    for run in runs:
        status, error = current.get(run.pk, ("deleted", ""))
        if status != Run.Status.DONE:
            reason = f": {error}" if error else ""
            raise PoolError(f"run {run.name!r} is {status}, not done{reason}")


def _pool_query_subset(dataset: Dataset, queries: Sequence[str] | None) -> list[str]:
    """``queries`` sorted without duplicates ([] for all). Raises :class:`PoolError` for a
    query id ``dataset`` does not have."""
    subset = sorted(set(queries)) if queries else []
    if subset:
        known = set(
            Query.objects.filter(dataset=dataset, query_id__in=subset).values_list(
                "query_id", flat=True
            )
        )
        unknown = [q for q in subset if q not in known]
        if unknown:
            raise PoolError(f"unknown query id(s) in {dataset.slug!r}: {', '.join(unknown)}")
    return subset


def _pool_lock(
    *,
    dataset: Dataset,
    name: str,
    qrel_set: QrelSet,
    depth: int,
    include_judged: bool,
    subset: list[str],
    strategy: str,
    budget: float | None,
) -> Pool:
    """Pool ``name`` of ``dataset``, created or locked (in the caller's transaction). Raises
    :class:`PoolError` when it exists with another qrel set, depth, ``include_judged``,
    query subset, strategy or budget."""
    parameters: dict[str, float | int | None] = {}
    if strategy != Pool.Strategy.DEPTH:
        parameters.update(pool_strategies.StrategyParams().as_dict())
    parameters["budget_asked"] = budget
    pool, created = Pool.objects.select_for_update().get_or_create(
        dataset=dataset,
        name=name,
        defaults={
            "qrel_set": qrel_set,
            "depth": depth,
            "include_judged": include_judged,
            "query_ids": subset,
            "strategy": strategy,
            "strategy_parameters": parameters,
        },
    )
    if not created and (
        pool.qrel_set_id != qrel_set.pk
        or pool.depth != depth
        or pool.include_judged != include_judged
        or pool.query_ids != subset
        or pool.strategy != strategy
        or pool.strategy_parameters.get("budget_asked") != budget
    ):
        raise PoolError(
            f"pool {name!r} exists with qrels {pool.qrel_set.name!r}, depth {pool.depth}, "
            f"include_judged={pool.include_judged}, "
            f"{len(pool.query_ids) or 'all'} queries, strategy {pool.strategy}"
            f"{_budget_words(pool.strategy_parameters.get('budget_asked'))}: build it with "
            "those settings to add runs, or use another name"
        )
    return pool


def _budget_words(budget: float | None) -> str:
    return "" if budget is None else f", budget {budget:g}"


def _pool_candidates(
    *, dataset: Dataset, pool: Pool, pooled_runs: list[Run]
) -> pooling.PoolResult[int, int, int]:
    """Every candidate pair of ``pool`` (:func:`corpora.pooling.pool_candidates`): the top
    ``depth`` entries of each of ``pooled_runs`` for the queries judged in its qrel set (only
    those of its query subset when it has one), judged pairs left out unless it re-judges
    them, and never a query's own document when ``dataset`` excludes identical ids."""
    qrel_set, depth, subset = pool.qrel_set, pool.depth, pool.query_ids
    include_judged = pool.include_judged
    judged_queries = qrel_set.qrels.values("query_id")
    if subset:
        judged_queries = judged_queries.filter(query__query_id__in=subset)
    entries = RunEntry.objects.filter(
        run__in=pooled_runs, rank__lte=depth, query_id__in=judged_queries
    ).values_list("run_id", "query_id", "document_id", "rank", "score")
    judged = {
        (q, d): rel
        for q, d, rel in qrel_set.qrels.values_list("query_id", "document_id", "relevance")
    }
    return pooling.pool_candidates(
        entries.iterator(chunk_size=BATCH_SIZE),
        depth=depth,
        judged=judged,
        include_judged=include_judged,
        runs=[r.pk for r in pooled_runs],
        excluded=excluded_pk_pairs(dataset=dataset),  # never a self-pair
    )


def _pool_rows_write(pool: Pool, result: pooling.PoolResult[int, int, int]) -> tuple[int, int]:
    """Add the candidates ``pool`` lacks as Pairs and their missing PairSource rows (pairs
    and provenance rows are never deleted). Returns (pairs created, sources created)."""
    existing = dict(
        ((q, d), pk) for q, d, pk in pool.pairs.values_list("query_id", "document_id", "pk")
    )
    new_pairs = [c for c in result.candidates if (c.query, c.document) not in existing]
    now = timezone.now()
    # COPY: a depth-100 pool of a mid-sized benchmark is tens of thousands of rows.
    copy_rows(
        "corpora_pair",
        ["pool_id", "query_id", "document_id", "original_relevance", "created"],
        ((pool.pk, c.query, c.document, c.original_relevance, now) for c in new_pairs),
    )
    if new_pairs:
        existing = dict(
            ((q, d), pk) for q, d, pk in pool.pairs.values_list("query_id", "document_id", "pk")
        )
    have = set(PairSource.objects.filter(pair__pool=pool).values_list("pair_id", "run_id"))
    new_sources = [
        (existing[(c.query, c.document)], s.run, s.rank, s.score)
        for c in result.candidates
        for s in c.sources
        if (existing[(c.query, c.document)], s.run) not in have
    ]
    copy_rows("corpora_pairsource", ["pair_id", "run_id", "rank", "score"], new_sources)
    return len(new_pairs), len(new_sources)


def pool_get(*, dataset: Dataset, name: str) -> Pool:
    """The dataset's Pool of this name. Raises ``Pool.DoesNotExist``."""
    return Pool.objects.get(dataset=dataset, name=name)
