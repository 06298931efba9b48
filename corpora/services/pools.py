"""Pools: the union of runs' top-k candidates per judged query, with provenance.

:func:`pool_build` builds or extends a Pool from done runs (failing a run whose execution
died first, :func:`~corpora.services.runs.run_fail_stale`); each Pair keeps its original
grade and one PairSource per run that ranked it within the depth. The candidate logic itself
is pure (:mod:`corpora.pooling`); this module reads and writes the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from core.names import name_problem

from .. import pooling
from ..models import Dataset, PairSource, Pool, QrelSet, Query, Run, RunEntry
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


def pool_default_name(*, qrel_set: QrelSet, depth: int, include_judged: bool) -> str:
    """``<qrels>-depth<k>``, plus ``-judged`` when judged pairs are re-judged."""
    return f"{qrel_set.name}-depth{depth}" + ("-judged" if include_judged else "")


def pool_build(
    *,
    dataset: Dataset,
    qrel_set: QrelSet,
    runs: Sequence[Run],
    depth: int = 10,
    include_judged: bool = False,
    name: str | None = None,
    queries: Sequence[str] | None = None,
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
    counts the run entries skipped for it). Raises :class:`PoolError`.
    """
    _pool_runs_check(dataset=dataset, qrel_set=qrel_set, runs=runs, depth=depth)
    name = name or pool_default_name(qrel_set=qrel_set, depth=depth, include_judged=include_judged)
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
        )
        pool.runs.add(*runs)
        pooled_runs = list(pool.runs.all())
        result = _pool_candidates(
            dataset=dataset,
            qrel_set=qrel_set,
            pooled_runs=pooled_runs,
            depth=depth,
            include_judged=include_judged,
            subset=subset,
        )
        created_pairs, created_sources = _pool_rows_write(pool, result)
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
) -> Pool:
    """Pool ``name`` of ``dataset``, created or locked (in the caller's transaction). Raises
    :class:`PoolError` when it exists with another qrel set, depth, ``include_judged`` or
    query subset."""
    pool, created = Pool.objects.select_for_update().get_or_create(
        dataset=dataset,
        name=name,
        defaults={
            "qrel_set": qrel_set,
            "depth": depth,
            "include_judged": include_judged,
            "query_ids": subset,
        },
    )
    if not created and (
        pool.qrel_set_id != qrel_set.pk
        or pool.depth != depth
        or pool.include_judged != include_judged
        or pool.query_ids != subset
    ):
        raise PoolError(
            f"pool {name!r} exists with qrels {pool.qrel_set.name!r}, depth {pool.depth}, "
            f"include_judged={pool.include_judged}, "
            f"{len(pool.query_ids) or 'all'} queries; use another name"
        )
    return pool


def _pool_candidates(
    *,
    dataset: Dataset,
    qrel_set: QrelSet,
    pooled_runs: list[Run],
    depth: int,
    include_judged: bool,
    subset: list[str],
) -> pooling.PoolResult[int, int, int]:
    """Every candidate pair of the pool (:func:`corpora.pooling.pool_candidates`): the top
    ``depth`` entries of each of ``pooled_runs`` for the queries judged in ``qrel_set`` (only
    those of ``subset`` when given), judged pairs left out unless ``include_judged``, and
    never a query's own document when ``dataset`` excludes identical ids."""
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
