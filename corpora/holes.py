"""Holes made on purpose: a qrel set with part of its relevant rows hidden, so that a study
(simulated debaters answering from the whole qrels) has holes to find. Pure, no database.
"""

from __future__ import annotations

import random
from collections.abc import Mapping


def qrels_hide(
    qrels: Mapping[str, Mapping[str, int]], *, hide: float, seed: int
) -> tuple[dict[str, dict[str, int]], int]:
    """``qrels`` (``{query_id: {doc_id: grade}}``) with each relevant row (grade > 0) removed
    with probability ``hide``, and the number removed. Queries and documents are taken in
    sorted order with ``random.Random(seed)``, so the same qrels, share and seed give the same
    rows whatever order they were read in; non-relevant rows are all kept. The removed rows
    become holes, the design of ``simulate_study --hide`` (there drawn anew each replication).
    Raises ValueError when ``hide`` is outside [0, 1]."""
    if not 0.0 <= hide <= 1.0:
        raise ValueError(f"hide: must be between 0 and 1, got {hide}")
    rng = random.Random(seed)
    kept: dict[str, dict[str, int]] = {}
    removed = 0
    for query_id in sorted(qrels):
        rows = kept.setdefault(query_id, {})
        for doc_id, grade in sorted(qrels[query_id].items()):
            if grade > 0 and rng.random() < hide:
                removed += 1
            else:
                rows[doc_id] = grade
    return {q: rows for q, rows in kept.items() if rows}, removed
