"""Which pooled pairs a simulated study judges: every pair of the depth pool, or the pairs a
pool strategy (:mod:`corpora.pool_strategies`) chooses within a budget. Pure, no database.

A real job can judge a pool in a strategy's order and stop at a budget (``build_pool
--strategy bandit --budget 2000``). The pairs it leaves unjudged stay holes: they count as
not relevant, as any unjudged document does. The study's estimand follows the job: each
system's measure under the starting qrels plus the perfect assessor's label of every pair
the budget *judged*. The pairs chosen depend on the labels seen on the way (``bandit`` and
``mtc`` learn from them), but the audit draws are independent of that choice, so given the
judged pool the audit is still a probability sample of it (Sarndal, Swensson and Wretman
1992, sec. 2.4: a design conditional on a first phase), which is what the simulated study
lets a researcher check before paying for a budgeted job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from corpora.pool_strategies import STRATEGIES, budget_resolve, pool_order


def study_strategy_check(strategy: str, budget: float | None) -> None:
    """Refuse an unknown ``strategy`` or a ``budget`` no pool could take (0 or less, not
    finite, a count that is not a whole number), naming the field as the study design does
    ("strategy: ...", "budget: ..."). Raises ValueError."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy: one of {', '.join(STRATEGIES)}, got {strategy!r}")
    if budget is not None:
        try:
            budget_resolve(budget, pool_size=1)
        except ValueError as exc:
            words = str(exc).removeprefix("budget ")
            raise ValueError(f"budget: {words}") from None


def study_pool_choose(
    *,
    candidates: Sequence[tuple[str, str]],
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    queries: Sequence[str],
    start: Mapping[str, Mapping[str, int]],
    depth: int,
    strategy: str,
    budget: float | None,
    seen: Mapping[tuple[str, str], int],
) -> list[tuple[str, str]]:
    """The candidates a job judges, in ``candidates``' order: all of them with no budget
    (every strategy then judges the whole pool, in some order); else the first pairs of
    ``strategy``'s judging order that the budget allows.

    ``candidates``: the depth pool's unjudged ``(query_id, doc_id)`` pairs; ``runs``: system
    → query → documents in rank order (cut here at ``depth``, to the evaluated ``queries``);
    ``start``: the starting qrels, which adaptive strategies learn from before the first
    pair; ``budget``: pairs (a whole number, at least 1) or a share of the candidates (below
    1), as :func:`corpora.pool_strategies.budget_resolve` reads it, None for every pair;
    ``seen``: the label each candidate would reach the strategy with (its consensus, or an
    escalated pair's human label, as if people answered before the next batch), which
    ``bandit`` and ``mtc`` observe as they go. Raises ValueError as ``budget_resolve`` does.
    """
    if budget is None:
        return list(candidates)
    count, _ = budget_resolve(budget, pool_size=len(candidates))
    evaluated = set(queries)
    cut = {
        run: {q: list(docs[:depth]) for q, docs in per_query.items() if q in evaluated}
        for run, per_query in runs.items()
    }
    known = {(q, d): g for q, judged in start.items() for d, g in judged.items()}
    chosen = set(
        pool_order(strategy, cut, labels=known, budget=count, oracle=lambda q, d: seen[(q, d)])
    )
    return [pair for pair in candidates if pair in chosen]
