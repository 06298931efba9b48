"""Write and read actions on benchmarks: import, summarise and export.

Every import runs in one transaction: a :class:`~corpora.formats.FormatError` (or any other
error) rolls back everything the import wrote, so bad input changes nothing.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
from django.db import DatabaseError, connection, transaction
from django.db.models import Count, F, Func, IntegerField, Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.text import slugify
from tqdm import tqdm

from . import formats, pooling, retrieval
from . import runs as run_files
from .formats import FormatError
from .models import (
    Dataset,
    Document,
    DocumentEmbedding,
    ImportRecord,
    PairSource,
    Pool,
    Qrel,
    QrelSet,
    Query,
    Run,
    RunEntry,
)
from .ordering import code_point

BATCH_SIZE = 5000


def _progress(iterable: Iterable, *, desc: str, enabled: bool, unit: str) -> Iterable:
    if not enabled:
        return iterable
    return tqdm(iterable, desc=desc, unit=unit, file=sys.stderr, mininterval=0.5)


def _copy_rows(table: str, columns: list[str], rows: Iterable[tuple]) -> int:
    """Insert ``rows`` into ``table`` with COPY (PostgreSQL) or batched INSERTs (others)."""
    count = 0
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
            with cursor.cursor.copy(sql) as copy:
                for row in rows:
                    copy.write_row(row)
                    count += 1
        return count
    placeholders = ", ".join(["%s"] * len(columns))
    # Table and column names are this module's constants, never user input.
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders})"  # noqa: S608
    batch: list[tuple] = []
    with connection.cursor() as cursor:
        for row in rows:
            batch.append(row)
            if len(batch) >= BATCH_SIZE:
                cursor.executemany(sql, batch)
                count += len(batch)
                batch.clear()
        if batch:
            cursor.executemany(sql, batch)
            count += len(batch)
    return count


def _duplicate_lines(records: Iterable, key: str, duplicated: set[str]) -> list[str]:
    lines: dict[str, list[int]] = {}
    for record in records:
        value = getattr(record, key)
        if value in duplicated:
            lines.setdefault(value, []).append(record.line)
    return [f"id {value!r} on lines {', '.join(map(str, ls))}" for value, ls in lines.items()]


def _import_documents(
    dataset: Dataset, path: Path, *, on_duplicate: str | None, progress: bool
) -> tuple[int, int]:
    """Stream ``corpus.jsonl`` into the dataset; return ``(documents, duplicates_dropped)``."""
    seen: set[str] = set()
    duplicated: set[str] = set()
    later: dict[str, formats.DocRecord] = {}
    dropped = 0

    def rows() -> Iterator[tuple]:
        nonlocal dropped
        for record in _progress(
            formats.parse_corpus(path), desc="documents", enabled=progress, unit=" docs"
        ):
            if record.doc_id in seen:
                duplicated.add(record.doc_id)
                dropped += 1
                if on_duplicate is not None:
                    later[record.doc_id] = record
                continue
            seen.add(record.doc_id)
            # Once a duplicate dooms the import, stop writing but keep scanning for the others.
            if on_duplicate is not None or not duplicated:
                yield (dataset.pk, record.doc_id, record.title, record.text)

    count = _copy_rows("corpora_document", ["dataset_id", "doc_id", "title", "text"], rows())
    if duplicated and on_duplicate is None:
        details = _duplicate_lines(formats.parse_corpus(path), "doc_id", duplicated)
        raise FormatError(
            path,
            None,
            f"{len(duplicated)} duplicate document _id(s); "
            "pass --on-duplicate keep-last to keep the last record of each",
            details,
        )
    for record in later.values():
        Document.objects.filter(dataset=dataset, doc_id=record.doc_id).update(
            title=record.title, text=record.text
        )
    return count, dropped


def _import_queries(
    dataset: Dataset, path: Path, *, on_duplicate: str | None, progress: bool
) -> tuple[int, int]:
    """Read ``queries.jsonl`` into the dataset; return ``(queries, duplicates_dropped)``."""
    records: dict[str, formats.QueryRecord] = {}
    duplicated: set[str] = set()
    dropped = 0
    for record in _progress(
        formats.parse_queries(path), desc="queries", enabled=progress, unit=" queries"
    ):
        if record.query_id in records:
            duplicated.add(record.query_id)
            dropped += 1
        records[record.query_id] = record  # keep-last
    if duplicated and on_duplicate is None:
        details = _duplicate_lines(formats.parse_queries(path), "query_id", duplicated)
        raise FormatError(
            path,
            None,
            f"{len(duplicated)} duplicate query _id(s); "
            "pass --on-duplicate keep-last to keep the last record of each",
            details,
        )
    objs = [
        Query(dataset=dataset, query_id=r.query_id, text=r.text, metadata=r.metadata)
        for r in records.values()
    ]
    Query.objects.bulk_create(objs, batch_size=BATCH_SIZE)
    return len(objs), dropped


def _id_maps(dataset: Dataset, records: Iterable) -> tuple[dict[str, int], dict[str, int]]:
    """``(query_id → pk, doc_id → pk)`` for the ids ``records`` name that exist in ``dataset``,
    looked up in batches; ids missing from the dataset are simply absent."""
    query_ids = sorted({r.query_id for r in records})
    doc_ids = sorted({r.doc_id for r in records})
    query_pk: dict[str, int] = {}
    doc_pk: dict[str, int] = {}
    for start in range(0, len(query_ids), BATCH_SIZE):
        query_pk.update(
            Query.objects.filter(
                dataset=dataset, query_id__in=query_ids[start : start + BATCH_SIZE]
            ).values_list("query_id", "pk")
        )
    for start in range(0, len(doc_ids), BATCH_SIZE):
        doc_pk.update(
            Document.objects.filter(
                dataset=dataset, doc_id__in=doc_ids[start : start + BATCH_SIZE]
            ).values_list("doc_id", "pk")
        )
    return query_pk, doc_pk


def _resolve_ids(
    dataset: Dataset, records: list[formats.QrelRecord], path: Path
) -> tuple[dict[str, int], dict[str, int]]:
    """Map the qrels' query and doc ids to primary keys; reject unknown ids, listing them."""
    query_pk, doc_pk = _id_maps(dataset, records)
    query_ids = sorted({r.query_id for r in records})
    doc_ids = sorted({r.doc_id for r in records})
    missing_queries = [q for q in query_ids if q not in query_pk]
    missing_docs = [d for d in doc_ids if d not in doc_pk]
    if missing_queries or missing_docs:
        first_line = min(
            r.line for r in records if r.query_id not in query_pk or r.doc_id not in doc_pk
        )
        details = [f"unknown query id {q!r}" for q in missing_queries]
        details += [f"unknown document id {d!r}" for d in missing_docs]
        raise FormatError(
            path,
            first_line,
            f"qrels name {len(missing_queries)} unknown query id(s) and "
            f"{len(missing_docs)} unknown document id(s) in dataset {dataset.slug!r}",
            details,
        )
    return query_pk, doc_pk


