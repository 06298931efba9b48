"""Fused runs: one run made of two or more finished runs of a dataset, by reciprocal rank
fusion, CombSUM or CombMNZ (the pure methods are :mod:`corpora.fusion`). A fused run is
written whole, done, in one transaction: built-in, with no retrieval to execute.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from django.db import transaction

from .. import fusion
from ..identical import skip_identical
from ..models import Dataset, Run, RunEntry
from .datasets import BATCH_SIZE, copy_rows
from .runs import RunError, run_existing_settle, run_name_check

#: How a fused run's ``system`` text names each method ({rrf_k}: RRF's constant).
METHOD_TITLES = {
    "rrf": "reciprocal rank fusion (k = {rrf_k}; Cormack et al., 2009)",
    "combsum": "CombSUM (min-max normalised scores; Fox & Shaw, 1994)",
    "combmnz": "CombMNZ (min-max normalised scores; Fox & Shaw, 1994)",
}

# One run's rows, read for fusion: its rankings by query id, and the primary keys of the
# query and document ids it names (to write the fused rows without another query).
_Rankings = tuple[dict[str, list[tuple[str, float]]], dict[str, int], dict[str, int]]


def run_fuse(
    *,
    dataset: Dataset,
    runs: Sequence[Run],
    method: str = "rrf",
    name: str | None = None,
    k: int = 100,
    rrf_k: int = fusion.RRF_K,
    replace: bool = False,
) -> Run:
    """Fuse ``runs`` (two or more finished runs of ``dataset``, built-in or imported) into a
    new done built-in Run named ``name`` (default ``<method>-<run>-<run>...``) and return it.

    ``method`` is "rrf" (reciprocal rank fusion, Cormack, Clarke & Büttcher, SIGIR 2009,
    constant ``rrf_k``), "combsum" or "combmnz" (Fox & Shaw, TREC-2 1994, over per-query
    min-max normalised scores): :func:`corpora.fusion.fuse`. Each query any run covers gets
    the top ``k`` fused documents, ranked by fused score (stored as the entries' scores) then
    doc id. When the dataset excludes identical ids, a query's own document is left out of
    the runs first, and the run records ``exclude_identical_ids``. ``parameters`` holds
    ``{"retriever": "fusion", "method", "runs": [names], "k"}`` and ``rrf_k`` for RRF.

    A run already named ``name`` is refused unless ``replace``, as for
    :func:`corpora.services.runs.run_create` (a pooled run is never replaced). Raises
    :class:`RunError` for an unknown method, fewer than two runs, a run named twice, a run of
    another dataset or not done, ``k < 1``, ``rrf_k < 0``, a name a run cannot have, or the
    name of one of the fused runs; nothing is written then.
    """
    names = _fuse_check(dataset=dataset, runs=runs, method=method)
    name = run_name_check(name or f"{method}-{'-'.join(names)}")
    if name in names:
        raise RunError(f"run {name!r} is one of the runs fused; give the fused run another name")
    parameters: dict = {"retriever": "fusion", "method": method, "runs": names, "k": k}
    if method == "rrf":
        parameters["rrf_k"] = rrf_k
    if dataset.exclude_identical_ids:
        parameters["exclude_identical_ids"] = True
    started = time.monotonic()
    rankings: dict[str, dict[str, list[tuple[str, float]]]] = {}
    query_pk: dict[str, int] = {}
    doc_pk: dict[str, int] = {}
    for run in runs:
        rankings[run.name], queries, documents = _run_rankings(
            run, exclude_identical=dataset.exclude_identical_ids
        )
        query_pk.update(queries)
        doc_pk.update(documents)
    try:
        fused = fusion.fuse(rankings, method=method, k=k, rrf_k=rrf_k)
    except ValueError as exc:
        raise RunError(str(exc)) from None
    rows = (
        (query_pk[query_id], doc_pk[doc_id], rank, score)
        for query_id, ranking in fused.items()
        for rank, (doc_id, score) in enumerate(ranking, start=1)
    )
    with transaction.atomic():
        run = _fused_run_create(
            dataset=dataset,
            name=name,
            system=_fused_system(method, names, rrf_k=rrf_k, k=k),
            parameters=parameters,
            replace=replace,
        )
        copy_rows(
            "corpora_runentry",
            ["run_id", "query_id", "document_id", "rank", "score"],
            ((run.pk, *row) for row in rows),
        )
        run.seconds = time.monotonic() - started
        run.save(update_fields=["seconds"])
    return run


def _fused_run_create(
    *, dataset: Dataset, name: str, system: str, parameters: dict, replace: bool
) -> Run:
    """The new fused Run (done, no entries yet), inside the caller's transaction, once the
    run of that name, if any, is settled as :func:`corpora.services.runs.run_create` does
    (refused unless ``replace``)."""
    existing = Run.objects.select_for_update().filter(dataset=dataset, name=name).first()
    if existing is not None:
        unfinished = run_existing_settle(
            existing=existing, name=name, dataset=dataset, parameters=parameters, replace=replace
        )
        if unfinished is not None:
            # A fused run is written whole in one transaction, so one that is not done and
            # has these settings cannot be left behind; should one be, it is rewritten.
            unfinished.delete()
    return Run.objects.create(
        dataset=dataset,
        name=name,
        system=system,
        parameters=parameters,
        source=Run.Source.BUILTIN,
        status=Run.Status.DONE,
    )


def _fuse_check(*, dataset: Dataset, runs: Sequence[Run], method: str) -> list[str]:
    """The names of ``runs`` if :func:`run_fuse` can fuse them with ``method``, else
    :class:`RunError` saying why."""
    if method not in fusion.METHODS:
        raise RunError(
            f"unknown fusion method {method!r} (expected one of {', '.join(fusion.METHODS)})"
        )
    names = [run.name for run in runs]
    if len(runs) < 2:
        raise RunError(f"fusion needs at least 2 runs, got {len(runs)}")
    if twice := sorted({n for n in names if names.count(n) > 1}):
        raise RunError(f"run {twice[0]!r} is named twice; fuse each run once")
    for run in runs:
        if run.dataset_id != dataset.pk:
            raise RunError(f"run {run.name!r} belongs to another dataset than {dataset.slug!r}")
        if run.status != Run.Status.DONE:
            raise RunError(
                f"run {run.name!r} is {run.status}, not done; finish it (retrieve it again) "
                "before fusing it"
            )
    return names


def _run_rankings(run: Run, *, exclude_identical: bool) -> _Rankings:
    """``run``'s rankings ``{query id: [(doc id, score), ...] in rank order}`` (a query's own
    document left out with ``exclude_identical``), and the primary keys of the query and
    document ids they name."""
    rows = (
        RunEntry.objects.filter(run=run)
        .order_by("query_id", "rank")
        .values_list("query__query_id", "document__doc_id", "query_id", "document_id", "score")
        .iterator(chunk_size=BATCH_SIZE)
    )
    kept, _ = skip_identical(rows, enabled=exclude_identical)
    rankings: dict[str, list[tuple[str, float]]] = {}
    query_pk: dict[str, int] = {}
    doc_pk: dict[str, int] = {}
    for query_id, doc_id, query, document, score in kept:
        rankings.setdefault(query_id, []).append((doc_id, score))
        query_pk[query_id] = query
        doc_pk[doc_id] = document
    return rankings, query_pk, doc_pk


def _fused_system(method: str, names: list[str], *, rrf_k: int, k: int) -> str:
    """The ``system`` text of a fused run: the method, its constant and the runs."""
    return f"{METHOD_TITLES[method].format(rrf_k=rrf_k)} of {', '.join(names)}; top {k}"
