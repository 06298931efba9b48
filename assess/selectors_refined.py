"""Read-only queries for the pages of refined qrel sets, exports, re-benchmarking and RAG
(:mod:`assess.views_refined`). Each returns model instances or plain values; none writes.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from corpora.models import Dataset, QrelSet, Run

from .exports import export_key
from .models import ExportFile, Refinement


def qrel_set_find(*, dataset: Dataset, name: str) -> QrelSet | None:
    """The dataset's qrel set called ``name``, or None."""
    return QrelSet.objects.filter(dataset=dataset, name=name).first()


def qrel_sets_by_name(*, dataset: Dataset) -> list[QrelSet]:
    """Every qrel set of the dataset (imported and refined), by name."""
    return list(QrelSet.objects.filter(dataset=dataset).order_by("name"))


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


def runs_finished(*, dataset: Dataset) -> list[Run]:
    """The dataset's finished runs (built-in and imported), by name."""
    return list(Run.objects.filter(dataset=dataset, status=Run.Status.DONE).order_by("name"))


def queries_with_answers_count(*, dataset: Dataset) -> int:
    """How many of the dataset's queries have reference answers."""
    return dataset.queries.exclude(answers=[]).count()
