"""The labelled pairs a stage-0 judge learns from and is measured on, read from the database.

Sources, binary labels (a grade counts as relevant when it is >= ``relevance_level``, 1 by
default, as :func:`debates.assessment.gold_label` reads qrels):

- ``qrels``: every row of the dataset's imported qrel sets (a pair in several sets keeps its
  highest grade); judged non-relevant rows are negatives.
- ``human``: the human labels of the dataset's pairs, given by the app that owns them
  (``assess`` registers :func:`stage0_human_labels_register` in its ``AppConfig.ready``;
  debates may not import it).
- ``consensus``: the settled labels (status agreed) of debates on the dataset's pairs.
- ``unjudged``: on a dataset whose judgments are dense
  (:data:`debates.assessment.DENSE_JUDGMENT_DATASETS`), the unjudged pairs in the top
  :data:`UNJUDGED_DEPTH` of its newest finished run, for a query with a judgment, as
  ``evaluate_assessor`` takes them: negatives.
- ``cross``: cross-query negatives: per query with a relevant pair,
  :data:`CROSS_NEGATIVES` documents relevant to OTHER queries, drawn with
  ``random.Random("<seed>:<query id>")`` from the canonical (code-point) order.

The human labels of pooled pairs also come with the probability their pair went to people
(:func:`band_labels_collect`, through a second hook ``assess`` registers,
:func:`stage0_band_labels_register`): those calibrate the routing band
(:mod:`debates.stage0_band`) and are never fitted on.

A pair labelled by several sources keeps the first of :data:`SOURCE_ORDER` (a person over
the qrels over the LLMs over assumed negatives). A dataset that excludes identical ids never
gives a pair of a query with its own document.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from corpora.models import Dataset, QrelSet, Run, RunEntry
from corpora.selectors import excluded_pk_pairs
from debates.assessment import DENSE_JUDGMENT_DATASETS
from debates.models import Debate, DebateJob

CROSS_NEGATIVES = 8
UNJUDGED_DEPTH = 10
SOURCE_ORDER = ("human", "qrels", "consensus", "unjudged", "cross")
#: Sources of labels a person gave (or that stand for one): the held-out set's gold.
JUDGED_SOURCES = ("human", "qrels", "consensus")

#: ``f(dataset=..., relevance_level=...) -> {(query pk, document pk): 1 or 0}``.
HumanLabels = Callable[..., dict[tuple[int, int], int]]
_HUMAN_LABELS: list[HumanLabels] = []


def stage0_human_labels_register(source: HumanLabels) -> None:
    """Add ``source`` of human labels (an app debates may not import: ``assess`` registers
    its final review labels). Registering the same function again does nothing."""
    if source not in _HUMAN_LABELS:
        _HUMAN_LABELS.append(source)


#: ``f(dataset=..., relevance_level=...) -> {(query pk, document pk): (label 1/0, inclusion,
#: floor)}``: a human label of a pooled pair, the probability its pair went to people and the
#: smallest such probability in its job (:class:`debates.stage0_band.BandLabel`).
BandLabels = Callable[..., dict[tuple[int, int], tuple[int, float, float]]]
_BAND_LABELS: list[BandLabels] = []


def stage0_band_labels_register(source: BandLabels) -> None:
    """Add ``source`` of human labels of pooled pairs with their sampling probabilities
    (``assess`` registers its review's). Registering the same function again does nothing."""
    if source not in _BAND_LABELS:
        _BAND_LABELS.append(source)


def band_labels_collect(
    *, dataset: Dataset, relevance_level: int = 1
) -> dict[tuple[int, int], tuple[int, float, float]]:
    """Every registered source's human labels of ``dataset``'s pooled pairs with their
    inclusion and floor (:data:`BandLabels`), but pairs the dataset excludes (identical ids);
    a later source wins for a pair both give."""
    out: dict[tuple[int, int], tuple[int, float, float]] = {}
    for source in _BAND_LABELS:
        out.update(source(dataset=dataset, relevance_level=relevance_level))
    excluded = excluded_pk_pairs(dataset=dataset)
    return {key: row for key, row in out.items() if key not in excluded}


@dataclass(frozen=True, order=True)
class Example:
    """One labelled pair: natural ids first (so a sort is the canonical order)."""

    query_id: str
    doc_id: str
    label: int
    source: str
    query_pk: int
    doc_pk: int


def _binary(grade: int, level: int) -> int:
    return 1 if grade >= level else 0


def _qrels(dataset: Dataset, level: int) -> dict[tuple[int, int], int]:
    grades: dict[tuple[int, int], int] = {}
    rows = QrelSet.objects.filter(dataset=dataset, origin=QrelSet.Origin.IMPORTED).values_list(
        "qrels__query_id", "qrels__document_id", "qrels__relevance"
    )
    for q, d, grade in rows:
        if q is not None:
            grades[(q, d)] = max(grade, grades.get((q, d), grade))
    return {key: _binary(grade, level) for key, grade in grades.items()}


def _consensus(dataset: Dataset, level: int, *, stage0: bool = False) -> dict[tuple[int, int], int]:
    # Stage 0's own labels are left out of its training: a judge learning from its
    # predecessor's most confident guesses would grow more confident, not more right.
    rows = Debate.objects.filter(
        job__pool__dataset=dataset, status=Debate.Status.AGREED, final_label__isnull=False
    )
    if not stage0:
        rows = rows.exclude(settled_by="stage0")
    found = rows.values_list("pair__query_id", "pair__document_id", "final_label", "job__scale")
    out: dict[tuple[int, int], int] = {}
    for q, d, label, scale in found.order_by("pk"):
        assert label is not None  # filtered above
        # A binary job's label is 1/0; a graded job's is a grade, read at the level.
        out[(q, d)] = _binary(label, level if scale == DebateJob.Scale.GRADED else 1)
    return out


def _unjudged(dataset: Dataset, judged: set[tuple[int, int]]) -> dict[tuple[int, int], int]:
    if dataset.slug not in DENSE_JUDGMENT_DATASETS:
        return {}
    run = Run.objects.filter(dataset=dataset, status=Run.Status.DONE).order_by("-pk").first()
    if run is None:
        return {}
    queries = {q for q, _ in judged}
    rows = RunEntry.objects.filter(run=run, rank__lte=UNJUDGED_DEPTH).values_list(
        "query_id", "document_id"
    )
    return {(q, d): 0 for q, d in rows if q in queries and (q, d) not in judged}


def _cross(
    labels: dict[tuple[int, int], int],
    query_ids: dict[int, str],
    doc_ids: dict[int, str],
    seed: int,
) -> dict[tuple[int, int], int]:
    relevant_docs = sorted({d for (_, d), y in labels.items() if y == 1}, key=doc_ids.__getitem__)
    by_query: dict[int, set[int]] = {}
    for q, d in labels:
        by_query.setdefault(q, set()).add(d)
    out: dict[tuple[int, int], int] = {}
    for q in sorted(by_query, key=query_ids.__getitem__):
        if not any(labels[(q, d)] for d in by_query[q]):
            continue
        others = [d for d in relevant_docs if d not in by_query[q]]
        rng = random.Random(f"{seed}:{query_ids[q]}")
        for d in rng.sample(others, min(CROSS_NEGATIVES, len(others))):
            out[(q, d)] = 0
    return out


def labels_known(
    *, dataset: Dataset, qrel_set: QrelSet | None, relevance_level: int = 1
) -> dict[tuple[int, int], int]:
    """Every label ``dataset``'s pairs have now, 1 (relevant at ``relevance_level``) or 0, by
    ``(query pk, document pk)``: a person's (the registered human sources) over the grades of
    ``qrel_set`` (None: no qrels) over a settled label (debate consensus or stage 0). What an
    adaptive pool strategy learns from as labels arrive."""
    labels = _consensus(dataset, relevance_level, stage0=True)
    if qrel_set is not None:
        for q, d, grade in qrel_set.qrels.values_list("query_id", "document_id", "relevance"):
            labels[(q, d)] = _binary(grade, relevance_level)
    for source in _HUMAN_LABELS:
        labels.update(source(dataset=dataset, relevance_level=relevance_level))
    return labels


def examples_collect(*, dataset: Dataset, relevance_level: int = 1, seed: int = 0) -> list[Example]:
    """Every labelled pair of ``dataset`` (module docstring), one per pair, in canonical
    order (query id, doc id by code point)."""
    from corpora.models import Document, Query

    by_source: dict[str, dict[tuple[int, int], int]] = {
        "qrels": _qrels(dataset, relevance_level),
        "consensus": _consensus(dataset, relevance_level),
        "human": {},
    }
    for source in _HUMAN_LABELS:
        by_source["human"].update(source(dataset=dataset, relevance_level=relevance_level))
    excluded = excluded_pk_pairs(dataset=dataset)
    labels: dict[tuple[int, int], tuple[int, str]] = {}
    for name in ("human", "qrels", "consensus"):
        for key, y in by_source[name].items():
            if key not in labels and key not in excluded:
                labels[key] = (y, name)
    judged = set(labels)
    for key in _unjudged(dataset, judged):
        if key not in excluded:
            labels[key] = (0, "unjudged")
    query_pks = {q for q, _ in labels}
    query_ids = dict(Query.objects.filter(pk__in=query_pks).values_list("pk", "query_id"))
    doc_ids = dict(
        Document.objects.filter(pk__in={d for _, d in labels}).values_list("pk", "doc_id")
    )
    plain = {key: y for key, (y, _) in labels.items()}
    for key in _cross(plain, query_ids, doc_ids, seed):
        if key not in excluded:
            labels[key] = (0, "cross")
    return sorted(
        Example(query_ids[q], doc_ids[d], y, source, q, d) for (q, d), (y, source) in labels.items()
    )
