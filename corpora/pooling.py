"""Depth-k pooling with provenance. Pure functions, no database.

Pooling (Sparck Jones & van Rijsbergen, 1975; TREC, Voorhees & Harman, 2005): the candidate
pairs of a query are the union of every run's top ``depth`` documents. To find holes, pairs
already judged in the reference qrels (any grade, including 0 and negative) are left out
unless ``include_judged`` is set (accuracy audits re-judge them). Each candidate keeps every
``(run, rank, score)`` that put it in the pool, and its original grade if it was judged.

Keys (runs, queries, documents) are whatever hashable, orderable values the caller uses
(database ids in the service); results come out in sorted key order, so equal inputs give
equal outputs.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar


class SortKey(Protocol):
    """A hashable, orderable key: a database id, a benchmark's string id."""

    def __hash__(self) -> int: ...

    def __lt__(self, other: Any, /) -> bool: ...


R = TypeVar("R", bound=SortKey)  # run key
Q = TypeVar("Q", bound=SortKey)  # query key
D = TypeVar("D", bound=SortKey)  # document key


@dataclass(frozen=True, slots=True)
class Source(Generic[R]):
    """A run ranking a candidate within the pool depth."""

    run: R
    rank: int
    score: float


@dataclass(slots=True)
class Candidate(Generic[R, Q, D]):
    query: Q
    document: D
    sources: list[Source[R]] = field(default_factory=list)
    original_relevance: int | None = None


@dataclass(slots=True)
class QueryStats(Generic[R, Q]):
    """One query's pool: ``pairs`` kept; ``by_run[run]`` of them in that run's top depth;
    ``shared`` found by two runs or more; ``judged`` judged pairs in the union (left out,
    or kept when re-judging)."""

    query: Q
    pairs: int = 0
    by_run: dict[R, int] = field(default_factory=dict)
    shared: int = 0
    judged: int = 0


@dataclass(slots=True)
class PoolResult(Generic[R, Q, D]):
    candidates: list[Candidate[R, Q, D]]
    per_query: list[QueryStats[R, Q]]
    judged_left_out: int
    judged_kept: int
    excluded_left_out: int = 0

    @property
    def unjudged(self) -> int:
        """Candidates with no grade in the reference qrels (the hole candidates)."""
        return sum(1 for c in self.candidates if c.original_relevance is None)


def pool_candidates(
    entries: Iterable[tuple[R, Q, D, int, float]],
    *,
    depth: int,
    judged: Mapping[tuple[Q, D], int],
    include_judged: bool = False,
    runs: Iterable[R] = (),
    excluded: Collection[tuple[Q, D]] = frozenset(),
) -> PoolResult[R, Q, D]:
    """Pool ``(run, query, document, rank, score)`` entries at ``depth``.

    Entries ranked below ``depth`` (rank > depth) are ignored. ``judged`` maps
    ``(query, document)`` to its grade in the reference qrels. ``runs`` lists the pooled runs,
    so a run that contributes nothing to a query still gets a 0 in ``by_run``. ``excluded``
    lists ``(query, document)`` pairs never pooled, judged or not (a query's own document
    when the dataset excludes identical ids); how many entries named one is
    ``excluded_left_out``.

    Returns candidates sorted by (query, document) with sources sorted by run, per-query
    statistics sorted by query, and how many judged pairs were left out or kept.
    Raises ValueError if ``depth`` < 1 or a run ranks the same pair twice.
    """
    if depth < 1:
        raise ValueError(f"pool depth must be at least 1, got {depth}")
    run_keys = sorted(set(runs))
    found: dict[tuple[Q, D], Candidate[R, Q, D]] = {}
    excluded_entries = 0
    for run, query, document, rank, score in entries:
        if rank > depth:
            continue
        key = (query, document)
        if key in excluded:
            excluded_entries += 1
            continue
        candidate = found.get(key)
        if candidate is None:
            candidate = found[key] = Candidate(query, document, [], judged.get(key))
        if any(s.run == run for s in candidate.sources):
            raise ValueError(f"run {run!r} ranks query {query!r} document {document!r} twice")
        candidate.sources.append(Source(run, rank, score))
        if run not in run_keys:
            run_keys.append(run)
    run_keys.sort()

    stats: dict[Q, QueryStats[R, Q]] = {}
    kept: list[Candidate[R, Q, D]] = []
    left_out = kept_judged = 0
    for key in sorted(found):
        candidate = found[key]
        candidate.sources.sort(key=lambda s: s.run)
        query_stats = stats.get(candidate.query)
        if query_stats is None:
            query_stats = stats[candidate.query] = QueryStats(
                candidate.query, by_run=dict.fromkeys(run_keys, 0)
            )
        is_judged = candidate.original_relevance is not None
        if is_judged:
            query_stats.judged += 1
            if not include_judged:
                left_out += 1
                continue
            kept_judged += 1
        kept.append(candidate)
        query_stats.pairs += 1
        for source in candidate.sources:
            query_stats.by_run[source.run] += 1
        if len(candidate.sources) > 1:
            query_stats.shared += 1
    return PoolResult(
        candidates=kept,
        per_query=[stats[q] for q in sorted(stats)],
        judged_left_out=left_out,
        judged_kept=kept_judged,
        excluded_left_out=excluded_entries,
    )