def _import_qrels(
    dataset: Dataset,
    path: Path,
    *,
    name: str,
    fmt: str,
    on_duplicate: str | None,
    origin: str = QrelSet.Origin.IMPORTED,
) -> QrelSet:
    if QrelSet.objects.filter(dataset=dataset, name=name).exists():
        raise FormatError(path, None, f"qrel set {name!r} already exists in {dataset.slug!r}")
    parser = formats.parse_trec_qrels if fmt == "trec" else formats.parse_beir_qrels
    records, dropped = formats.resolve_duplicate_qrels(parser(path), on_duplicate, path)
    query_pk, doc_pk = _resolve_ids(dataset, records, path)
    qrel_set = QrelSet.objects.create(
        dataset=dataset,
        name=name,
        origin=origin,
        source=str(path),
        duplicate_policy=on_duplicate or "",
        duplicates_resolved=dropped,
    )
    _copy_rows(
        "corpora_qrel",
        ["qrel_set_id", "query_id", "document_id", "relevance"],
        ((qrel_set.pk, query_pk[r.query_id], doc_pk[r.doc_id], r.relevance) for r in records),
    )
    return qrel_set


def _find_beir_file(folder: Path, stem: str) -> Path:
    for candidate in (folder / f"{stem}.jsonl", folder / f"{stem}.jsonl.gz"):
        if candidate.is_file():
            return candidate
    raise FormatError(folder, None, f"no {stem}.jsonl or {stem}.jsonl.gz in the folder")


def _qrels_splits(folder: Path) -> list[tuple[str, Path]]:
    qrels_dir = folder / "qrels"
    if not qrels_dir.is_dir():
        return []
    splits = []
    for path in sorted(qrels_dir.iterdir()):
        for suffix in (".tsv.gz", ".tsv"):
            if path.name.endswith(suffix) and path.is_file():
                splits.append((path.name[: -len(suffix)], path))
                break
    return splits


def dataset_summary(*, dataset: Dataset) -> dict:
    """Counts for a dataset: documents, queries, and per qrel set rows, judged queries,
    relevant rows (grade > 0) and relevant per judged query.

    Returns ``{"documents": int, "queries": int, "qrels": {name: {...}}}``.
    """
    qrels = {}
    for qrel_set in dataset.qrel_sets.order_by("name"):
        stats = qrel_set.qrels.aggregate(
            rows=Count("pk"),
            queries=Count("query", distinct=True),
            relevant=Count("pk", filter=Q(relevance__gt=0)),
        )
        stats["relevant_per_query"] = (
            round(stats["relevant"] / stats["queries"], 2) if stats["queries"] else 0.0
        )
        stats["origin"] = qrel_set.origin
        qrels[qrel_set.name] = stats
    return {
        "dataset": dataset.slug,
        "documents": dataset.documents.count(),
        "queries": dataset.queries.count(),
        "qrels": qrels,
    }


def dataset_import_beir(
    *,
    path: str | Path,
    name: str,
    slug: str | None = None,
    source: str = "",
    licence: str = "",
    on_duplicate: str | None = None,
    splits: list[str] | None = None,
    progress: bool = False,
) -> Dataset:
    """Import a BEIR folder (``corpus.jsonl[.gz]``, ``queries.jsonl[.gz]``, ``qrels/*.tsv``).

    Every ``qrels/<split>.tsv[.gz]`` becomes a QrelSet named ``<split>``. The corpus is streamed
    (bounded memory: the set of ids seen, not the texts) and written with COPY on PostgreSQL.
    One transaction: any error leaves the database unchanged. ``on_duplicate`` is None (reject),
    ``"keep-last"`` or ``"keep-max"`` (for qrels; documents and queries keep the last record).
    ``splits`` limits which qrels splits are read (default: all found); naming a split that is
    not there is an error.

    Raises :class:`FormatError` naming file, line and reason, including when the slug is taken.
    """
    started = time.monotonic()
    folder = Path(path)
    if not folder.is_dir():
        raise FormatError(folder, None, "not a folder")
    corpus_path = _find_beir_file(folder, "corpus")
    queries_path = _find_beir_file(folder, "queries")
    found = dict(_qrels_splits(folder))
    if splits is not None:
        missing = [s for s in splits if s not in found]
        if missing:
            raise FormatError(
                folder / "qrels",
                None,
                f"no qrels split(s) {', '.join(missing)} (found: {', '.join(found) or 'none'})",
            )
        found = {s: found[s] for s in splits}
    slug = slug or slugify(name)
    if not slug:
        raise FormatError(folder, None, f"dataset name {name!r} gives an empty slug")
    with transaction.atomic():
        if Dataset.objects.filter(slug=slug).exists():
            raise FormatError(folder, None, f"dataset {slug!r} already exists")
        dataset = Dataset.objects.create(
            name=name, slug=slug, source=source or str(folder), licence=licence
        )
        _, doc_dupes = _import_documents(
            dataset, corpus_path, on_duplicate=on_duplicate, progress=progress
        )
        _, query_dupes = _import_queries(
            dataset, queries_path, on_duplicate=on_duplicate, progress=progress
        )
        for split, qrels_path in found.items():
            _import_qrels(dataset, qrels_path, name=split, fmt="beir", on_duplicate=on_duplicate)
        summary = dataset_summary(dataset=dataset)
        summary["duplicates_dropped"] = {"documents": doc_dupes, "queries": query_dupes}
        ImportRecord.objects.create(
            dataset=dataset,
            kind=ImportRecord.Kind.BEIR,
            path=str(folder),
            summary=summary,
            seconds=time.monotonic() - started,
        )
    return dataset


def qrels_import(
    *,
    dataset: Dataset,
    path: str | Path,
    name: str,
    fmt: str = "trec",
    on_duplicate: str | None = None,
) -> QrelSet:
    """Import a qrels file (``trec``: ``qid iter docid rel``; ``beir``: TSV) as a new QrelSet.

    Rejects, changing nothing: an existing set of that name, unknown query or document ids
    (all listed), duplicates without a policy, bad grades. Raises :class:`FormatError`.
    """
    started = time.monotonic()
    path = Path(path)
    if fmt not in ("trec", "beir"):
        raise FormatError(path, None, f"unknown qrels format {fmt!r}")
    with transaction.atomic():
        qrel_set = _import_qrels(dataset, path, name=name, fmt=fmt, on_duplicate=on_duplicate)
        ImportRecord.objects.create(
            dataset=dataset,
            kind=ImportRecord.Kind.QRELS,
            path=str(path),
            summary=dataset_summary(dataset=dataset)["qrels"][name],
            seconds=time.monotonic() - started,
        )
    return qrel_set


def answers_import(*, dataset: Dataset, path: str | Path) -> int:
    """Set reference answers from a JSONL file of ``{"query_id", "answers"}``; return queries set.

    A query listed twice is rejected (lines listed); unknown query ids are rejected (listed).
    One transaction. Raises :class:`FormatError`.
    """
    started = time.monotonic()
    path = Path(path)
    records: dict[str, formats.AnswerRecord] = {}
    lines: dict[str, list[int]] = {}
    for record in formats.parse_answers(path):
        if record.query_id in records:
            lines.setdefault(record.query_id, [records[record.query_id].line]).append(record.line)
        records[record.query_id] = record
    if lines:
        raise FormatError(
            path,
            None,
            f"{len(lines)} query id(s) listed more than once",
            [f"query {q!r} on lines {', '.join(map(str, ls))}" for q, ls in lines.items()],
        )
    with transaction.atomic():
        queries = {
            q.query_id: q for q in Query.objects.filter(dataset=dataset, query_id__in=list(records))
        }
        missing = [q for q in records if q not in queries]
        if missing:
            first = min(records[q].line for q in missing)
            raise FormatError(
                path,
                first,
                f"{len(missing)} unknown query id(s) in dataset {dataset.slug!r}",
                [f"unknown query id {q!r}" for q in missing],
            )
        for query_id, query in queries.items():
            query.answers = records[query_id].answers
        Query.objects.bulk_update(list(queries.values()), ["answers"], batch_size=BATCH_SIZE)
        ImportRecord.objects.create(
            dataset=dataset,
            kind=ImportRecord.Kind.ANSWERS,
            path=str(path),
            summary={
                "queries_with_answers": len(queries),
                "answers": sum(len(r.answers) for r in records.values()),
            },
            seconds=time.monotonic() - started,
        )
    return len(queries)


