"""The human budget's order: which pairs humans see first. Pure: no database.

A pair's **impact on the benchmark** is the sum, over the runs that retrieved it, of its
nDCG@10 discount 1/log2(rank + 1) for rank <= 10 (0 beyond): the weight its label carries in
those runs' nDCG@10 (K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
techniques", ACM TOIS 20(4), 2002). With a budget of N pairs, the N pairs of highest impact
go to humans, ties by query id then doc id (code-point order).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

NDCG_CUTOFF = 10


def ndcg_discount(rank: int) -> float:
    """nDCG@10's discount of a 1-based ``rank``: 1/log2(rank + 1) up to rank 10, else 0.
    Raises ValueError for a rank below 1."""
    if rank < 1:
        raise ValueError(f"ranks start at 1, got {rank}")
    return 1.0 / math.log2(rank + 1) if rank <= NDCG_CUTOFF else 0.0


def pair_impact(ranks: Iterable[int]) -> float:
    """Impact of one pair: the sum of :func:`ndcg_discount` over the ranks at which the
    runs retrieved it (one rank per run). E.g. ranks 1 and 3: 1 + 1/log2(4) = 1.5."""
    return sum(ndcg_discount(rank) for rank in ranks)


@dataclass(frozen=True, slots=True)
class BudgetEntry:
    """One review item as the budget sees it: ``started`` when a human already holds or
    judged it (it keeps its place), its impact and the pair's ids."""

    item_id: int
    impact: float
    query_id: str
    doc_id: str
    started: bool = False


def budget_order(entries: Sequence[BudgetEntry]) -> list[int]:
    """Item ids in budget order: started items first (a budget never takes back a pair a
    human already has), then impact descending, query id, doc id, item id. Rank r (1-based)
    in this list is within a budget N when r <= N."""
    ordered = sorted(
        entries, key=lambda e: (not e.started, -e.impact, e.query_id, e.doc_id, e.item_id)
    )
    return [e.item_id for e in ordered]


def budget_coverage(impacts_in_order: Sequence[float], budget: int | None) -> float | None:
    """Share of the total impact of the items (given in budget order) that a budget of
    ``budget`` items covers; None when the total is 0 (no item, or none retrieved in a top
    10), 1.0 for no budget (None)."""
    total = sum(impacts_in_order)
    if total <= 0:
        return None
    if budget is None:
        return 1.0
    return sum(impacts_in_order[:budget]) / total
