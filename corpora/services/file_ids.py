"""The ids a qrels or run file names, looked up in its dataset: unknown ones refused (one
kind of the file's problems, :mod:`corpora.file_problems`) or their rows dropped, counted
and listed (``--unknown-ids``). Read-only: lookups in batches, no writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from core.fixes import OptionFix
from core.text import plural

from .. import formats
from ..file_problems import Problem, unknown_entries
from ..formats import FormatError
from ..models import Dataset, Document, Query

# Ids looked up in one query (as many as a COPY batch of the imports).
LOOKUP_BATCH = 5000


def id_maps(dataset: Dataset, records: Iterable) -> tuple[dict[str, int], dict[str, int]]:
    """``(query_id → pk, doc_id → pk)`` for the ids ``records`` name that exist in ``dataset``,
    looked up in batches; ids missing from the dataset are simply absent."""
    query_ids = sorted({r.query_id for r in records})
    doc_ids = sorted({r.doc_id for r in records})
    query_pk: dict[str, int] = {}
    doc_pk: dict[str, int] = {}
    for start in range(0, len(query_ids), LOOKUP_BATCH):
        query_pk.update(
            Query.objects.filter(
                dataset=dataset, query_id__in=query_ids[start : start + LOOKUP_BATCH]
            ).values_list("query_id", "pk")
        )
    for start in range(0, len(doc_ids), LOOKUP_BATCH):
        doc_pk.update(
            Document.objects.filter(
                dataset=dataset, doc_id__in=doc_ids[start : start + LOOKUP_BATCH]
            ).values_list("doc_id", "pk")
        )
    return query_pk, doc_pk


# Unknown ids: a qrels or run row naming an id absent from the dataset is rejected or dropped.
#: The option that imports a file whose rows name unknown ids, skipping those rows.
UNKNOWN_IDS_FIX = OptionFix("unknown_ids", "drop", "to skip those rows (counted and listed)")
#: The same, worded in a refusal of several kinds of problem (:mod:`corpora.file_problems`).
UNKNOWN_IDS_MANY_FIX = OptionFix(
    "unknown_ids", "drop", "to skip the rows with unknown ids (counted and listed)"
)


def unknown_id_rows(records: list, query_pk: dict, doc_pk: dict, path: Path) -> list[str]:
    """One ``path:line: unknown ... id 'X'`` line per record naming an unknown id."""
    return [
        f"{path}:{r.line}: unknown query id {r.query_id!r}"
        if r.query_id not in query_pk
        else f"{path}:{r.line}: unknown document id {r.doc_id!r}"
        for r in records
        if r.query_id not in query_pk or r.doc_id not in doc_pk
    ]


def check_unknown_ids(policy: str, path: Path) -> None:
    """Raise FormatError (naming ``path``) unless ``policy`` is an ``--unknown-ids`` policy
    (reject or drop)."""
    if policy not in formats.UNKNOWN_ID_POLICIES:
        raise FormatError(
            path, None, f"unknown --unknown-ids policy {policy!r} (expected reject or drop)"
        )


def _id_lines(records: list[formats.QrelRecord]) -> dict[tuple[str, str], str]:
    """Where each id of ``records`` is found, in words: ``{("query" | "doc", id): "line 4"
    | "line 4 and 12 more lines"}`` (its first line, so that a refusal listing an unknown id
    points at a line to fix, and how many others name it)."""
    found: dict[tuple[str, str], list[int]] = {}
    for r in records:
        found.setdefault(("query", r.query_id), []).append(r.line)
        found.setdefault(("doc", r.doc_id), []).append(r.line)
    return {
        key: f"line {min(at)}"
        + (f" and {len(at) - 1:,} more line{'s' if len(at) > 2 else ''}" if len(at) > 1 else "")
        for key, at in found.items()
    }


def qrels_ids_resolve(
    dataset: Dataset, records: list[formats.QrelRecord], path: Path, unknown_ids: str = "reject"
) -> tuple[dict[str, int], dict[str, int], list[formats.QrelRecord], list[str], Problem | None]:
    """Map the qrels' query and doc ids to primary keys: ``(query_pk, doc_pk, records kept,
    dropped, problem)``. Unknown ids are a problem listing them (``unknown_ids="reject"``),
    raised with the file's others, or their rows skipped (``"drop"``), ``dropped`` listing
    each as ``path:line: unknown ... id``."""
    check_unknown_ids(unknown_ids, path)
    query_pk, doc_pk = id_maps(dataset, records)
    if unknown_ids == "drop":
        dropped = unknown_id_rows(records, query_pk, doc_pk, path)
        kept = [r for r in records if r.query_id in query_pk and r.doc_id in doc_pk]
        return query_pk, doc_pk, kept, dropped, None
    missing_queries = sorted({r.query_id for r in records} - query_pk.keys())
    missing_docs = sorted({r.doc_id for r in records} - doc_pk.keys())
    if not missing_queries and not missing_docs:
        return query_pk, doc_pk, records, [], None
    entries = unknown_entries(records, query_pk, doc_pk)
    lines = _id_lines(records)
    details = [f"unknown query id {q!r} ({lines['query', q]})" for q in missing_queries]
    details += [f"unknown document id {d!r} ({lines['doc', d]})" for d in missing_docs]
    error = FormatError(
        path,
        min(line for line, _ in entries),
        f"qrels name {len(missing_queries)} unknown query id(s) and "
        f"{len(missing_docs)} unknown document id(s) in dataset {dataset.slug!r}",
        details,
        fix=UNKNOWN_IDS_FIX,
    )
    problem = unknown_ids_problem(error, entries)
    return query_pk, doc_pk, records, [], problem


def unknown_ids_problem(error: FormatError, entries: list[tuple[int, str]]) -> Problem:
    """The rows naming unknown ids (``entries``, :func:`corpora.file_problems.unknown_entries`)
    as one kind of a file's problems, ``error`` its refusal alone."""
    return Problem(
        error=error,
        entries=entries,
        count=len(entries),
        counted=plural(len(entries), "row with an unknown id", "rows with unknown ids"),
        fix=UNKNOWN_IDS_MANY_FIX,
    )
