"""Replaying a pool strategy against a collection's qrels, as if its pairs were being judged.
Pure, no database.

A collection with dense judgments (cisi, cranfield, med, vaswani) knows the answer for every
pair a depth-k pool holds (a pair the qrels do not list counts as non-relevant, as trec_eval
counts it). The replay asks a strategy (:func:`corpora.pool_strategies.pool_order`) for its
judging order with the qrels as the oracle, stops at the budget, and compares what the budget
judged with what the whole depth pool judges: how many of the pool's relevant pairs it found,
and how far the leaderboard (systems by mean nDCG@10) built from the judged pairs agrees with
the one from the whole pool (τ_AP, Yilmaz, Aslam & Robertson, SIGIR 2008). This is the
evaluation of Losada et al. (IPM 2017) and of Carterette et al. (SIGIR 2006).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from ir_measures import nDCG

from corpora.pool_strategies import StrategyParams, budget_resolve, pool_order

from .metrics import NDCG10, evaluate_run
from .ranking import tau_ap

NDCG_ONLY = MappingProxyType({NDCG10: nDCG @ 10})
DEFAULT_PARAMS = StrategyParams()


@dataclass
class PoolReplay:
    """One replay. ``judged`` pairs the budget judged, ``relevant_found`` of them relevant;
    ``depth_pool_judged`` pairs in the whole depth pool, ``relevant_in_depth_pool`` of them
    relevant; ``tau_ap`` between the leaderboards, tau_AP,b (Urbano & Marrero, ICTIR 2017:
    tie-aware, symmetric; None with fewer than 2 systems), ``tau_ap_a`` Yilmaz et al.'s
    asymmetric tau_AP with the whole pool as the truth (None when it ties); ``curve[i]``
    relevant pairs found after judging ``i + 1`` pairs; ``scores_pool`` and ``scores_budget``
    each system's mean nDCG@10 over ``queries`` queries; ``note`` says in words how the
    budget was resolved and why ``tau_ap`` is None, when it is ("" otherwise)."""

    strategy: str
    budget: int
    judged: int
    relevant_found: int
    depth_pool_judged: int
    relevant_in_depth_pool: int
    tau_ap: float | None
    tau_ap_a: float | None
    queries: int
    scores_pool: dict[str, float]
    scores_budget: dict[str, float]
    curve: list[int] = field(default_factory=list)
    note: str = ""

    def as_json(self) -> dict[str, object]:
        """The replay's JSON object: the interface keys first (``strategy``, ``judged``,
        ``relevant_found``, ``depth_pool_judged``, ``relevant_in_depth_pool``, ``tau_ap``),
        then the budget, the shares, the query count and each system's nDCG@10 both ways."""
        pool = self.depth_pool_judged
        rel = self.relevant_in_depth_pool
        return {
            "strategy": self.strategy,
            "judged": self.judged,
            "relevant_found": self.relevant_found,
            "depth_pool_judged": pool,
            "relevant_in_depth_pool": rel,
            "tau_ap": None if self.tau_ap is None else round(self.tau_ap, 6),
            "tau_ap_a": None if self.tau_ap_a is None else round(self.tau_ap_a, 6),
            "budget": self.budget,
            "judged_share": round(self.judged / pool, 6) if pool else None,
            "relevant_share": round(self.relevant_found / rel, 6) if rel else None,
            "queries": self.queries,
            "systems": len(self.scores_pool),
            "ndcg10_depth_pool": {s: round(v, 6) for s, v in sorted(self.scores_pool.items())},
            "ndcg10_budget": {s: round(v, 6) for s, v in sorted(self.scores_budget.items())},
            "note": self.note,
        }


