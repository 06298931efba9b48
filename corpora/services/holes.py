"""A qrel set with part of its relevant rows hidden (:func:`qrel_set_hide`), the starting
qrels of a study whose simulated debaters answer from the whole set."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from core.names import name_problem
from corpora.holes import qrels_hide
from corpora.models import Qrel, QrelSet

from .datasets import copy_rows, qrel_set_grades_record


class HideError(ValueError):
    """Why a qrel set cannot be made (its name, the share): nothing was written."""


@dataclass(frozen=True)
class HiddenQrels:
    """The set made, the relevant rows hidden (``hidden`` of ``relevant``), the rows kept and
    the queries left with no row (a pool over the new set leaves them out)."""

    qrel_set: QrelSet
    relevant: int
    hidden: int
    rows: int
    queries_emptied: int


def qrel_set_hide(*, qrel_set: QrelSet, name: str, hide: float, seed: int) -> HiddenQrels:
    """Make qrel set ``name`` in ``qrel_set``'s dataset: its rows with each relevant one
    (grade > 0) left out with probability ``hide`` (:func:`corpora.holes.qrels_hide`, seeded
    by ``seed``, so the same call gives the same set). The left-out rows become holes: a pool
    built on the new set holds them when a run ranks them, and simulated debaters whose truth
    is the whole of ``qrel_set`` know them as relevant. The rows are real judgments, not
    simulated ones; the set's ``source`` says what it was made from. One transaction.
    Raises HideError for a taken or invalid name or a share outside [0, 1]."""
    problem = name_problem(name, field="qrel set name")
    if problem:
        raise HideError(problem)
    dataset = qrel_set.dataset
    if QrelSet.objects.filter(dataset=dataset, name=name).exists():
        raise HideError(f"qrel set {name!r} already exists in {dataset.slug!r}")
    rows = list(
        Qrel.objects.filter(qrel_set=qrel_set).values_list(
            "query__query_id", "document__doc_id", "query_id", "document_id", "relevance"
        )
    )
    # Drawn over the ids, not the database keys, so that the same qrels give the same set
    # in another database.
    by_query: dict[str, dict[str, int]] = {}
    keys: dict[tuple[str, str], tuple[int, int]] = {}
    for query_id, doc_id, query_pk, doc_pk, grade in rows:
        by_query.setdefault(query_id, {})[doc_id] = grade
        keys[(query_id, doc_id)] = (query_pk, doc_pk)
    try:
        kept, hidden = qrels_hide(by_query, hide=hide, seed=seed)
    except ValueError as exc:
        raise HideError(str(exc)) from None
    relevant = sum(1 for *_, grade in rows if grade > 0)
    with transaction.atomic():
        made = QrelSet.objects.create(
            dataset=dataset,
            name=name,
            source=(
                f"{qrel_set.name} with each relevant row hidden at probability {hide:g} "
                f"(seed {seed}): {hidden:,} of {relevant:,} hidden"
            ),
        )
        count = copy_rows(
            "corpora_qrel",
            ["qrel_set_id", "query_id", "document_id", "relevance"],
            (
                (made.pk, *keys[(q, d)], grade)
                for q, judged in kept.items()
                for d, grade in judged.items()
            ),
        )
        qrel_set_grades_record(qrel_set=made)
    return HiddenQrels(made, relevant, hidden, count, len(by_query) - len(kept))
