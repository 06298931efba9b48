"""A standard set of varied systems on a dataset that has only built-in retrieval: BM25 under
several parameter settings, dense retrieval, and fusions of them, so that a study over
systems (a leaderboard, a pool of many runs) has ten or more of them, of different quality.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..models import Dataset, Run
from .fusion import run_fuse
from .runs import run_create, run_get, run_retrieve


@dataclass(frozen=True, slots=True)
class SystemSpec:
    """One system of the set: a built-in run (``retriever`` "bm25" with ``k1``/``b``, None
    for the defaults, or "dense") or a fusion (``retriever`` "fusion", ``method`` and the
    names of the ``runs`` fused, all earlier in the set)."""

    name: str
    retriever: str
    k1: float | None = None
    b: float | None = None
    method: str = ""
    runs: tuple[str, ...] = ()


_BM25 = (
    # BEIR's Elasticsearch settings (k1 0.9, b 0.4), under the retriever's own name.
    SystemSpec("bm25", "bm25"),
    # Robertson's textbook setting, also Lucene's default.
    SystemSpec("bm25-k1.2-b0.75", "bm25", k1=1.2, b=0.75),
    SystemSpec("bm25-k1.5-b1.0", "bm25", k1=1.5, b=1.0),
    SystemSpec("bm25-k0.5-b0.3", "bm25", k1=0.5, b=0.3),
    SystemSpec("bm25-k2.0-b0.5", "bm25", k1=2.0, b=0.5),
    # No length normalisation: long documents win.
    SystemSpec("bm25-b0", "bm25", b=0.0),
    # k1 = 0: a term counts once whatever its frequency (IDF alone), a weak baseline.
    SystemSpec("bm25-k0", "bm25", k1=0.0),
)
_BM25_NAMES = tuple(spec.name for spec in _BM25)

#: The set :func:`study_systems_build` builds, in order (a fusion after the runs it fuses).
STUDY_SYSTEMS: tuple[SystemSpec, ...] = (
    *_BM25,
    SystemSpec("dense", "dense"),
    SystemSpec("rrf-bm25-dense", "fusion", method="rrf", runs=("bm25", "dense")),
    SystemSpec("combsum-bm25-dense", "fusion", method="combsum", runs=("bm25", "dense")),
    SystemSpec("combmnz-bm25-dense", "fusion", method="combmnz", runs=("bm25", "dense")),
    SystemSpec("rrf-bm25-variants", "fusion", method="rrf", runs=_BM25_NAMES),
)


def study_systems_build(
    *,
    dataset: Dataset,
    queries: str = "test",
    k: int = 100,
    progress: bool = False,
    cache_dir: Path | None = None,
    on_system: Callable[[Run, bool], None] | None = None,
) -> list[Run]:
    """Build :data:`STUDY_SYSTEMS` on ``dataset`` for the queries of qrel set ``queries``
    (or "all"), the top ``k`` per query, and return their runs in that order.

    Idempotent: a run of a system's name that exists and is done is kept as it is (whatever
    its settings); one not done with the same settings is resumed (:func:`run_create`). After
    each system ``on_system(run, built)`` is called, ``built`` False for a run kept.
    Raises :class:`corpora.services.runs.RunError` (e.g. an unknown qrel set, or a name
    taken by an unfinished run of other settings); the systems built before stay.
    """
    out = []
    for spec in STUDY_SYSTEMS:
        existing = Run.objects.filter(dataset=dataset, name=spec.name).first()
        if existing is not None and existing.status == Run.Status.DONE:
            run, built = existing, False
        elif spec.retriever == "fusion":
            fused = [run_get(dataset=dataset, name=n) for n in spec.runs]
            run = run_fuse(dataset=dataset, runs=fused, method=spec.method, name=spec.name, k=k)
            built = True
        else:
            created = run_create(
                dataset=dataset,
                retriever=spec.retriever,
                k=k,
                queries=queries,
                name=spec.name,
                k1=spec.k1,
                b=spec.b,
            )
            run = run_retrieve(run=created, progress=progress, cache_dir=cache_dir)
            built = True
        if on_system is not None:
            on_system(run, built)
        out.append(run)
    return out
