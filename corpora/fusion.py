"""Fusion of several runs into one: reciprocal rank fusion, CombSUM and CombMNZ. Pure: no
database.

* **Reciprocal rank fusion** (RRF; Cormack, Clarke & Büttcher, SIGIR 2009): a document
  scores ``sum over runs of 1 / (k + rank)``, its rank in each run that retrieved it counted
  from 1, with ``k = 60`` as in the paper. Only ranks matter, so runs on different score
  scales fuse without normalisation.
* **CombSUM** and **CombMNZ** (Fox & Shaw, TREC-2 1994): each run's scores are first
  min-max normalised per query, ``(s - min) / (max - min)`` over the documents that run
  retrieved for that query (Lee, SIGIR 1997), so every run's scores lie in [0, 1]; a run
  whose documents all score the same (one document, say) gives each of them 1. CombSUM adds
  a document's normalised scores over the runs that retrieved it (0 from the others);
  CombMNZ multiplies that sum by the number of runs that retrieved it.

Input is ``{run: {query: [(doc, score), ...]}}``, each list in the run's rank order (its
first document is its rank 1); output is one ranking per query of every run's union, in the
project's rank order (fused score descending, then doc id ascending), cut to the top ``k``.
A document's fused score is summed with :func:`math.fsum` (exactly rounded), so the same
contributions in another order give the same float and ties are real ties.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

#: The fusion methods :func:`fuse` knows.
METHODS = ("rrf", "combsum", "combmnz")
#: RRF's constant: Cormack et al. found 60 near-best on every TREC collection they tried.
RRF_K = 60


Ranked = Sequence[tuple[str, float]]
"""One query's documents of one run, ``(doc id, score)`` in the run's rank order."""


def min_max(scores: Sequence[float]) -> list[float]:
    """``scores`` mapped to ``(s - min) / (max - min)``, in order; all 1.0 when they are all
    equal (a run that cannot tell its documents apart ranks each as its best); ``[]`` for
    none. ``[3.0, 2.0, 1.0]`` → ``[1.0, 0.5, 0.0]``."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high == low:
        return [1.0] * len(scores)
    return [(s - low) / (high - low) for s in scores]


def _contributions(method: str, ranked: Ranked, rrf_k: int) -> list[tuple[str, float]]:
    """One run's ``(doc, contribution)`` pairs for one query under ``method``."""
    if method == "rrf":
        return [(doc, 1.0 / (rrf_k + rank)) for rank, (doc, _) in enumerate(ranked, start=1)]
    normalised = min_max([float(score) for _, score in ranked])
    return [(doc, value) for (doc, _), value in zip(ranked, normalised, strict=True)]


def fuse(
    runs: Mapping[str, Mapping[str, Ranked]],
    *,
    method: str = "rrf",
    k: int = 100,
    rrf_k: int = RRF_K,
) -> dict[str, list[tuple[str, float]]]:
    """Fuse ``runs`` (``{run name: {query id: [(doc id, score), ...] in rank order}}``, two
    or more usually) with ``method`` ("rrf", "combsum" or "combmnz"; see the module docstring
    for each and its source) into ``{query id: [(doc id, fused score), ...]}``, by query id:
    for every query some run covers, the union of the documents the runs retrieved for it,
    fused score descending then doc id ascending (code point), at most ``k``. ``rrf_k`` is
    RRF's constant (RRF only).

    Raises ValueError for an unknown method, ``k < 1``, ``rrf_k < 0``, or a document listed
    twice in one run's ranking of a query.
    """
    if method not in METHODS:
        raise ValueError(f"unknown fusion method {method!r} (expected one of {', '.join(METHODS)})")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if rrf_k < 0:
        raise ValueError(f"rrf_k must be 0 or more, got {rrf_k}")
    parts: dict[str, dict[str, list[float]]] = {}
    for run, by_query in runs.items():
        for query, ranked in by_query.items():
            docs = parts.setdefault(query, {})
            seen: set[str] = set()
            for doc, value in _contributions(method, ranked, rrf_k):
                if doc in seen:
                    raise ValueError(f"run {run!r} ranks document {doc!r} twice for {query!r}")
                seen.add(doc)
                docs.setdefault(doc, []).append(value)
    fused: dict[str, list[tuple[str, float]]] = {}
    for query in sorted(parts):
        scored = [
            (doc, math.fsum(values) * (len(values) if method == "combmnz" else 1))
            for doc, values in parts[query].items()
        ]
        scored.sort(key=lambda pair: pair[0])
        scored.sort(key=lambda pair: pair[1], reverse=True)
        fused[query] = scored[:k]
    return fused
