"""How good is the assessor: recall per class, balanced accuracy, escalation rate (and, for
graded gold, exact and within-one accuracy and a confusion matrix). Pure logic.

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
pair to measure. Each recall has its 95% Wilson interval and the balanced accuracy the
MOVER interval built from them (:mod:`core.proportions`): a sample of 40 pairs leaves
them wide, and the interval says how wide.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeGuard

from core.proportions import Proportion, mean_interval, wilson_interval

# Benchmarks whose judgments are dense enough that an unjudged, top-ranked document of a
# judged query may be taken as irrelevant (see docs/debates-and-backends.md, "Measuring the
# assessor").
DENSE_JUDGMENT_DATASETS = ("nfcorpus-test", "nfcorpus", "cranfield", "cisi", "med", "vaswani")


def dense_judgments(slug: str) -> bool:
    """Whether the dataset ``slug`` is known for dense judgments: one of
    :data:`DENSE_JUDGMENT_DATASETS`, or a copy of one named after it with a suffix
    (``nfcorpus-test-half``, the stage-0 study's import with half its relevant rows
    hidden). Its unjudged top-ranked pairs of judged queries may be taken as irrelevant."""
    return any(slug == name or slug.startswith(name + "-") for name in DENSE_JUDGMENT_DATASETS)


ESCALATED = "escalated"
FAILED = "failed"

Outcome = int | str  # 1, 0, ESCALATED or FAILED


@dataclass(frozen=True, slots=True)
class Recalls:
    """Recall of the irrelevant (0) and relevant (1) class and their mean, each None when
    undefined, from the counts behind them: ``*_right`` of ``*_n`` pairs of that gold class
    labelled right. Each recall comes with its 95% Wilson interval and the balanced accuracy
    with the MOVER interval of a mean of two independent shares
    (:func:`core.proportions.mean_interval`): the two recalls are measured on disjoint pairs."""

    irrelevant_right: int
    irrelevant_n: int
    relevant_right: int
    relevant_n: int

    @property
    def irrelevant(self) -> float | None:
        """Recall of the non-relevant pairs (right / n), None without one."""
        return _ratio(self.irrelevant_right, self.irrelevant_n)

    @property
    def relevant(self) -> float | None:
        """Recall of the relevant pairs (right / n), None without one."""
        return _ratio(self.relevant_right, self.relevant_n)

    @property
    def balanced_accuracy(self) -> float | None:
        if self.irrelevant is None or self.relevant is None:
            return None
        return (self.irrelevant + self.relevant) / 2

    @property
    def irrelevant_interval(self) -> Proportion:
        """The 95% Wilson interval of :attr:`irrelevant` (Wilson, JASA 1927)."""
        return wilson_interval(self.irrelevant_right, self.irrelevant_n)

    @property
    def relevant_interval(self) -> Proportion:
        """The 95% Wilson interval of :attr:`relevant` (Wilson, JASA 1927)."""
        return wilson_interval(self.relevant_right, self.relevant_n)

    @property
    def balanced_accuracy_interval(self) -> tuple[float, float] | None:
        """(low, high) at 95%, or None when a class has no pair to measure."""
        return mean_interval(self.irrelevant_interval, self.relevant_interval)


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
        settled=Recalls(correct[0], settled[0], correct[1], settled[1]),
        with_humans=Recalls(
            correct[0] + escalated[0], total[0], correct[1] + escalated[1], total[1]
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


# ---------------------------------------------------------------------------------------------
# Graded gold (grades 0..G): our extension for graded debates (see debates.rubric)


@dataclass(frozen=True, slots=True)
class GradedScores:
    """Scores of one assessor against graded gold (grades 0..``max_grade``).

    On settled pairs (escalated and failed ones left out, as in the binary "on settled"
    reading): ``exact_accuracy`` = share whose grade equals the gold grade;
    ``within_one_accuracy`` = share off by at most one grade; ``binary`` = recall of each
    side at the relevance level (a grade >= ``relevance_level`` is relevant, as trec_eval's
    ``-l`` reads graded qrels) and their mean, the balanced accuracy. ``confusion[g][p]``
    counts settled pairs of gold grade g given grade p; ``escalated_by_gold[g]`` and
    ``failed_by_gold[g]`` count the others per gold grade. Shares are 0..1, None when
    nothing was settled (or a side has no settled pair, for the recalls).
    """

    max_grade: int
    relevance_level: int
    pairs: int
    settled_count: int
    escalated: int
    failed: int
    exact_accuracy: float | None
    within_one_accuracy: float | None
    binary: Recalls
    confusion: tuple[tuple[int, ...], ...]
    escalated_by_gold: tuple[int, ...]
    failed_by_gold: tuple[int, ...]
    coverage: float
    escalation_rate: float
    calls_per_pair: float


def graded_scores(
    rows: Iterable[tuple[int, Outcome]],
    *,
    max_grade: int,
    relevance_level: int = 1,
    calls: int = 0,
) -> GradedScores:
    """Score ``rows`` of ``(gold grade, outcome)``: gold 0..G, outcome a grade 0..G,
    ESCALATED or FAILED. ``calls`` is the LLM calls spent on these pairs.

    Exact and within-one accuracy are the usual ordinal agreement shares (as in UMBRELA's
    evaluation, Upadhyay et al. 2024); the balanced accuracy at the relevance level is
    DREAM's measure (Ban et al., 2026) on the graded labels cut at ``relevance_level``.
    Raises ValueError for a gold grade or outcome outside 0..G (booleans included), or a
    relevance level outside 1..G.
    """
    if not 1 <= relevance_level <= max_grade:
        raise ValueError(f"relevance level must be in 1..{max_grade}, got {relevance_level}")
    grades = range(max_grade + 1)

    def is_grade(value: object) -> TypeGuard[int]:
        return isinstance(value, int) and not isinstance(value, bool) and value in grades

    confusion = [[0] * (max_grade + 1) for _ in grades]
    escalated = [0] * (max_grade + 1)
    failed = [0] * (max_grade + 1)
    pairs = 0
    for gold, outcome in rows:
        if not is_grade(gold):
            raise ValueError(f"gold grade must be in 0..{max_grade}, got {gold!r}")
        pairs += 1
        if outcome == ESCALATED:
            escalated[gold] += 1
        elif outcome == FAILED:
            failed[gold] += 1
        elif is_grade(outcome):
            confusion[gold][outcome] += 1
        else:
            raise ValueError(
                f"outcome must be a grade 0..{max_grade}, {ESCALATED!r} or {FAILED!r}, "
                f"got {outcome!r}"
            )
    settled = sum(map(sum, confusion))
    exact = sum(confusion[g][g] for g in grades)
    near = sum(confusion[g][p] for g in grades for p in grades if abs(g - p) <= 1)
    relevant = [g >= relevance_level for g in grades]
    side_total = {True: 0, False: 0}
    side_right = {True: 0, False: 0}
    for g in grades:
        for p in grades:
            side_total[relevant[g]] += confusion[g][p]
            side_right[relevant[g]] += confusion[g][p] * (relevant[g] == relevant[p])
    return GradedScores(
        max_grade=max_grade,
        relevance_level=relevance_level,
        pairs=pairs,
        settled_count=settled,
        escalated=sum(escalated),
        failed=sum(failed),
        exact_accuracy=_ratio(exact, settled),
        within_one_accuracy=_ratio(near, settled),
        binary=Recalls(side_right[False], side_total[False], side_right[True], side_total[True]),
        confusion=tuple(tuple(row) for row in confusion),
        escalated_by_gold=tuple(escalated),
        failed_by_gold=tuple(failed),
        coverage=_ratio(settled, pairs) or 0.0,
        escalation_rate=_ratio(sum(escalated), pairs) or 0.0,
        calls_per_pair=_ratio(calls, pairs) or 0.0,
    )


def gold_grade(relevance: int | None, *, max_grade: int) -> int:
    """Graded gold from a qrels grade: negative, 0 or unjudged (None, in a benchmark with
    dense judgments) is 0; a grade above G (none when G is the qrels' top grade) is G."""
    if relevance is None or relevance <= 0:
        return 0
    return min(relevance, max_grade)


def stratified_sample_by_grade(groups: dict[int, list], *, size: int, rng) -> dict[int, list]:
    """Draw ``size`` items spread as evenly as possible over the grades of ``groups``
    (``{grade: items}``), without replacement: each grade gets ``size // k`` (the lowest
    grades one more for the remainder, k = number of grades); a grade with too few items
    gives all it has and the others, lowest grade first, fill up.

    ``rng`` is a ``random.Random``; the items must be in a canonical order for the draw to be
    reproducible. Returns ``{grade: drawn items in input order}`` for every grade given.
    Raises ValueError if ``size`` < the number of grades.
    """
    order = sorted(groups)
    if size < len(order):
        raise ValueError(f"sample size must be at least {len(order)} (one per grade), got {size}")
    want = {g: size // len(order) + (i < size % len(order)) for i, g in enumerate(order)}
    want = {g: min(n, len(groups[g])) for g, n in want.items()}
    spare = size - sum(want.values())
    for g in order:
        extra = min(spare, len(groups[g]) - want[g])
        want[g] += extra
        spare -= extra
    return {
        g: [groups[g][i] for i in sorted(rng.sample(range(len(groups[g])), want[g]))] for g in order
    }
