"""What moved the leaderboard: corrections of original grades apart from filled holes. Pure:
no database.

A refined set differs from its original qrels in two ways: *holes* filled (pairs the
original never judged, now labelled) and *corrections* (judged pairs whose grade a human
verdict replaced, e.g. after a check of the judged pairs, :mod:`debates.check_judged`).
:func:`qrels_split` separates them from the two qrel sets alone: a pair in both with another
grade is a correction, a pair only in the refined set a hole. :func:`effects_compute` then
ranks every run on four qrel sets, the original, the original with the corrections only,
the original with the holes only, and the refined set (both), so each change's share of the
movement is seen on its own (a one-factor-at-a-time comparison; the two effects need not
add up to both, since nDCG's ideal ranking is made from every judgment of a query).

Evaluation queries are those judged in the original qrels, as in
:func:`assess.evaluation.metrics.rebenchmark`; scores are nDCG@10 (linear gains).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ir_measures import nDCG

from .metrics import NDCG10, LeaderboardRow, Qrels, RunInput, evaluate_run, leaderboard
from .tables import Table, number, signed

ORIGINAL, CORRECTIONS, HOLES, BOTH = "original", "corrections only", "holes only", "both"
#: The four qrel sets scored, in column order.
SIDES = (ORIGINAL, CORRECTIONS, HOLES, BOTH)


@dataclass(frozen=True, slots=True)
class QrelsSplit:
    """The two ways a refined set differs from its original: ``corrections_only`` is the
    original with each corrected grade, ``holes_only`` the original plus each filled hole;
    ``corrections`` and ``holes`` count the pairs."""

    corrections_only: dict[str, dict[str, int]]
    holes_only: dict[str, dict[str, int]]
    corrections: int
    holes: int


def qrels_split(original: Qrels, refined: Qrels) -> QrelsSplit:
    """Split ``refined`` against ``original`` (both ``{query_id: {doc_id: grade}}``): a pair
    of both with another grade is a correction, a pair of ``refined`` alone a filled hole;
    a pair of ``original`` alone (no refinement drops one) is kept on every side."""
    corrections = {q: dict(judged) for q, judged in original.items()}
    holes = {q: dict(judged) for q, judged in original.items()}
    corrected = filled = 0
    for query_id, judged in refined.items():
        before = original.get(query_id, {})
        for doc_id, grade in judged.items():
            if doc_id not in before:
                holes.setdefault(query_id, {})[doc_id] = grade
                filled += 1
            elif before[doc_id] != grade:
                corrections[query_id][doc_id] = grade
                corrected += 1
    return QrelsSplit(corrections, holes, corrected, filled)


@dataclass(frozen=True, slots=True)
class Effects:
    """Every run ranked on each side of :data:`SIDES` (``boards``: ``{side: leaderboard}``,
    :func:`assess.evaluation.metrics.leaderboard` rows of nDCG@10), with the pairs corrected
    and the holes filled, over ``queries`` (those judged in the original)."""

    corrections: int
    holes: int
    queries: tuple[str, ...]
    boards: dict[str, list[LeaderboardRow]]

    def as_json(self) -> dict[str, object]:
        """``{"corrections", "holes", "queries", "leaderboards": {side: [{"system", "rank",
        "ndcg@10"}]}}``, the sides of :data:`SIDES` in order (the API's shape)."""
        return {
            "corrections": self.corrections,
            "holes": self.holes,
            "queries": len(self.queries),
            "leaderboards": {
                side: [
                    {"system": r.system, "rank": r.rank, "ndcg@10": r.scores[NDCG10]}
                    for r in self.boards[side]
                ]
                for side in SIDES
            },
        }

    def score(self, side: str, system: str) -> tuple[float, int]:
        """``(nDCG@10, rank)`` of ``system`` on ``side``. Raises KeyError for neither."""
        row = next(r for r in self.boards[side] if r.system == system)
        return row.scores[NDCG10], row.rank


def effects_compute(original: Qrels, refined: Qrels, runs: Mapping[str, RunInput]) -> Effects:
    """Rank ``runs`` (system name to run) by nDCG@10 on the original qrels, the original with
    the corrections only, with the holes only, and the refined qrels (:func:`qrels_split`),
    over the queries judged in ``original``. Raises ValueError for no run or a bad run
    (:func:`assess.evaluation.metrics.rank_run`)."""
    if not runs:
        raise ValueError("the effects of corrections and holes need at least one run")
    split = qrels_split(original, refined)
    qrels = {
        ORIGINAL: original,
        CORRECTIONS: split.corrections_only,
        HOLES: split.holes_only,
        BOTH: refined,
    }
    queries = sorted(q for q, judged in original.items() if judged)
    measures = {NDCG10: nDCG @ 10}
    boards = {
        side: leaderboard(
            {
                system: evaluate_run(
                    qrels[side], run, measures=measures, queries=queries, paper_variant=False
                )[0]
                for system, run in runs.items()
            }
        )
        for side in SIDES
    }
    return Effects(split.corrections, split.holes, tuple(queries), boards)


def effects_table(effects: Effects) -> Table:
    """Per system (in the refined order): nDCG@10 with its rank on each side of
    :data:`SIDES`, and the change against the original of the corrections only, the holes
    only and both."""
    rows: list[tuple[str, ...]] = []
    for row in effects.boards[BOTH]:
        system = row.system
        base = effects.score(ORIGINAL, system)[0]
        cells = [system]
        for side in SIDES:
            value, rank = effects.score(side, system)
            cells.append(f"{number(value)} ({rank})")
        cells += [signed(effects.score(side, system)[0] - base) for side in SIDES[1:]]
        rows.append(tuple(cells))
    return Table(
        title=f"Corrections apart from filled holes ({NDCG10}, rank in brackets)",
        header=(
            "system",
            *SIDES,
            f"Δ {CORRECTIONS}",
            f"Δ {HOLES}",
            f"Δ {BOTH}",
        ),
        rows=rows,
        note=f"Four leaderboards: the original qrels; the original with the "
        f"{effects.corrections:,} corrected grades only; the original with the "
        f"{effects.holes:,} filled holes only; the refined qrels (both). Δ = the side's "
        f"{NDCG10} − the original's, over the {len(effects.queries):,} queries judged in the "
        "original; the two effects need not add up to both (a query's ideal ranking is made "
        "from all its judgments).",
        numeric=(False, *([True] * (len(SIDES) + 3))),
    )