class _JsonArrayLength(Func):
    """Length of a JSON array column: ``json_array_length`` (SQLite), ``jsonb_array_length``
    (PostgreSQL)."""

    function = "json_array_length"
    output_field = IntegerField()

    def as_postgresql(self, compiler, connection, **extra):
        return super().as_sql(compiler, connection, function="jsonb_array_length", **extra)


def answers_summary(*, dataset: Dataset) -> dict:
    """Reference-answer counts for a dataset, from the database (one aggregate query).

    Returns ``{"dataset": slug, "queries": int, "with_answers": int, "without_answers": int,
    "answers": int, "answers_per_query": float}``: queries in the dataset, those with a
    non-empty answer list and those without, answers over all queries, and answers per query
    with answers (rounded to 2 places, 0.0 when none has any).
    """
    stats = dataset.queries.aggregate(
        queries=Count("pk"),
        with_answers=Count("pk", filter=~Q(answers=[])),
        answers=Coalesce(Sum(_JsonArrayLength("answers")), 0),
    )
    with_answers = stats["with_answers"]
    return {
        "dataset": dataset.slug,
        "queries": stats["queries"],
        "with_answers": with_answers,
        "without_answers": stats["queries"] - with_answers,
        "answers": stats["answers"],
        "answers_per_query": round(stats["answers"] / with_answers, 2) if with_answers else 0.0,
    }


def qrels_rows(*, qrel_set: QrelSet) -> Iterator[tuple[str, str, int]]:
    """Yield ``(query_id, doc_id, relevance)`` in canonical order (query id, then doc id, by
    code point), streaming from the database in chunks."""
    qs = (
        Qrel.objects.filter(qrel_set=qrel_set)
        .order_by(code_point("query__query_id"), code_point("document__doc_id"))
        .values_list("query__query_id", "document__doc_id", "relevance")
    )
    yield from qs.iterator(chunk_size=BATCH_SIZE)


def qrels_export(*, qrel_set: QrelSet, out: IO[str], fmt: str) -> int:
    """Write a QrelSet as TREC qrels (``qid 0 docid rel``) or BEIR TSV (with header).

    Streams rows; returns the number of rows written. Raises ValueError for another format.
    """
    return formats.write_qrels(qrels_rows(qrel_set=qrel_set), out, fmt)


def dataset_get(*, slug: str) -> Dataset:
    """The dataset with this slug. Raises ``Dataset.DoesNotExist``."""
    return Dataset.objects.get(slug=slug)


def qrel_set_get(*, dataset: Dataset, name: str) -> QrelSet:
    """The dataset's QrelSet of this name. Raises ``QrelSet.DoesNotExist``."""
    return QrelSet.objects.get(dataset=dataset, name=name)


# ---------------------------------------------------------------------------------------------
# Runs, built-in retrievers and pooling
# ---------------------------------------------------------------------------------------------

RETRIEVERS = ("bm25", "dense")
# From this corpus size on, BM25 runs on bm25s: bench/retrieval_bench.py measured rank-bm25
# (a Python loop over every document per query term) far more than 5x slower at 100,000
# documents. Below it rank-bm25, the reference implementation, is fast enough.
BM25S_MIN_DOCUMENTS = 20_000
RUN_NAME_RE = re.compile(r"^[-a-zA-Z0-9_]+$")
QUERIES_ALL = "all"


# --windows: 128 word pieces with [CLS] and [SEP] (the length the model was trained on), a new
# window every 64 pieces (see corpora.retrieval.WINDOW_LENGTH and WINDOW_STRIDE).
DENSE_WINDOWS = {
    "max_length": retrieval.WINDOW_LENGTH,
    "stride": retrieval.WINDOW_STRIDE,
    "scoring": "MaxP: a document scores its best window's cosine",
}


class RunError(ValueError):
    """A run action that is refused (name taken, unknown qrel set, run still in use...)."""


class RunBusy(RunError):
    """The run is being executed right now by another worker or process."""


class PoolError(ValueError):
    """A pool build that is refused (runs of another dataset, unfinished runs, a pool of that
    name built with other settings...)."""


def _progress_bar(enabled: bool, *, desc: str, unit: str):
    """A callable wrapping an iterable in a tqdm bar on stderr, or None when disabled."""
    if not enabled:
        return None
    return lambda iterable: _progress(iterable, desc=desc, enabled=True, unit=unit)


# The PostgreSQL advisory lock held while a run executes has the key
# (_RUN_LOCK_CLASS << 32) | run id; the class is "RUN" in ASCII, so it names runs only.
_RUN_LOCK_CLASS = 0x52554E
# How long a new execution waits for the lock before reporting the run busy: long enough to
# outlast run_fail_stale's momentary check, far shorter than any real execution.
RUN_CLAIM_WAIT_SECONDS = 2.0
RUN_WORKER_LOST = (
    "worker lost: the task or command executing this run stopped without finishing "
    "(killed, out of memory, past its hard time limit, or interrupted); retrieve it again "
    "to resume (stored document vectors are kept)"
)


@contextmanager
def _run_claim(run_id: int, *, wait: float = 0.0) -> Iterator[bool]:
    """Hold the execution lock of run ``run_id`` for the block; yield whether it was free
    (retrying for up to ``wait`` seconds).

    On PostgreSQL this is a session-level advisory lock. It is released when the block ends
    and, as it belongs to the database connection, also when the process holding it dies
    (hard time limit, killed worker, Ctrl-C), with no expiry to wait for: it is the lease of
    debates.services, kept by the database instead of a timestamp. So a run whose status is
    ``running`` but whose lock is free has no live execution (:func:`run_fail_stale`), and a
    second execution of a run being executed is refused (:class:`RunBusy`). Other databases
    (SQLite: one process, tasks in-process) cannot tell, and always yield True.
    """
    if connection.vendor != "postgresql":
        yield True
        return
    key = (_RUN_LOCK_CLASS << 32) | (run_id & 0xFFFFFFFF)
    deadline = time.monotonic() + wait
    while True:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s::bigint)", [key])
            claimed = bool(cursor.fetchone()[0])
        if claimed or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    try:
        yield claimed
    finally:
        if claimed:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s::bigint)", [key])
            except DatabaseError:
                # Inside a transaction the block's own error aborted, the unlock cannot run;
                # closing the session frees the lock (and the block's error is the one raised).
                connection.close()


def _error_text(exc: BaseException) -> str:
    message = str(exc)
    return f"{type(exc).__name__}: {message}"[:2000] if message else type(exc).__name__


def _check_run_name(name: str) -> str:
    if not RUN_NAME_RE.match(name or "") or len(name) > 100:
        raise RunError(
            f"run name {name!r} must be 1-100 letters, digits, '-' or '_' (it is the TREC tag)"
        )
    return name


