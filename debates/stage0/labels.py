"""The labelled pairs a stage-0 judge learns from and is measured on, read from the database.

Sources, binary labels (a grade counts as relevant when it is >= ``relevance_level``, 1 by
default, as :func:`debates.assessment.gold_label` reads qrels):

- ``qrels``: every row of the dataset's imported qrel sets (a pair in several sets keeps its
  highest grade); judged non-relevant rows are negatives.
- ``human``: the human labels of the dataset's pairs, given by the app that owns them
  (``assess`` registers :func:`stage0_human_labels_register` in its ``AppConfig.ready``;
  debates may not import it).
- ``consensus``: the settled labels (status agreed) of debates on the dataset's pairs.
- ``unjudged``: for a *densely judged* query (of a dataset known for dense judgments,
  :func:`debates.assessment.dense_judgments`, as ``evaluate_assessor`` takes its
  unjudged negatives, and with at least :data:`DENSE_QUERY_JUDGED` qrels rows: NFCorpus
  judges about 38 documents a query, SciFact about one; a depth-pooled TREC collection has
  many rows a query but unjudged documents just below its pools that are far less often
  non-relevant, so the row count alone does not make a query dense), the unjudged pairs
  any finished run of the dataset ranks within :data:`NEAR_RANKS`, never a pair of one of
  the dataset's pools: negatives. Such a query's judges saw most of what a retriever finds
  for it, so an unjudged document ranked just below a pool's depth is most likely
  non-relevant (the study's hidden holes there: 8% relevant on NFCorpus); a pooled pair
  is left out because it is what stage 0 will be asked to judge, and a relevant hole
  labelled 0 would teach it the wrong answer.
- ``cross``: cross-query negatives: per query with a relevant pair,
  :data:`CROSS_NEGATIVES` documents relevant to OTHER queries, drawn with
  ``random.Random("<seed>:<query id>")`` from the canonical (code-point) order.

The human labels of pooled pairs also come with the probability their pair went to people
(:func:`band_labels_collect`, through a second hook ``assess`` registers,
:func:`stage0_band_labels_register`): those calibrate the routing band
(:mod:`debates.stage0_band`) and are never fitted on.

Simulated labels (a consensus of simulated debaters, :func:`debates.llm.config.
agents_simulated`; a human label the simulated annotator gave, through a third hook
``assess`` registers, :func:`stage0_simulated_human_register`) are learnt from like any
other: the cascade study (``bench/stage0_cascade_study.py``) trains stage 0 on nothing else.
Each :class:`Example` says whether its label is simulated, so that the judge counts them and
its stage-0 labels are marked simulated (``Stage0Judge.simulated_labels``).

A pair labelled by several sources keeps the first of :data:`SOURCE_ORDER` (a person over
the qrels over the LLMs over assumed negatives). A dataset that excludes identical ids never
gives a pair of a query with its own document.

Pool-like pairs (:attr:`Example.near`): the pairs of densely judged queries ranked within
:data:`NEAR_RANKS` by a run (judged or not, never pooled). Both classes there were found
by the same retrievers, as a pool's pairs are; the qrels at large were not (measured on
NFCorpus: its relevant qrels rows lie farther from their queries than the pooled
non-relevant pairs, so a judge fitted on them ranks pooled pairs worse than the bare cosine;
docs/measured.md, "Stage 0"). :mod:`debates.stage0.services` fits on them alone when they
suffice. Consensus labels of pooled pairs are pool-like too but not counted: where a pool is
mostly non-relevant, the LLMs' false positives outnumber its relevant pairs (measured on
SciFact: a judge fitted on consensus labels alone ranked pooled pairs at chance).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from corpora.models import Dataset, Pair, QrelSet, Run, RunEntry
from corpora.selectors import excluded_pk_pairs
from debates.assessment import dense_judgments
from debates.llm.config import agents_simulated
from debates.models import Debate, DebateJob

CROSS_NEGATIVES = 8
#: The qrels rows from which a query counts as densely judged.
DENSE_QUERY_JUDGED = 10
#: The run ranks (first, last) whose pairs are pool-like: just below a depth-10 pool, the
#: depth the studies pool at. A rank only chooses training pairs; it is never a feature, so
#: scoring a pair does not depend on which runs built its pool.
NEAR_RANKS = (11, 30)
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


#: ``f(dataset=...) -> {(query pk, document pk)}``: the pairs whose human label the simulated
#: annotator gave (among its live judgments).
SimulatedHumanPairs = Callable[..., set[tuple[int, int]]]
_SIMULATED_HUMAN: list[SimulatedHumanPairs] = []


def stage0_simulated_human_register(source: SimulatedHumanPairs) -> None:
    """Add ``source`` of the pairs whose human label is simulated (``assess`` registers its
    review's). Registering the same function again does nothing."""
    if source not in _SIMULATED_HUMAN:
        _SIMULATED_HUMAN.append(source)


def simulated_human_pairs(*, dataset: Dataset) -> set[tuple[int, int]]:
    """``{(query pk, document pk)}`` of ``dataset``'s pairs whose human label the simulated
    annotator gave, as every registered source says (empty when none is registered)."""
    out: set[tuple[int, int]] = set()
    for source in _SIMULATED_HUMAN:
        out |= source(dataset=dataset)
    return out


@dataclass(frozen=True, order=True)
class Example:
    """One labelled pair: natural ids first (so a sort is the canonical order);
    ``simulated`` when its label is a simulated one (module docstring)."""

    query_id: str
    doc_id: str
    label: int
    source: str
    query_pk: int
    doc_pk: int
    near: bool = False
    simulated: bool = False


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
    return {key: label for key, (label, _) in _consensus_labels(dataset, level, stage0).items()}


def _consensus_labels(
    dataset: Dataset, level: int, stage0: bool
) -> dict[tuple[int, int], tuple[int, bool]]:
    """``{(query pk, document pk): (label 1/0, simulated)}``: each pair's newest agreed
    label, and whether its job's debaters are simulated."""
    # Stage 0's own labels are left out of its training: a judge learning from its
    # predecessor's most confident guesses would grow more confident, not more right.
    rows = Debate.objects.filter(
        job__pool__dataset=dataset, status=Debate.Status.AGREED, final_label__isnull=False
    )
    if not stage0:
        rows = rows.exclude(settled_by="stage0")
    jobs = DebateJob.objects.filter(pool__dataset=dataset).values_list("pk", "agent_a", "agent_b")
    simulated = {pk for pk, a, b in jobs if agents_simulated(a, b)}
    found = rows.values_list(
        "pair__query_id", "pair__document_id", "final_label", "job__scale", "job_id"
    )
    out: dict[tuple[int, int], tuple[int, bool]] = {}
    for q, d, label, scale, job in found.order_by("pk"):
        assert label is not None  # filtered above
        # A binary job's label is 1/0; a graded job's is a grade, read at the level.
        binary = _binary(label, level if scale == DebateJob.Scale.GRADED else 1)
        out[(q, d)] = (binary, job in simulated)
    return out


def near_pairs(*, dataset: Dataset, qrels: dict[tuple[int, int], int]) -> set[tuple[int, int]]:
    """The pool-like pairs of densely judged queries (module docstring): ``(query pk,
    document pk)`` ranked within :data:`NEAR_RANKS` by any finished run of ``dataset``, for
    a query with at least :data:`DENSE_QUERY_JUDGED` rows in ``qrels`` of a dataset known
    for dense judgments, but no pooled pair; none on any other dataset."""
    if not dense_judgments(dataset.slug):
        return set()
    per_query: dict[int, int] = {}
    for q, _ in qrels:
        per_query[q] = per_query.get(q, 0) + 1
    dense = {q for q, n in per_query.items() if n >= DENSE_QUERY_JUDGED}
    if not dense:
        return set()
    first, last = NEAR_RANKS
    rows = RunEntry.objects.filter(
        run__dataset=dataset,
        run__status=Run.Status.DONE,
        rank__gte=first,
        rank__lte=last,
        query_id__in=dense,
    ).values_list("query_id", "document_id")
    pooled = set(
        Pair.objects.filter(pool__dataset=dataset, query_id__in=dense).values_list(
            "query_id", "document_id"
        )
    )
    return {key for key in rows if key not in pooled}


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
    order (query id, doc id by code point), each marked ``near`` when it is pool-like and
    ``simulated`` when its label is."""
    from corpora.models import Document, Query

    consensus = _consensus_labels(dataset, relevance_level, False)
    by_source: dict[str, dict[tuple[int, int], int]] = {
        "qrels": _qrels(dataset, relevance_level),
        "consensus": {key: label for key, (label, _) in consensus.items()},
        "human": {},
    }
    for source in _HUMAN_LABELS:
        by_source["human"].update(source(dataset=dataset, relevance_level=relevance_level))
    simulated = {
        "consensus": {key for key, (_, fake) in consensus.items() if fake},
        "human": simulated_human_pairs(dataset=dataset) if by_source["human"] else set(),
    }
    excluded = excluded_pk_pairs(dataset=dataset)
    labels: dict[tuple[int, int], tuple[int, str]] = {}
    for name in ("human", "qrels", "consensus"):
        for key, y in by_source[name].items():
            if key not in labels and key not in excluded:
                labels[key] = (y, name)
    near = near_pairs(dataset=dataset, qrels=by_source["qrels"])
    for key in near:
        if key not in labels and key not in excluded:
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
        Example(
            query_ids[q],
            doc_ids[d],
            y,
            source,
            q,
            d,
            (q, d) in near,
            (q, d) in simulated.get(source, ()),
        )
        for (q, d), (y, source) in labels.items()
    )
