"""Read-only queries for the pages of refined qrel sets and exports
(:mod:`assess.refined.views`) and for the refine form's pools and suggested name
(:mod:`assess.refined.forms`). Each returns model instances or plain values; none writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.db.models import Count, QuerySet

from corpora.models import Dataset, Pool, QrelSet

from ..models import ExportFile, Refinement
from .exports import export_key
from .refine import NAME_MAX, RefineError, refined_name_check


def qrel_set_find(*, dataset: Dataset, name: str) -> QrelSet | None:
    """The dataset's qrel set called ``name``, or None."""
    return QrelSet.objects.filter(dataset=dataset, name=name).first()


def refinements_of(*, dataset: Dataset) -> QuerySet[Refinement]:
    """The dataset's refinements, by refined set name, with their set, pool and original."""
    return (
        Refinement.objects.filter(qrel_set__dataset=dataset)
        .select_related("qrel_set", "pool", "original")
        .order_by("qrel_set__name")
    )


def dataset_has_pools(*, dataset: Dataset) -> bool:
    """Whether the dataset has a pool (a refined set can only be made from one)."""
    return dataset.pools.exists()


def exports_current(*, refinement: Refinement, kinds: Iterable[str]) -> dict[str, ExportFile]:
    """``{kind: ExportFile}``: the newest export of each of ``kinds`` that is still current
    for a refined set (its key matches: transcripts are of the refinement's pool and go out
    of date as its debates go on; the other kinds are of the refined set)."""
    found: dict[str, ExportFile] = {}
    for kind in kinds:
        source = (
            {"pool": refinement.pool}
            if kind == "transcripts"
            else {"qrel_set": refinement.qrel_set}
        )
        export = (
            ExportFile.objects.filter(key=export_key(kind=kind, **source))
            .order_by("-created")
            .first()
        )
        if export is not None:
            found[kind] = export
    return found


def export_refinement(*, export: ExportFile) -> Refinement | None:
    """The refinement an export belongs to: its refined set's, or for a pool's transcripts
    the pool's newest refinement; None when there is none."""
    if export.qrel_set_id:
        return Refinement.objects.filter(qrel_set_id=export.qrel_set_id).first()
    if export.pool_id:
        return Refinement.objects.filter(pool_id=export.pool_id).order_by("-created").first()
    return None


# Refined-list page: the refine form's pools and suggested name.

SUFFIX_RE = re.compile(r"^(.+)-(\d+)$")


def refine_pools(*, dataset: Dataset) -> QuerySet[Pool]:
    """The dataset's pools, newest first, each with ``pair_count``."""
    return (
        Pool.objects.filter(dataset=dataset)
        .select_related("qrel_set")
        .annotate(pair_count=Count("pairs"))
        .order_by("-created", "-pk")
    )


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a refined set's name (None if it can), for forms:
    :func:`assess.refined.refine.refined_name_check`."""
    try:
        refined_name_check(name=name)
    except RefineError as exc:
        return str(exc)
    return None


def refined_name_suggest(*, pool: Pool) -> str:
    """A free name for the next refined set of ``pool``: the name of its newest refinement
    (or ``<original qrels>-dream-<pool>``) if free, else with a ``-2``, ``-3``... suffix
    (a series ``x``, ``x-2``, ``x-3`` continues at ``x-4``)."""
    taken = set(QrelSet.objects.filter(dataset_id=pool.dataset_id).values_list("name", flat=True))
    newest = (
        Refinement.objects.filter(pool=pool)
        .order_by("-created", "-pk")
        .values_list("qrel_set__name", flat=True)
        .first()
    )
    base = newest or f"{pool.qrel_set.name}-dream-{pool.name}"
    series = SUFFIX_RE.match(base)
    if newest and series and series.group(1) in taken:
        base = series.group(1)
    base = re.sub(r"[^-a-zA-Z0-9_.]+", "-", base).strip("-") or "refined"
    number = 1
    while True:
        suffix = f"-{number}" if number > 1 else ""
        name = base[: NAME_MAX - len(suffix)] + suffix
        if name not in taken and name_problem(name) is None:
            return name
        number += 1