def _judged_queries(qrel_set: QrelSet):
    return Query.objects.filter(pk__in=qrel_set.qrels.values("query_id"))


def run_queries(*, dataset: Dataset, queries: str | None) -> list[tuple[int, str, str]]:
    """The queries a run covers as ``(pk, query_id, text)``, sorted by query id (code point).

    ``queries`` is the name of a qrel set (its judged queries: ``"test"`` means the queries
    judged in qrel set ``test``) or ``"all"``/None for every query of the dataset.
    Raises :class:`RunError` for an unknown qrel set.
    """
    qs = Query.objects.filter(dataset=dataset)
    if queries not in (None, QUERIES_ALL):
        try:
            qrel_set = qrel_set_get(dataset=dataset, name=queries)
        except QrelSet.DoesNotExist:
            names = ", ".join(dataset.qrel_sets.values_list("name", flat=True)) or "none"
            raise RunError(
                f"no qrel set {queries!r} in {dataset.slug!r} to take queries from "
                f"(known: {names}; or 'all')"
            ) from None
        qs = qs.filter(pk__in=qrel_set.qrels.values("query_id"))
    rows = list(qs.values_list("pk", "query_id", "text"))
    rows.sort(key=lambda r: r[1])
    return rows


def _run_documents(dataset: Dataset) -> list[tuple[int, str, str]]:
    """``(pk, doc_id, indexed text)`` for every document, in primary-key order."""
    qs = Document.objects.filter(dataset=dataset).order_by("pk")
    return [
        (pk, doc_id, retrieval.document_text(title, text))
        for pk, doc_id, title, text in qs.values_list("pk", "doc_id", "title", "text").iterator(
            chunk_size=BATCH_SIZE
        )
    ]


def run_create(
    *,
    dataset: Dataset,
    retriever: str,
    k: int = 100,
    queries: str | None = "test",
    name: str | None = None,
    replace: bool = False,
    backend: str | None = None,
    windows: bool = False,
) -> Run:
    """Create a pending built-in Run (no entries yet); :func:`run_retrieve` fills it.

    ``retriever`` is ``"bm25"`` or ``"dense"``; ``k`` the documents kept per query;
    ``queries`` a qrel set name or ``"all"`` (see :func:`run_queries`); ``name`` defaults to
    the retriever. ``backend`` (BM25 only) is ``"rank_bm25"`` or ``"bm25s"``; by default
    bm25s from :data:`BM25S_MIN_DOCUMENTS` documents on. ``windows`` (dense only) encodes
    each document as overlapping windows the model reads whole and scores it by its best
    window (MaxP; :data:`DENSE_WINDOWS`); off by default.

    An existing run of that name that is not done (pending, failed, or running after its
    task died) and has exactly these settings is returned as it is, so asking for the same run
    again resumes it (:func:`run_retrieve` reuses the document vectors already stored). Any
    other existing run of that name is refused unless ``replace``; a run that a pool uses as
    provenance, or one being executed right now (:class:`RunBusy`), is never replaced.
    Raises :class:`RunError`.
    """
    if retriever not in RETRIEVERS:
        raise RunError(f"unknown retriever {retriever!r} (expected {' or '.join(RETRIEVERS)})")
    if k < 1:
        raise RunError(f"k must be at least 1, got {k}")
    name = _check_run_name(name or retriever)
    if windows and retriever != "dense":
        raise RunError("--windows applies to dense only")
    if retriever == "bm25":
        if backend is None:
            large = dataset.documents.count() >= BM25S_MIN_DOCUMENTS
            backend = "bm25s" if large else "rank_bm25"
        if backend not in retrieval.BACKENDS:
            raise RunError(f"unknown BM25 backend {backend!r}")
        system = f"BM25 (Lucene IDF, k1={retrieval.BM25_K1}, b={retrieval.BM25_B}) via {backend}"
        parameters = {
            "retriever": "bm25",
            "backend": backend,
            "k1": retrieval.BM25_K1,
            "b": retrieval.BM25_B,
            "idf": "lucene: log(1 + (N - df + 0.5) / (df + 0.5))",
            "tokenizer": "lower-case, Unicode word characters (\\w+)",
            "fields": "title + ' ' + text",
        }
    else:
        if backend is not None:
            raise RunError("--backend applies to bm25 only")
        system = f"dense retrieval, {retrieval.DENSE_MODEL_NAME}, exact cosine"
        parameters = {
            "retriever": "dense",
            "model": retrieval.DENSE_MODEL_NAME,
            "normalize_embeddings": True,
            "batch_size": retrieval.DENSE_BATCH_SIZE,
            "similarity": "cosine (exact)",
            "fields": "title + ' ' + text",
        }
        if windows:  # the key is absent without windows: older runs keep their parameters
            parameters["windows"] = dict(DENSE_WINDOWS)
            system += (
                f", MaxP over {DENSE_WINDOWS['max_length']}-piece windows "
                f"(stride {DENSE_WINDOWS['stride']})"
            )
    parameters.update({"k": k, "queries": queries or QUERIES_ALL})
    with transaction.atomic():
        run_queries(dataset=dataset, queries=queries)  # refuses an unknown qrel set early
        existing = Run.objects.select_for_update().filter(dataset=dataset, name=name).first()
        if existing is not None:
            resumable = (
                existing.status != Run.Status.DONE
                and existing.source == Run.Source.BUILTIN
                and existing.parameters == parameters
            )
            if resumable and not replace:
                if existing.status == Run.Status.RUNNING:
                    with _run_claim(existing.pk) as free:
                        if not free:
                            raise RunBusy(
                                f"run {name!r} is being executed right now; wait for it to "
                                "finish (its status shows on the dataset page)"
                            )
                return existing
            if not replace:
                raise RunError(
                    f"run {name!r} already exists in {dataset.slug!r} (status {existing.status});"
                    " pass --replace to rebuild it or --name to keep both"
                )
            pools = list(existing.pools.values_list("name", flat=True))
            if pools or existing.pair_sources.exists():
                raise RunError(
                    f"run {name!r} is pooled in {', '.join(pools) or 'a pool'}: its ranks are "
                    "that pool's provenance, so it cannot be replaced; use another --name"
                )
            with _run_claim(existing.pk) as free:
                if not free:
                    raise RunBusy(
                        f"run {name!r} is being executed right now, so it cannot be replaced; "
                        "wait for it to finish or use another --name"
                    )
                existing.delete()
        return Run.objects.create(
            dataset=dataset,
            name=name,
            system=system,
            parameters=parameters,
            source=Run.Source.BUILTIN,
            status=Run.Status.PENDING,
        )


def run_enqueue(*, run: Run) -> None:
    """Queue :func:`corpora.tasks.retrieve_task` for ``run`` once the transaction commits."""
    from .tasks import retrieve_task

    run_id = run.pk
    transaction.on_commit(lambda: retrieve_task.delay(run_id))


