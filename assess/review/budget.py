"""The human budget's order: which pairs humans see first. Pure: no database.

A pair's **impact on the benchmark** is the sum, over the runs that retrieved it, of its
nDCG@10 discount 1/log2(rank + 1) for rank <= 10 (0 beyond): the weight its label carries in
those runs' nDCG@10 (K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
techniques", ACM TOIS 20(4), 2002). With a budget of N pairs, the N pairs of highest impact
go to humans, ties by query id then doc id (code-point order); an audit's place is kept but
filled by a random audit (:func:`budget_order`).
"""

from __future__ import annotations

import hashlib
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
    judged it (it keeps its place), its impact and the pair's ids; ``audit`` for an audit
    item, with ``draw``, a key independent of its labels (:func:`budget_draw`) that orders
    the audits among themselves."""

    item_id: int
    impact: float
    query_id: str
    doc_id: str
    started: bool = False
    audit: bool = False
    draw: float = 0.0


def budget_draw(job_id: int, pair_id: int) -> float:
    """An audit item's place among the audits a human budget serves: the first 64 bits of
    SHA-256 of ``"budget:<job id>:<pair id>"`` as a fraction of 2^64, uniform on [0, 1),
    reproducible, and independent of the audit's own draw (another salt) and of any label."""
    digest = hashlib.sha256(f"budget:{job_id}:{pair_id}".encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def budget_order(entries: Sequence[BudgetEntry]) -> list[int]:
    """Item ids in budget order: started items first (a budget never takes back a pair a
    human already has), then by impact descending, query id, doc id, item id; rank r
    (1-based) in this list is within a budget N when r <= N.

    The audits keep the places that order gives them, but which audit fills which place is
    decided by ``draw`` (random), not by impact: the audit is a probability sample only if
    the audits a budget leaves unjudged are missing at random. Served by impact, the judged
    audits would be the high-impact pairs (more often relevant, and more often wrong in one
    direction), and the intervals, which treat unjudged audits as missing at random within
    their stratum, would be biased (Little and Rubin, *Statistical Analysis with Missing
    Data*, 2nd ed., 2002, sec. 1.3). With the places kept, a budget serves as many audits as
    before, and each waiting audit equally likely."""
    ordered = sorted(
        entries, key=lambda e: (not e.started, -e.impact, e.query_id, e.doc_id, e.item_id)
    )
    started = [e for e in ordered if e.started]
    waiting = [e for e in ordered if not e.started]
    audits = iter(sorted((e for e in waiting if e.audit), key=lambda e: (e.draw, e.item_id)))
    return [e.item_id for e in started] + [
        next(audits).item_id if e.audit else e.item_id for e in waiting
    ]


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
