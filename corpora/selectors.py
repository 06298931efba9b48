"""Read-only queries behind the dataset pages (counts, history, documents, judgments).

Counts are computed with one grouped query per table, never one query per dataset or a
join of several big tables (which would multiply rows before counting).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, F, Max, Min, OuterRef, Prefetch, Q, Subquery

from .models import (
    Dataset,
    Document,
    ImportRecord,
    Pair,
    PairSource,
    Pool,
    Qrel,
    QrelSet,
    Query,
    Run,
)
from .ordering import code_point

DOCUMENTS_PER_PAGE = 50
JUDGMENTS_SHOWN = 200


@dataclass
class QrelSetStats:
    """A qrel set with its row count, judged queries, relevant rows (grade > 0) and relevant
    rows per judged query (rounded to 2 places, as in ``dataset_summary``)."""

    qrel_set: QrelSet
    rows: int = 0
    queries: int = 0
    relevant: int = 0

    @property
    def relevant_per_query(self) -> float:
        return round(self.relevant / self.queries, 2) if self.queries else 0.0


@dataclass
class DatasetCounts:
    """One row of the dataset list."""

    dataset: Dataset
    documents: int = 0
    queries: int = 0
    qrel_sets: list[QrelSetStats] = field(default_factory=list)
    runs: int = 0
    pools: int = 0
    pairs: int = 0
    imports: int = 0


@dataclass
class DatasetOverview:
    """Everything the dataset page shows."""

    counts: DatasetCounts
    queries_with_answers: int
    runs: list[Run]
    pools: list[Pool]
    imports: list[ImportRecord]


def _grouped(queryset, key: str) -> dict[int, int]:
    rows = queryset.order_by().values(key).annotate(n=Count("pk")).values_list(key, "n")
    return dict(rows)


def _qrel_set_stats(qrel_sets: list[QrelSet]) -> list[QrelSetStats]:
    stats = {
        row["qrel_set"]: row
        for row in Qrel.objects.filter(qrel_set__in=qrel_sets)
        .order_by()
        .values("qrel_set")
        .annotate(
            rows=Count("pk"),
            queries=Count("query", distinct=True),
            relevant=Count("pk", filter=Q(relevance__gt=0)),
        )
    }
    result = []
    for qrel_set in qrel_sets:
        row = stats.get(qrel_set.pk, {})
        result.append(
            QrelSetStats(
                qrel_set=qrel_set,
                rows=row.get("rows", 0),
                queries=row.get("queries", 0),
                relevant=row.get("relevant", 0),
            )
        )
    return result


def dataset_counts_list(*, datasets: list[Dataset] | None = None) -> list[DatasetCounts]:
    """Counts per dataset (all datasets by slug unless given): documents, queries, each qrel
    set's rows, runs, pools, pool pairs and imports. Nine queries whatever the number of
    datasets (eight when ``datasets`` is given)."""
    if datasets is None:
        datasets = list(Dataset.objects.order_by("slug"))
    ids = [d.pk for d in datasets]
    documents = _grouped(Document.objects.filter(dataset__in=ids), "dataset")
    queries = _grouped(Query.objects.filter(dataset__in=ids), "dataset")
    runs = _grouped(Run.objects.filter(dataset__in=ids), "dataset")
    pools = _grouped(Pool.objects.filter(dataset__in=ids), "dataset")
    pairs = _grouped(Pair.objects.filter(pool__dataset__in=ids), "pool__dataset")
    imports = _grouped(ImportRecord.objects.filter(dataset__in=ids), "dataset")
    qrel_sets = list(QrelSet.objects.filter(dataset__in=ids).order_by("dataset", "name"))
    by_dataset: dict[int, list[QrelSetStats]] = {}
    for stats in _qrel_set_stats(qrel_sets):
        by_dataset.setdefault(stats.qrel_set.dataset_id, []).append(stats)
    return [
        DatasetCounts(
            dataset=d,
            documents=documents.get(d.pk, 0),
            queries=queries.get(d.pk, 0),
            qrel_sets=by_dataset.get(d.pk, []),
            runs=runs.get(d.pk, 0),
            pools=pools.get(d.pk, 0),
            pairs=pairs.get(d.pk, 0),
            imports=imports.get(d.pk, 0),
        )
        for d in datasets
    ]


def dataset_overview(*, dataset: Dataset) -> DatasetOverview:
    """Counts, qrel sets, runs (with ``entries``), pools (with ``pair_count`` and their runs)
    and the import history (newest first) of one dataset."""
    (counts,) = dataset_counts_list(datasets=[dataset])
    return DatasetOverview(
        counts=counts,
        queries_with_answers=dataset.queries.exclude(answers=[]).count(),
        runs=list(dataset.runs.annotate(entry_count=Count("entries")).order_by("name")),
        pools=list(
            dataset.pools.select_related("qrel_set")
            .prefetch_related("runs")
            .annotate(pair_count=Count("pairs"))
            .order_by("name")
        ),
        imports=list(dataset.imports.order_by("-created", "-pk")),
    )


def documents_page(*, dataset: Dataset, prefix: str = "", page: int | str = 1) -> Page:
    """One page (``DOCUMENTS_PER_PAGE``) of the dataset's documents ordered by doc_id,
    optionally only ids starting with ``prefix``. Out-of-range pages give the last page."""
    documents = dataset.documents.order_by("doc_id").only("doc_id", "title")
    if prefix:
        documents = documents.filter(doc_id__startswith=prefix)
    return Paginator(documents, DOCUMENTS_PER_PAGE).get_page(page)


def document_get(*, dataset: Dataset, doc_id: str) -> Document:
    """The dataset's document with this id. Raises ``Document.DoesNotExist``."""
    return Document.objects.get(dataset=dataset, doc_id=doc_id)