def _embeddings_store(
    dataset: Dataset,
    documents: Sequence[tuple[int, str, str]],
    vectors: np.ndarray,
    model_name: str,
) -> list[bytes]:
    """Store one vector per document (rows of ``vectors`` in ``documents`` order); a document
    that already has one keeps it. Returns the rows as stored bytes."""
    blobs = retrieval.vectors_to_bytes(vectors)
    with transaction.atomic():
        # ignore_conflicts: two workers encoding the same dataset at once both succeed.
        DocumentEmbedding.objects.bulk_create(
            (
                DocumentEmbedding(
                    dataset=dataset, document_id=d[0], model_name=model_name, vector=blob
                )
                for d, blob in zip(documents, blobs, strict=True)
            ),
            batch_size=2000,
            ignore_conflicts=True,
        )
    return blobs


def embeddings_ensure(
    *,
    dataset: Dataset,
    documents: Sequence[tuple[int, str, str]] | None = None,
    model_name: str = retrieval.DENSE_MODEL_NAME,
    progress: bool = False,
    cache_dir: Path | None = None,
) -> np.ndarray:
    """Dense vectors of ``documents`` (default: all, as :func:`_run_documents` lists them).

    Returns float32 ``(len(documents), 384)``, L2-normalised, in the order given. Vectors are
    stored per (document, model) in DocumentEmbedding and reused: only documents without one
    are encoded, longest text first, in chunks of :data:`corpora.retrieval.ENCODE_CHUNK`
    documents, and each chunk is committed as soon as it is encoded. So an interrupted call
    (an exception, a task's time limit, a killed worker) keeps every chunk stored before it,
    at most one chunk of work is lost (about a minute on 2 CPU cores), and the next call
    encodes only the rest. ``cache_dir`` adds an on-disk cache of all the missing documents'
    vectors keyed by their texts' content hash (tests and benchmarks, whose databases are
    recreated), written once every chunk is encoded.
    """
    if documents is None:
        documents = _run_documents(dataset)
    stored = dict(
        DocumentEmbedding.objects.filter(
            dataset=dataset, model_name=model_name, windowing=""
        ).values_list("document_id", "vector")
    )
    missing = [d for d in documents if d[0] not in stored]
    if missing:

        def store(positions: list[int], vectors: np.ndarray) -> None:
            chunk = [missing[i] for i in positions]
            blobs = _embeddings_store(dataset, chunk, vectors, model_name)
            stored.update({d[0]: blob for d, blob in zip(chunk, blobs, strict=True)})

        retrieval.encode_cached(
            retrieval.load_encoder(),
            [d[2] for d in missing],
            cache_dir=cache_dir,
            model_name=model_name,
            progress=_progress_bar(progress, desc="encoding", unit=" chunks"),
            on_chunk=store,
        )
    if not documents:
        return np.zeros((0, 0), dtype=np.float32)
    first = bytes(stored[documents[0][0]])
    return retrieval.vectors_from_bytes([stored[d[0]] for d in documents], len(first) // 4)


# --- issue 13: windowed document vectors (MaxP) -------------------------------------------


def embeddings_windows_ensure(
    *,
    dataset: Dataset,
    documents: Sequence[tuple[int, str, str]],
    model_name: str = retrieval.DENSE_MODEL_NAME,
    max_length: int,
    stride: int,
    progress: bool = False,
    cache_dir: Path | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Dense vectors of the overlapping windows of ``documents``
    (:func:`corpora.retrieval.document_windows` with the model's own tokenizer).

    Returns ``(vectors, starts)``: float32 ``(windows, 384)``, L2-normalised, the windows of
    each document in order and the documents in the order given; ``starts[i]`` (int64) is
    the row of document *i*'s first window, as :func:`corpora.retrieval.cosine_search`
    takes it. Stored and reused like :func:`embeddings_ensure`'s vectors, under windowing
    ``"<max_length>/<stride>"`` with one row per window; documents without stored windows
    are encoded longest first, about :data:`corpora.retrieval.ENCODE_CHUNK` windows at a
    time, each group committed (all windows of a document together) once encoded.
    """
    windowing = f"{max_length}/{stride}"
    stored: dict[int, list[bytes]] = {}
    rows = (
        DocumentEmbedding.objects.filter(
            dataset=dataset, model_name=model_name, windowing=windowing
        )
        .order_by("document_id", "window")
        .values_list("document_id", "vector")
    )
    for document_id, blob in rows.iterator(chunk_size=BATCH_SIZE):
        stored.setdefault(document_id, []).append(blob)
    missing = [d for d in documents if d[0] not in stored]
    if missing:
        model = retrieval.load_encoder()
        windows = retrieval.document_windows(
            retrieval.load_tokenizer(),
            [d[2] for d in missing],
            max_length=max_length,
            stride=stride,
        )
        order = sorted(range(len(missing)), key=lambda i: -len(missing[i][2]))
        groups: list[list[int]] = [[]]
        size = 0
        for i in order:
            if size >= retrieval.ENCODE_CHUNK:
                groups.append([])
                size = 0
            groups[-1].append(i)
            size += len(windows[i])
        bar = _progress_bar(progress, desc="encoding windows", unit=" chunks")
        for group in bar(groups) if bar else groups:
            texts = [w for i in group for w in windows[i]]
            vectors = retrieval.encode_cached(
                model, texts, cache_dir=cache_dir, model_name=f"{model_name} {windowing}"
            )
            blobs = retrieval.vectors_to_bytes(vectors)
            objs, row = [], 0
            for i in group:
                document_id = missing[i][0]
                stored[document_id] = blobs[row : row + len(windows[i])]
                objs.extend(
                    DocumentEmbedding(
                        dataset=dataset,
                        document_id=document_id,
                        model_name=model_name,
                        windowing=windowing,
                        window=w,
                        vector=blob,
                    )
                    for w, blob in enumerate(stored[document_id])
                )
                row += len(windows[i])
            with transaction.atomic():
                DocumentEmbedding.objects.bulk_create(objs, batch_size=2000, ignore_conflicts=True)
    if not documents:
        return np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int64)
    counts = [len(stored[d[0]]) for d in documents]
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    dim = len(bytes(stored[documents[0][0]][0])) // 4
    blobs = [blob for d in documents for blob in stored[d[0]]]
    return retrieval.vectors_from_bytes(blobs, dim), starts


def _truncated_documents(documents: Sequence[tuple[int, str, str]]) -> int:
    """How many documents the dense model reads only in part: more word pieces (its own
    tokenizer, special tokens included) than its ``max_seq_length``."""
    lengths = retrieval.token_lengths(retrieval.load_tokenizer(), [d[2] for d in documents])
    limit = retrieval.max_seq_length()
    return sum(1 for n in lengths if n > limit)


# --- end issue 13 windows ---------------------------------------------------------------


def _seed_documents(dataset: Dataset) -> list[tuple[int, str, str]]:
    # doc_id (code-point) order, not primary-key order: a seed file must not depend on the
    # order in which the corpus happened to be imported.
    return sorted(_run_documents(dataset), key=lambda d: d[1])  # str order: code points


def _seed_path(folder: Path, model_name: str, documents: Sequence[tuple[int, str, str]]) -> Path:
    key = retrieval.embeddings_cache_key(model_name, [d[2] for d in documents])
    return Path(folder) / f"{key}.npy"


def embeddings_seed(
    *, dataset: Dataset, folder: Path, model_name: str = retrieval.DENSE_MODEL_NAME
) -> int:
    """Store precomputed dense vectors shipped with a bundled dataset, if they match it.

    ``folder/<key>.npy`` holds float32 vectors ``(documents, dim)`` in doc_id (code-point)
    order; ``key`` is :func:`retrieval.embeddings_cache_key` of ``model_name`` and the
    documents' indexed texts in that order, so a file made from other texts or another model
    is never used. Documents that have a vector keep it. Returns how many documents the file
    covered (0 when no file matches, or every document already has a vector).
    """
    documents = _seed_documents(dataset)
    stored = DocumentEmbedding.objects.filter(
        dataset=dataset, model_name=model_name, windowing=""
    ).count()
    if stored == len(documents):  # nothing to seed (a rerun): skip hashing and reading the file
        return 0
    path = _seed_path(folder, model_name, documents)
    if not path.is_file():
        return 0
    vectors = np.load(path)
    if vectors.ndim != 2 or vectors.shape[0] != len(documents):
        return 0
    _embeddings_store(dataset, documents, vectors, model_name)
    return len(documents)


def embeddings_seed_write(
    *, dataset: Dataset, folder: Path, model_name: str = retrieval.DENSE_MODEL_NAME
) -> Path:
    """Write the file :func:`embeddings_seed` reads for ``dataset`` (encoding the documents
    that have no stored vector yet). Returns its path."""
    documents = _seed_documents(dataset)
    vectors = embeddings_ensure(dataset=dataset, documents=documents, model_name=model_name)
    path = _seed_path(folder, model_name, documents)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, np.ascontiguousarray(vectors, dtype="<f4"))
    return path


def run_retrieve(*, run: Run, progress: bool = False, cache_dir: Path | None = None) -> Run:
    """Execute a built-in run: rank the run's queries and store its top k entries.

    Idempotent and resumable. A run already ``done`` is returned as it is. Otherwise the
    execution holds the run's lock (:func:`_run_claim`) from start to end, so a second
    delivery of the task, or a second command, raises :class:`RunBusy` instead of computing
    the run twice. Status goes pending (or failed, or running with no live execution: its
    task died) → running → done (entries written in one transaction), or failed with
    ``error`` = the exception's type and message, re-raised (also for KeyboardInterrupt and
    Celery's SoftTimeLimitExceeded). Document vectors are committed as they are encoded
    (:func:`embeddings_ensure`), so running a failed or interrupted dense run again encodes
    only the documents that have none yet. ``seconds`` adds up the wall time of every
    execution. ``cache_dir`` is passed to :func:`embeddings_ensure` for dense runs.
    Raises :class:`RunError` for an imported run, :class:`RunBusy`, ``Run.DoesNotExist`` for
    a run deleted meanwhile.
    """
    run = Run.objects.select_related("dataset").get(pk=run.pk)
    if run.status == Run.Status.DONE:
        return run
    if run.source != Run.Source.BUILTIN:
        raise RunError(f"run {run.name!r} was imported; there is nothing to retrieve")
    with _run_claim(run.pk, wait=RUN_CLAIM_WAIT_SECONDS) as claimed:
        if not claimed:
            raise RunBusy(
                f"run {run.name!r} is being executed by another worker or process; wait for "
                "it to finish (its status shows on the dataset page)"
            )
        # Read again under the lock: another execution may have finished (or the run been
        # deleted) while this one waited.
        run = Run.objects.select_related("dataset").get(pk=run.pk)
        if run.status == Run.Status.DONE:
            return run
        return _run_execute(run, progress=progress, cache_dir=cache_dir)


def _run_execute(run: Run, *, progress: bool, cache_dir: Path | None) -> Run:
    """The body of :func:`run_retrieve`, called with the run's lock held."""
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, error="")
    started = time.monotonic()
    params = run.parameters
    try:
        queries = run_queries(dataset=run.dataset, queries=params.get("queries"))
        documents = _run_documents(run.dataset)
        doc_ids = [d[1] for d in documents]
        bar = _progress_bar(progress, desc=run.name, unit=" queries")
        if params["retriever"] == "bm25":
            tokens = [retrieval.tokenize(d[2]) for d in documents]
            index = retrieval.bm25_index(
                tokens, backend=params["backend"], k1=params["k1"], b=params["b"]
            )
            rankings = retrieval.bm25_search(
                index, [q[2] for q in queries], doc_ids=doc_ids, k=params["k"], progress=bar
            )
        else:
            truncated = _truncated_documents(documents)
            Run.objects.filter(pk=run.pk).update(truncated_documents=truncated)
            windows, starts = params.get("windows"), None
            if windows:
                doc_vectors, starts = embeddings_windows_ensure(
                    dataset=run.dataset,
                    documents=documents,
                    model_name=params["model"],
                    max_length=windows["max_length"],
                    stride=windows["stride"],
                    progress=progress,
                    cache_dir=cache_dir,
                )
            else:
                doc_vectors = embeddings_ensure(
                    dataset=run.dataset,
                    documents=documents,
                    model_name=params["model"],
                    progress=progress,
                    cache_dir=cache_dir,
                )
            model = retrieval.load_encoder()
            query_vectors = retrieval.encode(model, [q[2] for q in queries])
            rankings = retrieval.cosine_search(
                query_vectors, doc_vectors, doc_ids=doc_ids, k=params["k"], window_starts=starts
            )
        with transaction.atomic():
            locked = Run.objects.select_for_update().get(pk=run.pk)
            if locked.status == Run.Status.DONE:  # SQLite has no run lock: another finished
                return locked
            RunEntry.objects.filter(run=locked).delete()
            _copy_rows(
                "corpora_runentry",
                ["run_id", "query_id", "document_id", "rank", "score"],
                (
                    (locked.pk, query[0], documents[index][0], rank, score)
                    for query, ranking in zip(queries, rankings, strict=True)
                    for rank, (index, score) in enumerate(ranking, start=1)
                ),
            )
            locked.status = Run.Status.DONE
            locked.seconds += time.monotonic() - started
            locked.save(update_fields=["status", "seconds"])
    except BaseException as exc:
        # BaseException: an interrupted command (KeyboardInterrupt) or a task stopped at its
        # soft time limit must not leave the run "running" with nobody executing it.
        Run.objects.filter(pk=run.pk).update(
            status=Run.Status.FAILED,
            error=_error_text(exc),
            seconds=F("seconds") + (time.monotonic() - started),
        )
        raise
    return locked


def run_vectors_stored(*, run: Run) -> int:
    """How many documents of the run's dataset have a stored vector of the run's dense model
    (0 for a run without one, e.g. BM25): the progress a dense run keeps across executions."""
    model_name = (run.parameters or {}).get("model")
    if not model_name:
        return 0
    windows = run.windows
    windowing = f"{windows['max_length']}/{windows['stride']}" if windows else ""
    # window 0: a document's windows are stored together, so this counts documents.
    return DocumentEmbedding.objects.filter(
        dataset_id=run.dataset_id, model_name=model_name, windowing=windowing, window=0
    ).count()


def run_suspend(*, run: Run, vectors_before: int, seconds: float) -> bool:
    """Decide what happens to ``run`` after its task reached its soft time limit of
    ``seconds`` (:func:`run_retrieve` has marked it failed).

    If this task stored document vectors beyond ``vectors_before`` (see
    :func:`run_vectors_stored`), the run goes back to pending and True is returned: the caller
    queues it again and the next task goes on from the stored vectors, so a corpus of any
    size is encoded over several time slices. Otherwise another slice would not get further:
    the run stays failed with that reason, and False is returned.
    """
    if run_vectors_stored(run=run) > vectors_before:
        Run.objects.filter(pk=run.pk, status=Run.Status.FAILED).update(
            status=Run.Status.PENDING, error=""
        )
        return True
    Run.objects.filter(pk=run.pk, status=Run.Status.FAILED).update(
        error=(
            f"stopped at the task's time limit ({seconds:.0f} s) without storing a new document "
            "vector, so another task would not get further; raise DREAM_RETRIEVE_TIME_LIMIT "
            "(below CELERY_VISIBILITY_TIMEOUT) or run `retrieve` without --background"
        )
    )
    return False


def run_fail_stale(*, runs: Iterable[Run] | None = None) -> int:
    """Mark ``failed`` every running built-in run (among ``runs``, default all) that no live
    execution holds (see :func:`_run_claim`): its task or command died (hard time limit,
    killed worker, Ctrl-C), and the error says so (:data:`RUN_WORKER_LOST`). Such a run is
    resumed by retrieving it again (the task, or ``retrieve`` with the same settings).
    Returns how many were marked. Run periodically (Celery beat,
    :func:`corpora.tasks.fail_stale_runs`) and before a pool is built from runs; on
    databases without advisory locks (SQLite) nothing can be told apart and it returns 0.
    """
    if connection.vendor != "postgresql":
        return 0
    running = Run.objects.filter(status=Run.Status.RUNNING, source=Run.Source.BUILTIN)
    if runs is not None:
        running = running.filter(pk__in=[r.pk for r in runs])
    marked = 0
    for pk in running.values_list("pk", flat=True):
        with _run_claim(pk) as free:
            if free:
                marked += Run.objects.filter(pk=pk, status=Run.Status.RUNNING).update(
                    status=Run.Status.FAILED, error=RUN_WORKER_LOST
                )
    return marked


def run_get(*, dataset: Dataset, name: str) -> Run:
    """The dataset's Run of this name. Raises ``Run.DoesNotExist``."""
    return Run.objects.get(dataset=dataset, name=name)


def run_import(
    *, dataset: Dataset, path: str | Path, name: str | None = None, system: str = ""
) -> Run:
    """Import a TREC run file (``qid Q0 docid rank score tag``) as a new Run.

    Ranks are recomputed in the project's rank order (score descending, doc id ascending), as
    trec_eval reads a run; raw scores are stored as they are. ``name`` defaults to the file's
    tag. One transaction; rejects, changing nothing, with file and line: a malformed line, a
    non-numeric score, a document listed twice for a query, unknown query or document ids
    (all listed), several tags without ``name``, a name already taken.
    Raises :class:`FormatError`.
    """
    started = time.monotonic()
    path = Path(path)
    records = run_files.reject_duplicates(run_files.parse_trec_run(path), path)
    tags = list(dict.fromkeys(r.tag for r in records))
    if name is None:
        if len(tags) > 1:
            line = next(r.line for r in records if r.tag != tags[0])
            raise FormatError(
                path, line, f"the file has {len(tags)} tags ({', '.join(tags[:5])}); pass --name"
            )
        name = tags[0]
    try:
        _check_run_name(name)
    except RunError as exc:
        raise FormatError(path, None, f"{exc}; pass --name") from None
    with transaction.atomic():
        if Run.objects.filter(dataset=dataset, name=name).exists():
            raise FormatError(path, None, f"run {name!r} already exists in {dataset.slug!r}")
        query_pk, doc_pk = _resolve_run_ids(dataset, records, path)
        by_query: dict[str, list[run_files.RunRecord]] = {}
        for record in records:
            by_query.setdefault(record.query_id, []).append(record)
        rows = []
        reordered = 0
        for query_id in sorted(by_query):
            group = by_query[query_id]
            ranked = run_files.rank_order((r.doc_id, r.score) for r in group)
            if [d for d, _, _ in ranked] != [r.doc_id for r in sorted(group, key=lambda r: r.rank)]:
                reordered += 1
            rows.extend((query_pk[query_id], doc_pk[d], rank, score) for d, rank, score in ranked)
        run = Run.objects.create(
            dataset=dataset,
            name=name,
            system=system or f"imported from {path.name}",
            parameters={"file": str(path), "tags": tags},
            source=Run.Source.IMPORTED,
            status=Run.Status.DONE,
        )
        _copy_rows(
            "corpora_runentry",
            ["run_id", "query_id", "document_id", "rank", "score"],
            ((run.pk, *row) for row in rows),
        )
        run.seconds = time.monotonic() - started
        run.save(update_fields=["seconds"])
        ImportRecord.objects.create(
            dataset=dataset,
            kind=ImportRecord.Kind.RUN,
            path=str(path),
            summary={
                "run": name,
                "queries": len(by_query),
                "entries": len(rows),
                "queries_reordered_by_score": reordered,
            },
            seconds=run.seconds,
        )
    return run


def _resolve_run_ids(
    dataset: Dataset, records: list[run_files.RunRecord], path: Path
) -> tuple[dict[str, int], dict[str, int]]:
    """Map a run's query and doc ids to primary keys; reject unknown ids, listing them."""
    query_pk, doc_pk = _id_maps(dataset, records)
    bad = [r for r in records if r.query_id not in query_pk or r.doc_id not in doc_pk]
    if bad:
        details = [
            f"line {r.line}: unknown query id {r.query_id!r}"
            if r.query_id not in query_pk
            else f"line {r.line}: unknown document id {r.doc_id!r}"
            for r in bad
        ]
        missing_q = len({r.query_id for r in bad if r.query_id not in query_pk})
        missing_d = len({r.doc_id for r in bad if r.doc_id not in doc_pk})
        raise FormatError(
            path,
            bad[0].line,
            f"run names {missing_q} unknown query id(s) and {missing_d} unknown document "
            f"id(s) in dataset {dataset.slug!r}",
            details,
        )
    return query_pk, doc_pk


def run_rows(*, run: Run) -> Iterator[tuple[str, str, int, float]]:
    """Yield ``(query_id, doc_id, rank, score)`` by query id (code point), then rank, with
    the raw stored scores, streaming from the database."""
    qs = (
        RunEntry.objects.filter(run=run)
        .order_by(code_point("query__query_id"), "rank")
        .values_list("query__query_id", "document__doc_id", "rank", "score")
    )
    yield from qs.iterator(chunk_size=BATCH_SIZE)


def run_export(*, run: Run, out: IO[str]) -> int:
    """Write ``run`` as a TREC run file (tag = run name) with strictly decreasing scores per
    query (see :func:`corpora.runs.strictly_decreasing`); return lines written.

    The scores are checked first (a second streaming pass over the run), so a run that cannot
    be written, e.g. a score beyond the 32-bit float range stored before imports refused
    those, raises :class:`RunError` naming the query before anything is written to ``out``.
    """
    try:
        run_files.check_trec_run(run_rows(run=run))
    except ValueError as exc:
        raise RunError(f"run {run.name!r} cannot be exported as a TREC run: {exc}") from None
    return run_files.write_trec_run(run_rows(run=run), out, run.name)


def run_evaluate(
    *, run: Run, qrel_set: QrelSet, measures: Sequence[str] = ("nDCG@10",)
) -> dict[str, float]:
    """Mean of each measure over the run's queries that ``qrel_set`` judges, computed with
    ir_measures (MacAvaney et al., ECIR 2022; pytrec_eval/trec_eval underneath).

    ``measures`` are ir_measures names, e.g. ``"nDCG@10"``, ``"Judged@10"``. The run is
    evaluated in its stored rank order (strictly decreasing exported scores). Returns
    ``{measure name: value}``; queries the run does not cover are not averaged, as in trec_eval.
    """
    import ir_measures

    parsed = [ir_measures.parse_measure(m) for m in measures]
    qrels = run_files.ir_measures_qrels(qrels_rows(qrel_set=qrel_set))
    run_dict = run_files.ir_measures_run(run_rows(run=run))
    run_dict = {q: docs for q, docs in run_dict.items() if q in qrels}
    result = ir_measures.calc_aggregate(parsed, qrels, run_dict)
    return {str(m): float(result.get(m, 0.0)) for m in parsed}


@dataclass
class PoolBuildReport:
    """What :func:`pool_build` did: the pool, its full candidate set with statistics, and how
    many pairs and provenance rows this build created. ``query_ids`` and ``run_names`` map the
    database ids in ``result`` to benchmark query ids and run names."""

    pool: Pool
    result: pooling.PoolResult
    created_pairs: int
    created_sources: int
    query_ids: dict[int, str]
    run_names: dict[int, str]


def pool_default_name(*, qrel_set: QrelSet, depth: int, include_judged: bool) -> str:
    """``<qrels>-depth<k>``, plus ``-judged`` when judged pairs are re-judged."""
    return f"{qrel_set.name}-depth{depth}" + ("-judged" if include_judged else "")


def pool_build(
    *,
    dataset: Dataset,
    qrel_set: QrelSet,
    runs: Sequence[Run],
    depth: int = 10,
    include_judged: bool = False,
    name: str | None = None,
    queries: Sequence[str] | None = None,
) -> PoolBuildReport:
    """Build or extend a Pool: the union of each run's top ``depth`` per query.

    Only queries judged in ``qrel_set`` are pooled. Pairs judged there (any grade) are left
    out unless ``include_judged``. Each Pair gets one PairSource per run ranking it within the
    depth, and its original grade. Incremental and idempotent: building the same pool again
    creates nothing; adding a run adds only the new pairs and provenance rows; pairs are never
    deleted. One transaction. ``name`` defaults to :func:`pool_default_name`; an existing
    pool of that name must have the same qrel set, depth and ``include_judged``.
    ``queries`` (benchmark query ids) bounds the pool to that subset of the judged queries,
    e.g. for a quick demo; it is stored on the pool and must match when the pool is extended.
    Every run must be done; one left running by a task that died is marked failed first
    (:func:`run_fail_stale`) and refused with that reason. Raises :class:`PoolError`.
    """
    if depth < 1:
        raise PoolError(f"pool depth must be at least 1, got {depth}")
    if not runs:
        raise PoolError("a pool needs at least one run")
    if qrel_set.dataset_id != dataset.pk:
        raise PoolError(f"qrel set {qrel_set} is not in dataset {dataset.slug!r}")
    for run in runs:
        if run.dataset_id != dataset.pk:
            raise PoolError(f"run {run} is not in dataset {dataset.slug!r}")
    # A run left "running" by a task that died is refused as failed, with why, not as running.
    run_fail_stale(runs=runs)
    current = {
        pk: (status, error)
        for pk, status, error in Run.objects.filter(pk__in=[r.pk for r in runs]).values_list(
            "pk", "status", "error"
        )
    }
    for run in runs:
        status, error = current.get(run.pk, ("deleted", ""))
        if status != Run.Status.DONE:
            reason = f": {error}" if error else ""
            raise PoolError(f"run {run.name!r} is {status}, not done{reason}")
    name = name or pool_default_name(qrel_set=qrel_set, depth=depth, include_judged=include_judged)
    subset = sorted(set(queries)) if queries else []
    if subset:
        known = set(
            Query.objects.filter(dataset=dataset, query_id__in=subset).values_list(
                "query_id", flat=True
            )
        )
        unknown = [q for q in subset if q not in known]
        if unknown:
            raise PoolError(f"unknown query id(s) in {dataset.slug!r}: {', '.join(unknown)}")
    with transaction.atomic():
        pool, created = Pool.objects.select_for_update().get_or_create(
            dataset=dataset,
            name=name,
            defaults={
                "qrel_set": qrel_set,
                "depth": depth,
                "include_judged": include_judged,
                "query_ids": subset,
            },
        )
        if not created and (
            pool.qrel_set_id != qrel_set.pk
            or pool.depth != depth
            or pool.include_judged != include_judged
            or pool.query_ids != subset
        ):
            raise PoolError(
                f"pool {name!r} exists with qrels {pool.qrel_set.name!r}, depth {pool.depth}, "
                f"include_judged={pool.include_judged}, "
                f"{len(pool.query_ids) or 'all'} queries; use another name"
            )
        pool.runs.add(*runs)
        pooled_runs = list(pool.runs.all())
        judged_queries = qrel_set.qrels.values("query_id")
        if subset:
            judged_queries = judged_queries.filter(query__query_id__in=subset)
        entries = RunEntry.objects.filter(
            run__in=pooled_runs, rank__lte=depth, query_id__in=judged_queries
        ).values_list("run_id", "query_id", "document_id", "rank", "score")
        judged = {
            (q, d): rel
            for q, d, rel in qrel_set.qrels.values_list("query_id", "document_id", "relevance")
        }
        result = pooling.pool_candidates(
            entries.iterator(chunk_size=BATCH_SIZE),
            depth=depth,
            judged=judged,
            include_judged=include_judged,
            runs=[r.pk for r in pooled_runs],
        )
        existing = dict(
            ((q, d), pk) for q, d, pk in pool.pairs.values_list("query_id", "document_id", "pk")
        )
        new_pairs = [c for c in result.candidates if (c.query, c.document) not in existing]
        now = timezone.now()
        # COPY: a depth-100 pool of a mid-sized benchmark is tens of thousands of rows.
        _copy_rows(
            "corpora_pair",
            ["pool_id", "query_id", "document_id", "original_relevance", "created"],
            ((pool.pk, c.query, c.document, c.original_relevance, now) for c in new_pairs),
        )
        if new_pairs:
            existing = dict(
                ((q, d), pk) for q, d, pk in pool.pairs.values_list("query_id", "document_id", "pk")
            )
        have = set(PairSource.objects.filter(pair__pool=pool).values_list("pair_id", "run_id"))
        new_sources = [
            (existing[(c.query, c.document)], s.run, s.rank, s.score)
            for c in result.candidates
            for s in c.sources
            if (existing[(c.query, c.document)], s.run) not in have
        ]
        _copy_rows("corpora_pairsource", ["pair_id", "run_id", "rank", "score"], new_sources)
    query_ids = dict(
        Query.objects.filter(pk__in=[s.query for s in result.per_query]).values_list(
            "pk", "query_id"
        )
    )
    # Report queries in benchmark id order, not database id order.
    result.per_query.sort(key=lambda s: query_ids[s.query])
    return PoolBuildReport(
        pool=pool,
        result=result,
        created_pairs=len(new_pairs),
        created_sources=len(new_sources),
        query_ids=query_ids,
        run_names={r.pk: r.name for r in pooled_runs},
    )


def pool_get(*, dataset: Dataset, name: str) -> Pool:
    """The dataset's Pool of this name. Raises ``Pool.DoesNotExist``."""
    return Pool.objects.get(dataset=dataset, name=name)
