"""Corrections of the original qrels: judged pairs whose grade a human verdict replaces in a
refined set (database side of :attr:`assess.refined.labels.FinalLabel.corrects_original`).

A refinement copies the original qrels unchanged (:func:`assess.refined.refine.qrels_refine`),
then :func:`corrections_write` sets the grade of each corrected pair's copied row, inside
the same transaction, before the set is ever read: refined sets stay written once. The
pair's provenance row is marked ``applied`` with its ``original_relevance``, so a correction
is told apart by :func:`correction_of` (and the labels export's ``correction`` field): its
original grade, its corrected grade, who decided (annotators or adjudicator) and from which
debate and job.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from corpora.models import Qrel, QrelSet

from . import labels as final


class CorrectedPair(Protocol):
    """What :func:`corrections_write` reads of a pool label
    (:class:`assess.refined.pool_labels.PoolLabel`)."""

    @property
    def query_pk(self) -> int: ...

    @property
    def document_pk(self) -> int: ...

    @property
    def final(self) -> final.FinalLabel: ...


def corrections_write(
    *, refined: QrelSet, labels: Iterable[CorrectedPair], relevant_grade: int = 1
) -> int:
    """Give each label of ``labels`` that corrects its pair's original grade that label's
    grade (:func:`assess.refined.labels.final_grade` with ``relevant_grade``) in
    ``refined``'s copied row; return how many rows changed. Called only while the refined
    set is being written."""
    grades = {
        (p.query_pk, p.document_pk): grade
        for p in labels
        if p.final.corrects_original
        and (grade := final.final_grade(p.final, relevant_grade)) is not None
    }
    if not grades:
        return 0
    rows = list(
        Qrel.objects.filter(qrel_set=refined, query_id__in={q for q, _ in grades}).only(
            "pk", "query_id", "document_id", "relevance"
        )
    )
    changed = [row for row in rows if (row.query_id, row.document_id) in grades]
    for row in changed:
        row.relevance = grades[(row.query_id, row.document_id)]
    Qrel.objects.bulk_update(changed, ["relevance"], batch_size=1000)
    return len(changed)


def correction_of(*, applied: bool, original: int | None) -> bool:
    """Whether a provenance row (its ``applied`` and ``original_relevance``) is a
    correction: a label written over a grade the original qrels held."""
    return bool(applied) and original is not None