def pool_replay(
    strategy: str,
    rankings: Mapping[str, Mapping[str, Sequence[str]]],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    depth: int,
    budget: float | None,
    params: StrategyParams = DEFAULT_PARAMS,
) -> PoolReplay:
    """Replay ``strategy`` over the depth pool of ``rankings`` with ``qrels`` as the oracle.

    ``rankings``: run name → query id → document ids in rank order, at least
    ``max(depth, 10)`` deep where the run has them; the pool is every run's top ``depth``
    of the queries ``qrels`` judges, and the leaderboards score each run's top 10.
    ``budget``: pairs (a whole number ≥ 1) or a share of the depth pool (below 1),
    see :func:`corpora.pool_strategies.budget_resolve`; None judges the whole pool.
    A grade ≥ ``params.rel_level`` is relevant. Returns a :class:`PoolReplay`.
    Raises ValueError when no run ranks a query of ``qrels`` (nothing to pool), when some
    run ranks none (naming it: it would score 0 on both leaderboards) or ``depth`` is below 1.
    """
    if depth < 1:
        raise ValueError(f"pool depth must be at least 1, got {depth}")
    judged_queries = {q for q, j in qrels.items() if j}
    cut = {
        run: {q: list(docs[:depth]) for q, docs in per_query.items() if q in judged_queries}
        for run, per_query in rankings.items()
    }
    top10 = {
        run: {q: list(docs[:10]) for q, docs in per_query.items() if q in judged_queries}
        for run, per_query in rankings.items()
    }
    idle = sorted(run for run, per_query in cut.items() if not any(per_query.values()))
    if idle and len(idle) < len(cut):
        raise ValueError(
            f"run(s) {', '.join(idle)} rank none of the queries the qrels judge (no overlap "
            "with the pool): leave them out with --runs"
        )
    truth = {
        (q, d): qrels.get(q, {}).get(d, 0)
        for per_query in cut.values()
        for q, docs in per_query.items()
        for d in docs
    }
    if not truth:
        raise ValueError("no run ranks a query the qrels judge: there is no pool to replay")
    count, note = budget_resolve(budget, pool_size=len(truth))
    order = pool_order(
        strategy, cut, budget=count, oracle=lambda q, d: truth[(q, d)], params=params
    )
    curve, found = [], 0
    for pair in order:
        found += truth[pair] >= params.rel_level
        curve.append(found)
    queries = sorted(judged_queries & {q for per in cut.values() for q in per})
    pool_scores = _leaderboard(top10, truth, queries)
    budget_scores = _leaderboard(top10, {p: truth[p] for p in order}, queries)
    return PoolReplay(
        strategy=strategy,
        budget=count,
        judged=len(order),
        relevant_found=found,
        depth_pool_judged=len(truth),
        relevant_in_depth_pool=sum(g >= params.rel_level for g in truth.values()),
        tau_ap=tau_ap(pool_scores, budget_scores) if len(pool_scores) > 1 else None,
        tau_ap_a=_tau_ap_a(pool_scores, budget_scores),
        queries=len(queries),
        scores_pool=pool_scores,
        scores_budget=budget_scores,
        curve=curve,
        note="; ".join(n for n in (note, tau_ap_missing(pool_scores, budget_scores)) if n),
    )


def tau_ap_missing(pool_scores: Mapping[str, float], budget_scores: Mapping[str, float]) -> str:
    """Why the replay has no tau_AP,b, in words ("" when it has one): it needs at least 2
    systems, and neither leaderboard may tie every system (:func:`.ranking.tau_ap` returns
    None then: there is no order to compare)."""
    head = "τ_AP needs at least 2 systems not all tied"
    if len(pool_scores) < 2:
        names = ", ".join(sorted(pool_scores)) or "none"
        return f"{head}: only {len(pool_scores)} system ({names})"
    tied = [
        f"every system ties at {next(iter(board.values())):.3f} on {name}"
        for name, board in (
            ("the whole depth pool's leaderboard", pool_scores),
            ("the judged pairs' leaderboard", budget_scores),
        )
        if len(set(board.values())) < 2
    ]
    return f"{head}: {' and '.join(tied)}" if tied else ""


def _tau_ap_a(pool_scores: dict[str, float], budget_scores: dict[str, float]) -> float | None:
    """Yilmaz et al.'s asymmetric tau_AP with the whole pool's leaderboard as the truth
    (tau_AP,a), or None when that leaderboard ties (tau_AP,a needs a strict truth)."""
    if len(pool_scores) < 2 or len(set(pool_scores.values())) < len(pool_scores):
        return None
    return tau_ap(pool_scores, budget_scores, variant="a")


def _leaderboard(
    rankings: Mapping[str, Mapping[str, Sequence[str]]],
    labels: Mapping[tuple[str, str], int],
    queries: list[str],
) -> dict[str, float]:
    """Each run's mean nDCG@10 over ``queries`` against ``labels`` (unlabelled = not
    relevant), by ir_measures."""
    qrels: dict[str, dict[str, int]] = {}
    for (q, d), grade in labels.items():
        qrels.setdefault(q, {})[d] = grade
    scores = {}
    for run, per_query in rankings.items():
        as_run = {
            q: {d: float(-rank) for rank, d in enumerate(docs, start=1)}
            for q, docs in per_query.items()
        }
        aggregate, _ = evaluate_run(
            qrels, as_run, measures=NDCG_ONLY, queries=queries, paper_variant=False
        )
        scores[run] = aggregate[NDCG10]
    return scores