def document_judgments(*, document: Document, limit: int = JUDGMENTS_SHOWN) -> list[Qrel]:
    """Up to ``limit`` qrels rows judging this document, with their qrel set and query loaded,
    ordered by qrel set name then query id."""
    return list(
        document.qrels.select_related("qrel_set", "query").order_by(
            "qrel_set__name", "query__query_id"
        )[:limit]
    )


def qrels_top_grade(*, qrel_set: QrelSet) -> int:
    """G, the top relevance grade of ``qrel_set``: the highest grade in its rows, at least 1
    (an empty set, or one with no relevant row, is read as binary). E.g. NFCorpus 2,
    TREC DL 3, Cranfield 4, SciFact 1.

    The one place graded debates learn a benchmark's scale: the top grade recorded on the
    qrel set when its rows were written (``grade_max``), else read from the rows (a set
    written before the scale was recorded).
    """
    if qrel_set.grade_max is not None:
        return max(int(qrel_set.grade_max), 1)
    top = qrel_set.qrels.aggregate(top=Max("relevance"))["top"]
    return max(int(top or 0), 1)


def qrel_set_original_default(*, dataset: Dataset) -> QrelSet | None:
    """The qrel set a form offers first where the benchmark's own judgments are meant (the
    dataset page's "Queries of" for a built-in retriever): an imported set, never a refined
    one (its labels, perhaps simulated, are the app's), and of those the one the newest pool
    is built on (pools are built on the original qrels), else ``test`` (what the commands
    default to), else the first by name; None when the dataset has no imported set."""
    imported = dataset.qrel_sets.filter(origin=QrelSet.Origin.IMPORTED)
    pooled = (
        Pool.objects.filter(dataset=dataset, qrel_set__in=imported)
        .order_by("-created", "-pk")
        .values_list("qrel_set_id", flat=True)
        .first()
    )
    return (
        (imported.filter(pk=pooled).first() if pooled is not None else None)
        or imported.filter(name="test").first()
        or imported.order_by("name").first()
    )


@dataclass(frozen=True)
class IdenticalCounts:
    """How far a dataset's queries are documents of its corpus (see :mod:`corpora.identical`):
    ``ids``: query ids that are also document ids; ``texts``: documents whose text equals a
    query's text; ``same_id_and_text``: queries whose same-id document has the same text."""

    queries: int
    ids: int
    texts: int
    same_id_and_text: int


def identical_counts(*, dataset: Dataset) -> IdenticalCounts:
    """Count identical ids and texts of ``dataset`` in the database (three semi-joins)."""
    queries = Query.objects.filter(dataset=dataset)
    documents = Document.objects.filter(dataset=dataset)
    same_doc = documents.filter(doc_id=OuterRef("query_id"))
    return IdenticalCounts(
        queries=queries.count(),
        ids=queries.filter(Exists(same_doc)).count(),
        texts=documents.filter(text__in=queries.values("text")).count(),
        same_id_and_text=queries.filter(Exists(same_doc.filter(text=OuterRef("text")))).count(),
    )


def identical_pk_pairs(*, dataset: Dataset) -> set[tuple[int, int]]:
    """The dataset's self-pairs as ``{(query pk, document pk)}``: each query whose id is also
    a document id, with that document (whatever ``exclude_identical_ids`` says)."""
    same_doc = Document.objects.filter(dataset=dataset, doc_id=OuterRef("query_id"))
    rows = (
        Query.objects.filter(dataset=dataset)
        .annotate(doc_pk=Subquery(same_doc.values("pk")[:1]))
        .filter(doc_pk__isnull=False)
        .values_list("pk", "doc_pk")
    )
    return set(rows)


def excluded_pk_pairs(*, dataset: Dataset) -> set[tuple[int, int]]:
    """:func:`identical_pk_pairs` when the dataset excludes identical ids, else empty: the
    pairs pooling, gold sampling and refinement must leave out."""
    return identical_pk_pairs(dataset=dataset) if dataset.exclude_identical_ids else set()


