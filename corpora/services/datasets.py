"""Datasets: import a BEIR folder, qrels and reference answers; summarise; export qrels.

Every import runs in one transaction: a :class:`~corpora.formats.FormatError` (or any other
error) rolls back everything the import wrote, so bad input changes nothing. This module also
owns the bulk-write and progress helpers (:func:`copy_rows`, :func:`_progress`) that the run
and pool services reuse; a qrels file is read whole and refused once for all its problems
(:mod:`corpora.file_problems`, the ids looked up by :mod:`.file_ids`).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Func, IntegerField, Q, Sum
from django.db.models.functions import Coalesce
from django.utils.text import slugify
from tqdm import tqdm

from core.fixes import OptionFix
from core.names import NameRefused, name_check, name_problem, text_clean, title_check
from core.text import plural

from .. import formats
from ..file_problems import FileProblems, Problem, duplicate_entries
from ..formats import FormatError
from ..identical import IDENTICAL_ID_POLICIES, exclude_by_default
from ..models import Dataset, Document, ImportRecord, Qrel, QrelSet, Query
from ..ordering import code_point
from ..selectors import identical_counts
from .file_ids import UNKNOWN_IDS_FIX as UNKNOWN_IDS_FIX
from .file_ids import check_unknown_ids, qrels_ids_resolve
from .long_texts import dataset_long_texts

BATCH_SIZE = 5000
#: The option that imports a corpus or queries file holding an id twice.
DUPLICATE_IDS_FIX = OptionFix("on_duplicate", "keep-last", "to keep the last record of each")


def _progress(iterable: Iterable, *, desc: str, enabled: bool, unit: str) -> Iterable:
    if not enabled:
        return iterable
    return tqdm(iterable, desc=desc, unit=unit, file=sys.stderr, mininterval=0.5)


def progress_bar(enabled: bool, *, desc: str, unit: str):
    """A callable wrapping an iterable in a tqdm bar on stderr, or None when disabled."""
    if not enabled:
        return None
    return lambda iterable: _progress(iterable, desc=desc, enabled=True, unit=unit)


def copy_rows(table: str, columns: list[str], rows: Iterable[tuple]) -> int:
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

    count = copy_rows("corpora_document", ["dataset_id", "doc_id", "title", "text"], rows())
    if duplicated and on_duplicate is None:
        details = _duplicate_lines(formats.parse_corpus(path), "doc_id", duplicated)
        raise FormatError(
            path,
            None,
            f"{len(duplicated)} duplicate document _id(s)",
            details,
            fix=DUPLICATE_IDS_FIX,
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
            f"{len(duplicated)} duplicate query _id(s)",
            details,
            fix=DUPLICATE_IDS_FIX,
        )
    objs = [
        Query(dataset=dataset, query_id=r.query_id, text=r.text, metadata=r.metadata)
        for r in records.values()
    ]
    Query.objects.bulk_create(objs, batch_size=BATCH_SIZE)
    return len(objs), dropped


def _qrels_read(
    dataset: Dataset, path: Path, *, fmt: str, on_duplicate: str | None, unknown_ids: str
) -> tuple[dict[str, int], dict[str, int], list[formats.QrelRecord], int, list[str]]:
    """Read the qrels file ``path`` whole and check it: bad lines, duplicate pairs (without
    ``on_duplicate``) and unknown ids (with ``unknown_ids="reject"``), refused at once
    (:class:`corpora.file_problems.FileProblems`). Returns ``(query_pk, doc_pk, records
    kept, duplicates resolved, rows dropped for unknown ids)``."""
    if fmt == "trec":
        formats.trec_qrels_header_refuse(path)
    records, bad_lines = formats.read_qrels(path, fmt)
    problems = FileProblems(path)
    problems.add_bad_lines(bad_lines)
    records, dropped, lines = formats.resolve_duplicate_qrels(records, on_duplicate, path)
    if lines and on_duplicate is None:
        problems.add(
            Problem(
                error=formats.duplicate_qrels_error(lines, path),
                entries=duplicate_entries(lines),
                count=len(lines),
                counted=plural(len(lines), "duplicate pair"),
                fix=OptionFix("on_duplicate", "keep-max", "or keep-last to resolve duplicates"),
            )
        )
    query_pk, doc_pk, records, unknown, problem = qrels_ids_resolve(
        dataset, records, path, unknown_ids
    )
    problems.add(problem)
    problems.raise_if_any()
    return query_pk, doc_pk, records, dropped, unknown


def _import_qrels(
    dataset: Dataset,
    path: Path,
    *,
    name: str,
    fmt: str,
    on_duplicate: str | None,
    origin: str = QrelSet.Origin.IMPORTED,
    unknown_ids: str = "reject",
) -> tuple[QrelSet, list[str]]:
    """Import one qrels file as a new QrelSet; return it and the rows dropped for unknown ids
    (``path:line: unknown ... id``, empty unless ``unknown_ids="drop"``)."""
    problem = name_problem(name, field="qrel set name")
    if problem:
        raise FormatError(path, None, problem)
    if QrelSet.objects.filter(dataset=dataset, name=name).exists():
        raise FormatError(path, None, f"qrel set {name!r} already exists in {dataset.slug!r}")
    query_pk, doc_pk, records, dropped, unknown = _qrels_read(
        dataset, path, fmt=fmt, on_duplicate=on_duplicate, unknown_ids=unknown_ids
    )
    qrel_set = QrelSet.objects.create(
        dataset=dataset,
        name=name,
        origin=origin,
        source=str(path),
        duplicate_policy=on_duplicate or "",
        duplicates_resolved=dropped,
        unknown_ids_dropped=len(unknown),
    )
    copy_rows(
        "corpora_qrel",
        ["qrel_set_id", "query_id", "document_id", "relevance"],
        ((qrel_set.pk, query_pk[r.query_id], doc_pk[r.doc_id], r.relevance) for r in records),
    )
    qrel_set_grades_record(qrel_set=qrel_set)
    return qrel_set, unknown


def qrel_set_grades_record(*, qrel_set: QrelSet) -> dict[int, int]:
    """Count ``qrel_set``'s rows per grade and store the counts, lowest and highest grade on
    it (the set's scale, which graded debates read: e.g. NFCorpus test 1: 11,758 and 2: 576,
    min 1, max 2).

    Called once its rows are written (import, refinement); a set without rows gets ``{}``
    and no min/max. One aggregate query and one update. Returns ``{grade: rows}`` ascending.
    """
    counts = dict(
        qrel_set.qrels.order_by()
        .values("relevance")
        .annotate(n=Count("pk"))
        .values_list("relevance", "n")
    )
    ordered = {int(g): int(n) for g, n in sorted(counts.items())}
    qrel_set.grades = {str(g): n for g, n in ordered.items()}
    qrel_set.grade_min = min(ordered) if ordered else None
    qrel_set.grade_max = max(ordered) if ordered else None
    QrelSet.objects.filter(pk=qrel_set.pk).update(
        grades=qrel_set.grades, grade_min=qrel_set.grade_min, grade_max=qrel_set.grade_max
    )
    return ordered


def _find_beir_file(folder: Path, stem: str) -> Path:
    found = formats.beir_file_find(folder, stem)
    if found is None:
        raise FormatError(folder, None, f"no {stem}.jsonl or {stem}.jsonl.gz in the folder")
    return found


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
        stats["unknown_ids_dropped"] = qrel_set.unknown_ids_dropped
        qrels[qrel_set.name] = stats
    return {
        "dataset": dataset.slug,
        "documents": dataset.documents.count(),
        "queries": dataset.queries.count(),
        "qrels": qrels,
    }


def dataset_identical_ids_count(*, dataset: Dataset, policy: str | None = None) -> dict:
    """Count the dataset's identical ids and texts (:func:`corpora.selectors.identical_counts`),
    store them on the dataset and set ``exclude_identical_ids`` from ``policy``
    (``"exclude"``, ``"keep"``, None: :func:`corpora.identical.exclude_by_default`).
    Returns ``{"queries", "ids", "texts", "same_id_and_text", "exclude"}``.
    """
    counts = identical_counts(dataset=dataset)
    if policy is None:
        exclude = exclude_by_default(
            queries=counts.queries, same_id_and_text=counts.same_id_and_text
        )
    else:
        exclude = policy == "exclude"
    dataset.identical_ids = counts.ids
    dataset.identical_texts = counts.texts
    dataset.exclude_identical_ids = exclude
    dataset.save(update_fields=["identical_ids", "identical_texts", "exclude_identical_ids"])
    return {**dataclasses.asdict(counts), "exclude": exclude}


def _beir_splits_chosen(folder: Path, splits: list[str] | None) -> dict[str, Path]:
    """{split: qrels file} of the BEIR ``folder``: every split found, or only ``splits`` in
    that order. Raises :class:`FormatError` naming the splits asked for that are not there."""
    found = formats.beir_qrels_files(folder)
    if splits is not None:
        missing = [s for s in splits if s not in found]
        if missing:
            raise FormatError(
                folder / "qrels",
                None,
                f"no qrels split(s) {', '.join(missing)} (found: {', '.join(found) or 'none'})",
            )
        found = {s: found[s] for s in splits}
    return found


def _dataset_texts_check(
    folder: Path, name: str, slug: str | None, source: str, licence: str
) -> tuple[str, str, str, str]:
    """The dataset's title, slug (made from the title when empty), source and licence, by
    the rules of :mod:`core.names`; FormatError naming ``folder`` and the field if not."""
    try:
        name = title_check(name, field="name")
        slug = slug or slugify(name)
        if not slug:
            raise NameRefused("name: it gives an empty slug; give a slug")
        return (
            name,
            name_check(slug, field="slug"),
            text_clean(source, field="source", max_length=500),
            text_clean(licence, field="licence", max_length=200),
        )
    except NameRefused as exc:
        raise FormatError(folder, None, str(exc)) from None


def _dataset_create(folder: Path, *, name: str, slug: str, source: str, licence: str) -> Dataset:
    """The new Dataset row of an import from ``folder``; raises FormatError when ``slug`` is
    taken, also by another import still running."""
    if Dataset.objects.filter(slug=slug).exists():
        raise FormatError(folder, None, f"dataset {slug!r} already exists")
    try:
        # Another import of the same slug may be running: its row is not visible until it
        # commits, so the check above passes and this insert waits on the unique index, then
        # fails; that is the same refusal, in words.
        with transaction.atomic():
            return Dataset.objects.create(
                name=name, slug=slug, source=source or str(folder), licence=licence
            )
    except IntegrityError:
        raise FormatError(folder, None, f"dataset {slug!r} already exists") from None


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
    unknown_ids: str = "reject",
    identical_ids: str | None = None,
) -> Dataset:
    """Import a BEIR folder (``corpus.jsonl[.gz]``, ``queries.jsonl[.gz]``, ``qrels/*.tsv``).

    Every ``qrels/<split>.tsv[.gz]`` becomes a QrelSet named ``<split>``. The corpus is streamed
    (bounded memory: the set of ids seen, not the texts) and written with COPY on PostgreSQL.
    One transaction: any error leaves the database unchanged. ``on_duplicate`` is None (reject),
    ``"keep-last"`` or ``"keep-max"`` (for qrels; documents and queries keep the last record).
    ``splits`` limits which qrels splits are read (default: all found); naming a split that is
    not there is an error. ``unknown_ids`` is ``"reject"`` (a qrels row naming an id absent
    from the corpus or queries fails the import) or ``"drop"`` (such rows are skipped, counted
    on the qrel set and listed as ``file:line: unknown ... id`` in the ImportRecord's
    ``summary["unknown_ids_dropped"][split]``). ``identical_ids`` sets the dataset's
    ``exclude_identical_ids``: ``"exclude"``, ``"keep"``, or None for
    :func:`corpora.identical.exclude_by_default`; the counts of
    :func:`corpora.selectors.identical_counts` go to ``summary["identical"]``.

    Raises :class:`FormatError` naming file, line and reason, including when the slug is taken.
    """
    started = time.monotonic()
    folder = Path(path)
    if not folder.is_dir():
        raise FormatError(folder, None, "not a folder")
    check_unknown_ids(unknown_ids, folder)
    if identical_ids not in (None, *IDENTICAL_ID_POLICIES):
        raise FormatError(folder, None, f"unknown --identical-ids policy {identical_ids!r}")
    corpus_path = _find_beir_file(folder, "corpus")
    queries_path = _find_beir_file(folder, "queries")
    found = _beir_splits_chosen(folder, splits)
    name, slug, source, licence = _dataset_texts_check(folder, name, slug, source, licence)
    with transaction.atomic():
        dataset = _dataset_create(folder, name=name, slug=slug, source=source, licence=licence)
        _, doc_dupes = _import_documents(
            dataset, corpus_path, on_duplicate=on_duplicate, progress=progress
        )
        _, query_dupes = _import_queries(
            dataset, queries_path, on_duplicate=on_duplicate, progress=progress
        )
        unknown = {}
        for split, qrels_path in found.items():
            _, unknown[split] = _import_qrels(
                dataset,
                qrels_path,
                name=split,
                fmt="beir",
                on_duplicate=on_duplicate,
                unknown_ids=unknown_ids,
            )
        identical = dataset_identical_ids_count(dataset=dataset, policy=identical_ids)
        summary = dataset_summary(dataset=dataset)
        summary["duplicates_dropped"] = {"documents": doc_dupes, "queries": query_dupes}
        summary["unknown_ids_dropped"] = {split: rows for split, rows in unknown.items() if rows}
        summary["identical"] = identical
        summary["long_texts"] = dataset_long_texts(dataset=dataset)
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
    unknown_ids: str = "reject",
) -> QrelSet:
    """Import a qrels file (``trec``: ``qid iter docid rel``; ``beir``: TSV) as a new QrelSet.

    Rejects, changing nothing: an existing set of that name, unknown query or document ids
    (all listed; unless ``unknown_ids="drop"``, which skips their rows, counts them on the
    set and lists them as ``file:line: unknown ... id`` in the ImportRecord's
    ``summary["unknown_ids_dropped_rows"]``), duplicates without a policy, bad grades.
    Raises :class:`FormatError`.
    """
    started = time.monotonic()
    path = Path(path)
    if fmt not in ("trec", "beir"):
        raise FormatError(path, None, f"unknown qrels format {fmt!r}")
    with transaction.atomic():
        qrel_set, unknown = _import_qrels(
            dataset, path, name=name, fmt=fmt, on_duplicate=on_duplicate, unknown_ids=unknown_ids
        )
        summary = dataset_summary(dataset=dataset)["qrels"][name]
        summary["unknown_ids_dropped_rows"] = unknown
        summary["format"] = fmt  # the history names the file's format (kind_shown)
        ImportRecord.objects.create(
            dataset=dataset,
            kind=ImportRecord.Kind.QRELS,
            path=str(path),
            summary=summary,
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


def _slug_of(name: str, slug: str) -> str:
    # The slug a new dataset gets: the one given, else the one made from its name.
    return slug or slugify(name)


def dataset_name_problem(*, name: str, slug: str = "") -> str | None:
    """Why a new dataset cannot be called ``name`` (with ``slug``, "" for the one made from
    the name), naming the field, or None when it can: a slug that comes out empty, or one a
    dataset already has. Read-only and cheap (one indexed lookup): the upload form asks it
    as the name is typed, before any file is sent; the import refuses the same again."""
    made = _slug_of(name, slug)
    field = "slug" if slug else "name"
    if not made:
        return f"{field}: {name!r} gives an empty slug; use letters or digits"
    existing = Dataset.objects.filter(slug=made).values_list("name", flat=True).first()
    if existing is not None:
        return (
            f"{field}: a dataset with slug {made!r} exists already ({existing!r}); choose another"
        )
    return None


def dataset_slug_taken(*, name: str, slug: str = "") -> tuple[str, str] | None:
    """``(slug, free)`` when the slug a new dataset would get (``slug``, or the one made from
    ``name``) is a dataset's already, ``free`` the first of ``slug-2``, ``slug-3``, ... no
    dataset has (100 characters at most); None when it is free or comes out empty. For a
    refusal that names a slug to send instead (the HTTP API)."""
    made = _slug_of(name, slug)
    # An empty slug is a problem of the name, not a taken slug: None, as for a free one.
    if not made or dataset_name_problem(name=name, slug=slug) is None:
        return None
    taken = set(
        Dataset.objects.filter(slug__startswith=f"{made[:95]}-").values_list("slug", flat=True)
    )
    n = 2
    while f"{made[:95]}-{n}" in taken:
        n += 1
    return made, f"{made[:95]}-{n}"


def dataset_get(*, slug: str) -> Dataset:
    """The dataset with this slug. Raises ``Dataset.DoesNotExist``."""
    return Dataset.objects.get(slug=slug)


def qrel_set_get(*, dataset: Dataset, name: str) -> QrelSet:
    """The dataset's QrelSet of this name. Raises ``QrelSet.DoesNotExist``."""
    return QrelSet.objects.get(dataset=dataset, name=name)
