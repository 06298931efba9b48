"""The 3-query toy benchmark of the metric tests: original and refined qrels, three systems.

Original qrels (grade > 0 relevant; any grade judged)::

    q1: a=2, b=0, c=1        q2: e=1        q3: h=1, i=0

The refinement (a DREAM pool) adds labels for pooled pairs::

    q1: d=1, x=0             q2: f=1, g=1   q3: j=1

so the holes it fills are q1 {d}, q2 {f, g}, q3 {j}. Runs, in rank order (score desc, then
doc id asc; alpha's q2 is a tie broken by id: e before f)::

    alpha: q1 a, d, b        q2 e, f (tie)  q3 i, j
    beta:  q1 d, c           q2 f, g        q3 j, h
    gamma: q1 b, a           q2 e           q3 z, i

Discounts 1/log2(rank + 1): rank 1 → 1, rank 2 → 0.630930, rank 3 → 0.5.
Ideal DCG, original: q1 (2, 1) 2.630930, q2 (1) 1, q3 (1) 1.
Ideal DCG, refined: q1 (2, 1, 1) 3.130930, q2 (1, 1, 1) 2.130930, q3 (1, 1) 1.630930.
"""

from __future__ import annotations

import math

ORIGINAL = {
    "q1": {"a": 2, "b": 0, "c": 1},
    "q2": {"e": 1},
    "q3": {"h": 1, "i": 0},
}

REFINED = {
    "q1": {"a": 2, "b": 0, "c": 1, "d": 1, "x": 0},
    "q2": {"e": 1, "f": 1, "g": 1},
    "q3": {"h": 1, "i": 0, "j": 1},
}

ALPHA = {
    "q1": {"a": 0.9, "d": 0.8, "b": 0.7},
    "q2": {"f": 0.5, "e": 0.5},
    "q3": {"i": 0.9, "j": 0.8},
}
BETA = {
    "q1": {"d": 0.9, "c": 0.8},
    "q2": {"f": 0.9, "g": 0.8},
    "q3": {"j": 0.9, "h": 0.8},
}
GAMMA = {
    "q1": {"b": 0.9, "a": 0.8},
    "q2": {"e": 0.9},
    "q3": {"z": 0.9, "i": 0.8},
}
RUNS = {"alpha": ALPHA, "beta": BETA, "gamma": GAMMA}

D2 = 1 / math.log2(3)  # discount at rank 2, 0.630930
D3 = 0.5  # discount at rank 3


def as_rows(run: dict[str, dict[str, float]]) -> list[tuple[str, str, int, float]]:
    """A mapping run as ``(qid, docid, rank, score)`` rows, rank numbered in dict order."""
    rows = []
    for query_id, docs in run.items():
        for rank, (doc_id, score) in enumerate(docs.items(), start=1):
            rows.append((query_id, doc_id, rank, score))
    return rows