def pool_pair_ranks(*, pool: Pool | int, by_ids: bool = False) -> dict[tuple[Any, Any], int]:
    """``{(query pk, document pk): rank}``: each pair of ``pool`` (a pool or its pk)'s best
    (smallest, 1-based) rank over the runs that put it there
    (:class:`~corpora.models.PairSource`); keyed ``(query_id, doc_id)`` (the dataset's own
    ids) when ``by_ids``."""
    keys = (
        ("pair__query__query_id", "pair__document__doc_id")
        if by_ids
        else ("pair__query_id", "pair__document_id")
    )
    rows = PairSource.objects.filter(pair__pool=pool).values_list(*keys).annotate(best=Min("rank"))
    return {(q, d): best for q, d, best in rows.iterator(chunk_size=5000)}


def pair_best_ranks(*, pair_ids: Iterable[int]) -> dict[int, int]:
    """``{pair id: rank}``: the best (smallest, 1-based) rank of each pair of ``pair_ids``,
    in any pool, over the runs that put it there (:func:`pool_pair_ranks` by pair id across
    pools); pairs no run ranked are left out."""
    ids = sorted(set(pair_ids))
    out: dict[int, int] = {}
    for start in range(0, len(ids), 5000):
        rows = (
            PairSource.objects.filter(pair_id__in=ids[start : start + 5000])
            .values("pair_id")
            .annotate(best=Min("rank"))
            .values_list("pair_id", "best")
        )
        out.update({pair_id: best for pair_id, best in rows if best is not None})
    return out


PAIRS_PER_PAGE = 50


@dataclass(frozen=True)
class RunContribution:
    """What one run of a pool put in it: ``pairs`` it ranked within the pool's depth (and
    pooled) and ``only`` those no other run of the pool ranked: its unique contribution, the
    pairs the pool would lose without it (Zobel, "How reliable are the results of large-scale
    information retrieval experiments?", SIGIR 1998, measures pool bias by leaving a run's
    unique pairs out)."""

    run: Run
    pairs: int
    only: int


@dataclass(frozen=True)
class PoolOverview:
    """What the pool page shows above its pairs: ``pairs`` and ``queries`` in the pool, the
    fewest, median and most pairs a query has, how many pairs hold an original grade (a pool
    that keeps judged pairs), how many have a place in the strategy's judging order, and each
    run's contribution."""

    pool: Pool
    pairs: int
    queries: int
    per_query_min: int
    per_query_median: float
    per_query_max: int
    judged: int
    ordered: int
    runs: list[RunContribution]


def pool_overview(*, pool: Pool) -> PoolOverview:
    """The counts of :class:`PoolOverview` for ``pool``: five grouped queries whatever its
    size (pairs per query, judged and ordered pairs, each run's pairs, the pairs with one
    source by that source's run)."""
    pairs = pool.pairs.order_by()
    per_query = list(pairs.values("query").annotate(n=Count("pk")).values_list("n", flat=True))
    totals = pairs.aggregate(
        judged=Count("pk", filter=Q(original_relevance__isnull=False)),
        ordered=Count("pk", filter=Q(pool_order__isnull=False)),
    )
    sources = PairSource.objects.filter(pair__pool=pool).order_by()
    found = dict(sources.values("run").annotate(n=Count("pk")).values_list("run", "n"))
    alone = pairs.annotate(n=Count("sources")).filter(n=1).values("pk")
    only = dict(
        sources.filter(pair__in=alone).values("run").annotate(n=Count("pk")).values_list("run", "n")
    )
    return PoolOverview(
        pool=pool,
        pairs=sum(per_query),
        queries=len(per_query),
        per_query_min=min(per_query, default=0),
        per_query_median=float(median(per_query)) if per_query else 0.0,
        per_query_max=max(per_query, default=0),
        judged=totals["judged"],
        ordered=totals["ordered"],
        runs=[
            RunContribution(run=run, pairs=found.get(run.pk, 0), only=only.get(run.pk, 0))
            for run in pool.runs.order_by("name")
        ],
    )


def pool_pairs_page(*, pool: Pool, query_id: str = "", page: int | str = 1) -> Page:
    """One page (:data:`PAIRS_PER_PAGE`) of ``pool``'s pairs, only query ``query_id``'s when
    given, in judging order: the strategy's stored order first (``pool_order``; an adaptive
    strategy's job chooses as labels arrive, so for bandit and mtc this is the order at
    build), then query id and document id by code point (the canonical order); each pair
    with its sources (run and rank, best rank first) prefetched. Out-of-range pages give the
    last page."""
    pairs = pool.pairs.select_related("query", "document").only(
        "pool_order", "original_relevance", "query__query_id", "document__doc_id"
    )
    if query_id:
        pairs = pairs.filter(query__query_id=query_id)
    ordered = pairs.order_by(
        F("pool_order").asc(nulls_last=True),
        code_point("query__query_id"),
        code_point("document__doc_id"),
    ).prefetch_related(
        Prefetch(
            "sources",
            queryset=PairSource.objects.select_related("run")
            .only("pair", "rank", "run__name")
            .order_by("rank", "run__name"),
        )
    )
    return Paginator(ordered, PAIRS_PER_PAGE).get_page(page)
