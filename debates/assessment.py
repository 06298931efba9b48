"""How good is the assessor: recall per class, balanced accuracy, escalation rate. Pure logic.

Each judged pair has a gold label (1 relevant, 0 irrelevant) and an outcome: a label the
assessor settled on, ``ESCALATED`` (the debate went to a human: disagreement after R rounds,
or a reply that could not be read) or ``FAILED`` (an LLM error left no outcome).

Two readings, as in DREAM (Ban et al., ICLR 2026, arXiv 2602.06526, Table 1, where escalated
pairs are labelled by humans):

- **on settled pairs**: recall of class c = settled pairs of gold c labelled c / settled pairs
  of gold c. Escalated and failed pairs are "not labelled" and left out; ``coverage`` says
  which share was settled.
- **with humans assumed correct**: every escalated pair gets its gold label (a human decides
  it correctly); failed pairs count as wrong. Recall of class c = (gold-c pairs labelled c +
  gold-c pairs escalated) / all gold-c pairs. This is the paper's "DREAM with humans" figure
  when humans are perfect, so it is an upper bound of what the pipeline delivers.

Balanced accuracy is the mean of the two recalls (Brodersen et al., "The balanced accuracy
and its posterior distribution", ICPR 2010); it is undefined (None) when a class has no
pair to measure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

ESCALATED = "escalated"
FAILED = "failed"

Outcome = int | str  # 1, 0, ESCALATED or FAILED


@dataclass(frozen=True, slots=True)
class Recalls:
    """Recall of the irrelevant (0) and relevant (1) class and their mean; None if undefined."""

    irrelevant: float | None
    relevant: float | None

    @property
    def balanced_accuracy(self) -> float | None:
        if self.irrelevant is None or self.relevant is None:
            return None
        return (self.irrelevant + self.relevant) / 2


@dataclass(frozen=True, slots=True)
class AssessorScores:
    """Scores of one assessor on ``pairs`` gold-labelled pairs.

    ``settled`` / ``with_humans``: the two readings of the module docstring. ``coverage`` and
    ``escalation_rate`` are shares of all pairs (0..1); ``calls_per_pair`` is LLM calls per
    pair (re-asks included).
    """

    pairs: int
    gold_relevant: int
    gold_irrelevant: int
    settled_count: int
    escalated: int
    failed: int
    settled: Recalls
    with_humans: Recalls
    coverage: float
    escalation_rate: float
    calls_per_pair: float


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _check(outcome: Outcome) -> None:
    if outcome not in (0, 1, ESCALATED, FAILED) or isinstance(outcome, bool):
        raise ValueError(f"outcome must be 0, 1, {ESCALATED!r} or {FAILED!r}, got {outcome!r}")


def assessor_scores(rows: Iterable[tuple[int, Outcome]], *, calls: int = 0) -> AssessorScores:
    """Score ``rows`` of ``(gold, outcome)``: gold 1/0, outcome 1, 0, ESCALATED or FAILED.

    ``calls`` is the total LLM calls spent on these pairs. Raises ValueError for a gold label
    other than 0/1 or an unknown outcome.
    """
    correct = {0: 0, 1: 0}
    settled = {0: 0, 1: 0}
    escalated = {0: 0, 1: 0}
    failed = {0: 0, 1: 0}
    total = {0: 0, 1: 0}
    for gold, outcome in rows:
        if gold not in (0, 1) or isinstance(gold, bool):
            raise ValueError(f"gold label must be 0 or 1, got {gold!r}")
        _check(outcome)
        total[gold] += 1
        if outcome == ESCALATED:
            escalated[gold] += 1
        elif outcome == FAILED:
            failed[gold] += 1
        else:
            settled[gold] += 1
            correct[gold] += int(outcome == gold)
    pairs = total[0] + total[1]
    return AssessorScores(
        pairs=pairs,
        gold_relevant=total[1],
        gold_irrelevant=total[0],
        settled_count=settled[0] + settled[1],
        escalated=escalated[0] + escalated[1],
        failed=failed[0] + failed[1],
        settled=Recalls(
            irrelevant=_ratio(correct[0], settled[0]), relevant=_ratio(correct[1], settled[1])
        ),
        with_humans=Recalls(
            irrelevant=_ratio(correct[0] + escalated[0], total[0]),
            relevant=_ratio(correct[1] + escalated[1], total[1]),
        ),
        coverage=_ratio(settled[0] + settled[1], pairs) or 0.0,
        escalation_rate=_ratio(escalated[0] + escalated[1], pairs) or 0.0,
        calls_per_pair=_ratio(calls, pairs) or 0.0,
    )


def gold_label(relevance: int | None) -> int:
    """Binary gold label from a qrels grade: > 0 relevant; 0, negative or unjudged (None, in a
    benchmark with dense judgments) irrelevant."""
    return 1 if relevance is not None and relevance > 0 else 0


def stratified_sample(relevant: list, irrelevant: list, *, size: int, rng) -> tuple[list, list]:
    """Draw ``size`` items, half from each class (the relevant half rounded down), without
    replacement; a class with too few items gives all it has and the other class fills up.

    ``rng`` is a ``random.Random``; the inputs must be in a canonical order for the draw to
    be reproducible. Returns ``(relevant_drawn, irrelevant_drawn)``, each in input order.
    Raises ValueError if ``size`` < 2.
    """
    if size < 2:
        raise ValueError(f"sample size must be at least 2, got {size}")
    want_rel = min(size // 2, len(relevant))
    want_irr = min(size - want_rel, len(irrelevant))
    want_rel = min(size - want_irr, len(relevant))
    rel_idx = sorted(rng.sample(range(len(relevant)), want_rel))
    irr_idx = sorted(rng.sample(range(len(irrelevant)), want_irr))
    return [relevant[i] for i in rel_idx], [irrelevant[i] for i in irr_idx]
