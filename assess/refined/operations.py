"""Refining a pool in the background, as imports run: a :class:`corpora.models.Operation` of
kind ``refine``, started by the refine form and ``POST /api/v1/datasets/<slug>/refined``.

:func:`refinement_start` gives the refusals that need no label resolved at once
(:func:`assess.refined.refine.refine_check`: a bad or taken name, a relevant grade above
the qrels' top grade, an empty pool), then creates the operation; the step runs after commit
on a Celery worker, or in a thread of this process without a broker
(:func:`corpora.services.operations.operation_create`). The step (:func:`refine_step`,
registered by ``assess.apps``) calls :func:`assess.refined.refine.qrels_refine`, the service
the ``refine`` command and the pipeline call, so the refined set is the same; a refusal
found while refining (too many unresolved pairs without ``allow_partial``) fails the
operation with the command's message, nothing written.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from django.db import connection, connections

from core.text import plural
from corpora.models import Dataset, Operation, Pool
from corpora.services.operations import operation_create, operation_step_register

from .labels import DEFAULT_MAX_UNRESOLVED_SHARE
from .refine import (
    RefineError,
    open_disagreements_count,
    open_disagreements_sentence,
    qrels_refine,
    refine_check,
)

#: What a failed refinement's message starts with (the ``refine`` command's words).
FAILED_PREFIX = "refine refused, nothing written: "


def refinement_start(
    *,
    pool: Pool,
    name: str,
    allow_partial: bool = False,
    max_unresolved_share: float = DEFAULT_MAX_UNRESOLVED_SHARE,
    relevant_grade: int = 1,
    exclude_flagged: bool = False,
    created_by: Any = None,
) -> Operation:
    """Start refining ``pool`` into refined set ``name`` in the background (the options of
    :func:`assess.refined.refine.qrels_refine`); return the operation (status "queued"),
    whose ``result`` once done is ``{"qrel_set": id, "name", "refinement": id, "pairs",
    "unresolved", "original_rows", "new_labels", "open_disagreements", "message"}``.

    Raises :class:`RefineError` (nothing created) for what is known without resolving a
    label: see :func:`assess.refined.refine.refine_check`."""
    refine_check(
        pool=pool,
        name=name,
        relevant_grade=relevant_grade,
        max_unresolved_share=max_unresolved_share,
    )
    return operation_create(
        kind=Operation.Kind.REFINE,
        params={
            "pool": pool.pk,
            "name": name,
            "allow_partial": allow_partial,
            "max_unresolved_share": max_unresolved_share,
            "relevant_grade": relevant_grade,
            "exclude_flagged": exclude_flagged,
        },
        dataset=pool.dataset,
        created_by=created_by,
    )


def refine_step(operation: Operation, root: Path | None) -> dict[str, Any]:
    """The ``refine`` operation's step (run by :func:`corpora.services.operations.operation_run`):
    refine with the operation's ``params``, recording each stage on the row as it starts.
    Raises :class:`RefineError` for a refusal (the operation fails with it, nothing
    written)."""
    params = operation.params
    pool = Pool.objects.filter(pk=params["pool"]).first()
    if pool is None:
        raise RefineError(f"pool: pool {params['pool']} no longer exists")
    report = qrels_refine(
        pool=pool,
        name=params["name"],
        allow_partial=bool(params.get("allow_partial")),
        max_unresolved_share=float(
            params.get("max_unresolved_share", DEFAULT_MAX_UNRESOLVED_SHARE)
        ),
        created_by=operation.created_by,
        relevant_grade=int(params.get("relevant_grade", 1)),
        exclude_flagged=bool(params.get("exclude_flagged")),
        progress=lambda stage: operation_stage_record(operation_id=operation.pk, stage=stage),
    )
    refinement = report.refinement
    new_labels = refinement.new_relevant + refinement.new_nonrelevant
    open_count = open_disagreements_count(report.summary.by_reason)
    return {
        "qrel_set": report.qrel_set.pk,
        "name": report.qrel_set.name,
        "refinement": refinement.pk,
        "pairs": refinement.pairs,
        "unresolved": refinement.unresolved,
        "beyond_budget": report.beyond_budget,
        "original_rows": refinement.original_rows,
        "new_labels": new_labels,
        "open_disagreements": open_count,
        # What the page said after refining when it refined inside the request.
        "message": f"Refined qrel set {report.qrel_set.name} created: "
        f"{refinement.original_rows:,} original rows + {new_labels:,} new labels, "
        f"{plural(refinement.unresolved, 'pair')} pending"
        + (
            f", {plural(report.beyond_budget, 'pair')} beyond the pool's budget (left "
            "unjudged by design)"
            if report.beyond_budget
            else ""
        )
        + ". "
        + open_disagreements_sentence(open_count),
    }


def stage_on_own_connection(*, vendor: str, in_transaction: bool) -> bool:
    """Whether a stage is written on a database connection of its own (True) or on the
    caller's (False), for a connection of ``vendor`` (Django's ``connection.vendor``:
    "postgresql", "sqlite", ...) that is ``in_transaction`` or not.

    Inside a transaction on PostgreSQL, a second connection commits the stage at once, so
    the polling page sees it while the refinement runs (row locks: the refinement never
    writes the operation row). SQLite locks the whole file for one writer, so a second
    connection would wait on the refinement's own write lock until its ``timeout`` (30 s
    in ``config.settings``) and then fail: there the stage goes on the caller's connection,
    seen once the transaction commits. Outside a transaction the caller's connection
    commits at once anyway."""
    return in_transaction and vendor != "sqlite"


def operation_stage_record(*, operation_id: int, stage: str) -> None:
    """Store ``stage`` (at most 200 characters) on operation ``operation_id``: committed at
    once on a connection of its own when the caller is inside a transaction (the
    refinement runs in one, whose own writes nobody else sees before it commits), except on
    SQLite, where it is written on the caller's connection (:func:`stage_on_own_connection`
    says why)."""

    def write() -> None:
        Operation.objects.filter(pk=operation_id).update(stage=stage[:200])

    if not stage_on_own_connection(
        vendor=connection.vendor, in_transaction=connection.in_atomic_block
    ):
        write()
        return

    def write_and_close() -> None:
        try:
            write()
        finally:
            connections.close_all()  # this thread's connections only

    thread = threading.Thread(target=write_and_close, name=f"operation-{operation_id}-stage")
    thread.start()
    thread.join()


def refinement_operation_get(*, dataset: Dataset, pk: int) -> Operation:
    """The refine operation ``pk`` of ``dataset``, with its user. Raises
    ``Operation.DoesNotExist``."""
    return Operation.objects.select_related("dataset", "created_by").get(
        pk=pk, dataset=dataset, kind=Operation.Kind.REFINE
    )


def refine_step_register() -> None:
    """Make the operations of kind ``refine`` run :func:`refine_step` (called by
    ``assess.apps.AssessConfig.ready``)."""
    operation_step_register(
        kind=Operation.Kind.REFINE, step=refine_step, failed_prefix=FAILED_PREFIX
    )
