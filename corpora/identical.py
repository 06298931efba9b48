"""Identical ids: a query whose own document is in the corpus (same id). Pure, no database.

In ArguAna and Quora (BEIR, Thakur et al., 2021) each query is itself a document of the
corpus, with the same id: BM25 ranks it first for nearly every query, and as relevant-looking
as it is, it is not an answer. BEIR evaluates these datasets with
``EvaluateRetrieval.evaluate(..., ignore_identical_ids=True)`` (``beir/retrieval/evaluation.py``),
which drops every run entry whose document id equals its query id before scoring. A dataset
with ``exclude_identical_ids`` set applies the same rule everywhere: built-in retrievers never
return the query's own id, pools never hold a self-pair, refined qrels never add one, and
every evaluation skips self entries of imported runs through :func:`skip_identical`.

Ids alone do not make a self-pair dataset: Cranfield, CISI, CACM, MED, ADI and Vaswani number
queries and documents 1, 2, 3... independently, so every query id is also a document id there
while the texts differ. :func:`exclude_by_default` therefore asks for the same id *and* the
same text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

IDENTICAL_ID_POLICIES = ("exclude", "keep")


def exclude_by_default(*, queries: int, same_id_and_text: int) -> bool:
    """Whether ``exclude_identical_ids`` is on for a newly imported dataset: when more than
    half of its ``queries`` have a document with the same id and the same text
    (``same_id_and_text``). ArguAna: 1,298 of 1,406 → True; Cranfield: 0 of 225 → False."""
    return queries > 0 and 2 * same_id_and_text > queries


def skip_identical(rows: Iterable[tuple], *, enabled: bool) -> tuple[list[tuple], int]:
    """``(rows kept, rows skipped)``: with ``enabled``, the rows whose first two items (query
    id, document id: run rows ``(query_id, doc_id, rank, score)`` or qrels rows
    ``(query_id, doc_id, grade)``) are equal are left out and counted; otherwise every row is
    kept and 0 skipped. Order is kept."""
    rows = list(rows)
    if not enabled:
        return rows, 0
    kept = [row for row in rows if row[0] != row[1]]
    return kept, len(rows) - len(kept)


def skip_identical_qrels(
    qrels: Mapping[str, Mapping[str, int]], *, enabled: bool
) -> tuple[dict[str, dict[str, int]], int]:
    """``({query_id: {doc_id: grade}}, pairs skipped)``: :func:`skip_identical` for qrels in
    the evaluation core's shape. A query left with no judgment is kept (empty)."""
    if not enabled:
        return {q: dict(docs) for q, docs in qrels.items()}, 0
    out = {q: {d: g for d, g in docs.items() if d != q} for q, docs in qrels.items()}
    skipped = sum(len(docs) for docs in qrels.values()) - sum(len(d) for d in out.values())
    return out, skipped
