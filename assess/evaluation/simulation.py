"""A simulated refinement study: do the intervals of :mod:`assess.evaluation.intervals` cover
the value a perfect assessor would give? Pure, no database.

One replication, from a reference qrels file taken as the perfect assessor's labels (the
*truth*, binarised: a grade >= 1 is relevant):
1. hide: each relevant truth pair is removed from the starting qrels with probability
   ``hide``, so it becomes a hole;
2. pool: every system's top ``depth`` documents per evaluated query that the starting qrels
   do not judge (depth-k pooling, as ``build_pool`` does); with a budget, only the pairs a
   pool strategy's order reaches within it (:mod:`.simulation_pool`; the others stay holes);
3. debate: each pooled pair gets a simulated DREAM debate
   (:class:`debates.simulated.SimulatedAssessor`): consensus or escalation;
4. humans: every escalated pair gets a simulated annotator's label; each agreed pair is
   audited with probability ``audit_share`` (Bernoulli, strata = consensus label x round of
   agreement, all at the same share), or by the impact-weighted design, or by the two-phase
   Neyman design of :mod:`debates.audit_design` (``audit_design="neyman"``: audit units of
   stratum x best rank over the runs; a pilot at a tenth of the share, then the rest of the
   budget by each stratum's error rate seen in the pilot times each rank's DCG discount),
   and audited pairs get a label;
5. the estimand: each system's mean nDCG@10 under the starting qrels plus the truth's label
   of every pooled (judged) pair (a pooled pair the truth does not list is non-relevant). With
   annotators who err (``annotator_error`` > 0) the intervals estimate another value: the
   one under the annotators' labels (every pooled pair labelled by the annotator it had or
   would have had, :func:`annotators_completion`), since the estimator takes each human
   label as right; coverage of that value is tallied beside the perfect assessor's;
6. three 95% intervals per system and measure: prediction-powered (``ppi``), the machine
   labels with a bootstrap over queries (``llm_only``), and the human sample alone
   (``human_only``); and, from the prediction-powered estimator, every system pair's paired
   difference interval and the interval on Kendall's tau between the leaderboard under the
   starting qrels and the completed one (:mod:`assess.evaluation.simulation_comparisons`).
Coverage is the share of (replication, system) intervals that contain the estimand.
Every label here is simulated; nothing is stored.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from core.proportions import wilson_bounds
from debates.audit_design import AuditStratum, audit_allocation, audit_unit, stratum_name
from debates.simulated import DebateOutcome, SimulatedAssessor

from .interval_comparisons import machine_only_intervals
from .intervals import (
    INTERVAL_MEASURES,
    Interval,
    IntervalError,
    PooledLabel,
    best_ranks,
    query_measure,
    refined_intervals,
)
from .simulation_comparisons import ComparisonTally
from .simulation_pool import study_pool_choose, study_strategy_check

METHODS = ("ppi", "llm_only", "human_only")
# What the llm_only figure is, said wherever the study prints it (the table and --json's
# "notes"): a contrast, not an interval that claims 95% of the human-completed value.
LLM_ONLY_NOTE = (
    "llm_only is not a valid interval on the human-completed value: it takes every machine "
    "label as right and bootstraps over the queries, so its centre is off by the net effect "
    "of the machine labels' errors and its width is the queries' spread, which has nothing to "
    "do with those errors. Its coverage is the share of replications where that error happens "
    "to be smaller than the query spread: it swings with the debaters' accuracy, the share of "
    "pairs they label and the number of queries (more queries: narrower, so lower), and can "
    "be far below 95%; it is shown only to contrast with ppi and human_only."
)
AUDIT_DESIGNS = ("uniform", "impact", "neyman")


def audit_inclusions(
    pairs: Sequence[tuple[str, str]],
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    *,
    share: float,
    depth: int,
    floor: float = 0.1,
) -> dict[tuple[str, str], float]:
    """Each pooled pair's audit inclusion probability under an audit weighted by impact:
    proportional to the pair's DCG gain summed over the runs (1 / log2(rank + 1) in each
    run that ranks it within ``depth``; ``floor`` added so that no pair is left out), scaled
    so that the expected number audited is ``share`` of the pairs, and capped at 1 (the
    capped pairs' excess is spread over the others: probability proportional to size
    sampling, Sarndal et al. 1992 sec. 3.6; a wrong label's effect on nDCG is about
    proportional to that gain, so the Horvitz-Thompson terms z / pi vary far less)."""
    if not pairs or share <= 0:
        return dict.fromkeys(pairs, share)
    position = {
        name: {q: {d: r for r, d in enumerate(ranked.get(q, [])[:depth], 1)} for q, _ in pairs}
        for name, ranked in runs.items()
    }
    impact = {
        (q, d): floor
        + sum(1 / math.log2(pos[q][d] + 1) for pos in position.values() if d in pos[q])
        for q, d in pairs
    }
    target = share * len(pairs)
    capped: set[tuple[str, str]] = set()
    for _ in range(10):
        free = [p for p in pairs if p not in capped]
        scale = (target - len(capped)) / sum(impact[p] for p in free)
        newly = {p for p in free if impact[p] * scale >= 1.0}
        if not newly:
            break
        capped |= newly
    return {p: 1.0 if p in capped else min(1.0, impact[p] * scale) for p in pairs}


@dataclass(frozen=True)
class StudyDesign:
    """The study's knobs. ``hide`` in [0, 1], ``audit_share`` in (0, 1]; ``depth`` >= 1;
    ``replications`` >= 1; ``measures`` the measures whose intervals are checked, each one
    of :data:`~assess.evaluation.intervals.INTERVAL_MEASURES`, ``measure`` (the headline,
    whose figures are the result's ``methods``) among them; ``strategy`` (a pool strategy of
    :mod:`corpora.pool_strategies`) and ``budget`` (pairs, or below 1 a share of the depth
    pool; None: every pair) choose the pairs judged (:mod:`.simulation_pool`). Raises
    ValueError naming the first bad one."""

    depth: int = 10
    hide: float = 0.5
    audit_share: float = 0.1
    replications: int = 200
    seed: int = 1
    measure: str = "nDCG@10"
    assessor: SimulatedAssessor = field(default_factory=SimulatedAssessor)
    audit_design: str = "uniform"
    measures: tuple[str, ...] = ("nDCG@10",)
    strategy: str = "depth"
    budget: float | None = None

    def __post_init__(self) -> None:
        unknown = [m for m in self.measures if m not in INTERVAL_MEASURES]
        if unknown:
            raise ValueError(
                f"measures: unknown measure{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(unknown)}; each must be one of {', '.join(INTERVAL_MEASURES)}"
            )
        if self.measure not in self.measures:
            raise ValueError(
                f"measures: must include the headline {self.measure}; got "
                f"{', '.join(self.measures) or 'none'}"
            )
        if self.audit_design not in AUDIT_DESIGNS:
            raise ValueError(
                f"audit_design: one of {', '.join(AUDIT_DESIGNS)}, got {self.audit_design!r}"
            )
        for name in ("hide", "audit_share"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name}: must be between 0 and 1, got {value}")
        if self.audit_share == 0:
            # With no audited pair nothing corrects the agreed labels: every replication
            # would fail to give an interval, after the whole study ran.
            raise ValueError("audit_share: intervals need an audit share > 0, got 0")
        if self.depth < 1:
            raise ValueError(f"depth: must be at least 1, got {self.depth}")
        if self.replications < 1:
            raise ValueError(f"replications: must be at least 1, got {self.replications}")
        study_strategy_check(self.strategy, self.budget)


@dataclass
class MethodTally:
    """Coverage and width of one method's intervals over the study, overall and per system
    (``per_system``: ``{system: [covered, intervals]}``): coverage pooled over systems can
    hide one system whose intervals miss more often."""

    covered: int = 0
    total: int = 0
    width_sum: float = 0.0
    # Sum of estimate - truth: the mean error (the estimator's bias, as far as the study's
    # replications can tell) is what coverage alone cannot show, a centre that is off.
    error_sum: float = 0.0
    failures: int = 0  # replications where the method could give no interval
    per_system: dict[str, list[int]] = field(default_factory=dict)
    # Intervals that contain the value under the simulated annotators' labels (the value the
    # estimator targets, since it takes every human label as right): the same as ``covered``
    # when annotators never err.
    covered_annotators: int = 0
    # Intervals as wide as every value the labels allow (the fallback of a sample too small
    # to say anything, or an interval clipped on both sides): they cover by construction, so
    # the coverage above is read beside how many there were.
    whole_range: int = 0
    # (covered, intervals) of each replication, closed by :meth:`replication_end`: the
    # systems of one replication share its draws, so the coverage's own interval counts
    # replications, not intervals, as the independent units (:func:`coverage_interval`).
    by_replication: list[tuple[int, int]] = field(default_factory=list)
    # Each replication's mean error: the replications, not the intervals, are independent,
    # so the mean error's standard error is taken over them.
    errors_by_replication: list[float] = field(default_factory=list)
    mark: tuple[int, int, float] = (0, 0, 0.0)

    def replication_end(self) -> None:
        """Close the replication whose intervals were added since the last call."""
        covered, total = self.covered - self.mark[0], self.total - self.mark[1]
        if total:
            self.by_replication.append((covered, total))
            self.errors_by_replication.append((self.error_sum - self.mark[2]) / total)
        self.mark = (self.covered, self.total, self.error_sum)

    def add(
        self,
        interval: Interval,
        truth: float,
        system: str = "",
        annotators: float | None = None,
        *,
        whole_range: bool = False,
    ) -> None:
        """Count one interval (of ``system``) against the value it should contain,
        ``truth`` (the perfect assessor's), and against ``annotators`` (the annotators'
        labels' value; None: the same as ``truth``); ``whole_range``: the interval spans
        the measure's whole attainable range."""
        hit = interval.contains(truth)
        self.whole_range += whole_range
        self.covered_annotators += interval.contains(truth if annotators is None else annotators)
        self.total += 1
        self.covered += hit
        self.width_sum += interval.high - interval.low
        self.error_sum += interval.estimate - truth
        counts = self.per_system.setdefault(system, [0, 0])
        counts[0] += hit
        counts[1] += 1

    def summary(self) -> dict[str, object]:
        """``{"coverage", "coverage_interval", "coverage_of_annotators_value",
        "mean_width", "mean_error", "mean_error_se", "intervals", "whole_range_intervals",
        "failures",
        "lowest_system_coverage": {"system", "coverage", "intervals",
        "coverage_interval"}}``; None when no interval was made. ``coverage_interval``:
        95% ``[low, high]`` (pooled: :func:`coverage_interval`; one system: Wilson over its
        replications). ``coverage`` is against
        the perfect assessor's value, ``coverage_of_annotators_value`` against the value
        under the simulated annotators' labels (equal when annotators never err);
        ``mean_error`` is the mean of estimate - the perfect assessor's value over the
        intervals (the bias, as far as the study can tell), ``mean_error_se`` its standard
        error over the replications (None with fewer than two);
        ``whole_range_intervals`` counts the intervals spanning every value the labels allow
        (covered by construction; not an exact answer, where every pair has a human
        label); ``failures`` the replications with no interval at all (left out of
        ``coverage``)."""
        lowest = None
        if self.per_system:
            name, (hit, n) = min(
                self.per_system.items(), key=lambda kv: (kv[1][0] / kv[1][1], kv[0])
            )
            # One interval of a system per replication: independent, so Wilson's own.
            lowest = {
                "system": name,
                "coverage": hit / n,
                "intervals": n,
                "coverage_interval": list(wilson_bounds(hit / n, n)),
            }
        return {
            "coverage": self.covered / self.total if self.total else None,
            "coverage_interval": coverage_interval(self.by_replication),
            "coverage_of_annotators_value": (
                self.covered_annotators / self.total if self.total else None
            ),
            "mean_width": self.width_sum / self.total if self.total else None,
            "mean_error": self.error_sum / self.total if self.total else None,
            "mean_error_se": (
                statistics.stdev(self.errors_by_replication)
                / math.sqrt(len(self.errors_by_replication))
                if len(self.errors_by_replication) > 1
                else None
            ),
            "intervals": self.total,
            "whole_range_intervals": self.whole_range,
            "failures": self.failures,
            "lowest_system_coverage": lowest,
        }


def coverage_interval(by_replication: Sequence[tuple[int, int]]) -> list[float] | None:
    """95% interval ``[low, high]`` on a coverage pooled over systems, from each
    replication's ``(covered, intervals)``; None without a replication.

    The intervals of one replication share its draws (the same audit, the same debates), so
    they are a cluster, not independent trials: the share's variance is the ratio
    estimator's over clusters, sum_r (c_r - p n_r)^2 / (R (R - 1) nbar^2) (Cochran, Sampling
    Techniques, 3rd ed. 1977, sec. 6.13), turned into an effective sample size p (1 - p) /
    var (Kish, Survey Sampling, 1965, the design effect) at which the Wilson score interval
    is taken (:func:`core.proportions.wilson_bounds`). As Korn and Graubard (Survey
    Methodology 24(2), 1998) do for Clopper-Pearson intervals from survey data, the design
    effect is truncated at 1 (the effective size never exceeds the intervals counted) and a
    variance of 0 (no spread between replications, as when every interval covered) takes the
    intervals counted: so one more miss never raises the lower end.
    """
    replications = len(by_replication)
    total = sum(n for _, n in by_replication)
    if not replications or not total:
        return None
    p = sum(c for c, _ in by_replication) / total
    mean_n = total / replications
    spread = sum((c - p * n) ** 2 for c, n in by_replication)
    variance = spread / (replications * (replications - 1) * mean_n**2) if replications > 1 else 0
    n_eff = p * (1 - p) / variance if variance > 0 else total
    return list(wilson_bounds(p, min(n_eff, total)))


@dataclass
class StudyResult:
    """What ``simulate_study --json`` prints (see :meth:`as_json`)."""

    replications: int
    systems: int
    queries: int
    human_labels: float
    pooled_pairs: float
    escalated: float
    llm_calls: float
    wrong_consensus: float
    methods: dict[str, MethodTally]
    by_measure: dict[str, dict[str, MethodTally]] = field(default_factory=dict)
    comparisons: dict[str, ComparisonTally] = field(default_factory=dict)
    audit_design: str = "uniform"
    audit_share: float = 0.1
    strategy: str = "depth"
    budget: float | None = None
    depth_pool_pairs: float = 0.0

    @property
    def audited_labels(self) -> float:
        """Mean audit labels per replication: the human labels less the escalated pairs'
        (every escalated pair gets one, every drawn agreed pair one)."""
        return max(self.human_labels - self.escalated, 0.0)

    def as_json(self) -> dict[str, object]:
        """``{"replications", "systems", "queries", "audit_design", "audit_share" (the
        study's), "human_labels" (mean per replication: escalated and audited pairs),
        "audited_labels", "pooled_pairs" (the pairs judged), "depth_pool_pairs" (the depth
        pool's unjudged pairs, of which a budget judges "pooled_pairs"), "escalated",
        "llm_calls", "wrong_consensus" (means per replication), "strategy", "budget" (as
        given, null for every pair), "labels": "simulated", "methods": {name: {"coverage",
        "mean_width", "intervals", "failures"}} (the headline measure, nDCG@10), "notes"
        (sentences on reading the figures: what llm_only is, :data:`LLM_ONLY_NOTE`),
        "measures": {measure: {"methods": {...as above}, "comparisons": {"pairs",
        "coverage", "mean_width", "settled_share", "wrongly_settled",
        "wrongly_settled_share", "tau": {...}}}}}`` (comparisons as
        :meth:`ComparisonTally.summary`)."""
        return {
            "replications": self.replications,
            "systems": self.systems,
            "queries": self.queries,
            "labels": "simulated",
            "audit_design": self.audit_design,
            "audit_share": self.audit_share,
            "human_labels": round(self.human_labels, 2),
            "audited_labels": round(self.audited_labels, 2),
            "pooled_pairs": round(self.pooled_pairs, 2),
            "depth_pool_pairs": round(self.depth_pool_pairs, 2),
            "strategy": self.strategy,
            "budget": self.budget,
            "escalated": round(self.escalated, 2),
            "llm_calls": round(self.llm_calls, 2),
            "wrong_consensus": round(self.wrong_consensus, 2),
            "methods": {name: tally.summary() for name, tally in self.methods.items()},
            "notes": [LLM_ONLY_NOTE],
            "measures": {
                measure: {
                    "methods": {name: t.summary() for name, t in tallies.items()},
                    "comparisons": self.comparisons[measure].summary(),
                }
                for measure, tallies in self.by_measure.items()
            },
        }


def binarise(qrels: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Qrels with every grade >= 1 as 1 and the rest as 0 (the study's binary truth)."""
    return {q: {d: int(g >= 1) for d, g in judged.items()} for q, judged in qrels.items()}


def _replication(
    truth: Mapping[str, Mapping[str, int]],
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    queries: Sequence[str],
    design: StudyDesign,
    rng: random.Random,
) -> tuple[dict[str, dict[str, int]], list[PooledLabel], dict[str, int]]:
    """(starting qrels, pooled labels, counts) of one replication."""
    start: dict[str, dict[str, int]] = {}
    for q in queries:
        start[q] = {
            d: g
            for d, g in sorted(truth.get(q, {}).items())
            if not (g and rng.random() < design.hide)
        }
    candidates = sorted(
        {
            (q, d)
            for ranked in runs.values()
            for q in queries
            for d in ranked.get(q, [])[: design.depth]
            if d not in start[q]
        }
    )
    # Every candidate takes its debate, its audit draw and its would-be human label from the
    # stream in the same order whatever the design, share, strategy and budget, so studies of
    # one seed share their debates and draws: a comparison of audit shares, designs or
    # budgets is paired, not blurred by different debates.
    assessor = design.assessor
    rows: dict[tuple[str, str], _Row] = {}
    for q, d in candidates:
        relevant = bool(truth.get(q, {}).get(d, 0))
        outcome = assessor.debate(relevant, rng)
        draw = rng.random()
        rows[(q, d)] = _Row(outcome, draw, assessor.annotate(relevant, rng))
    pooled = study_pool_choose(
        candidates=candidates, runs=runs, queries=queries, start=start, depth=design.depth,
        strategy=design.strategy, budget=design.budget,
        seen={pair: row.seen for pair, row in rows.items()},
    )  # fmt: skip
    counts = {"escalated": 0, "calls": 0, "wrong": 0, "human": 0, "candidates": len(candidates)}
    if design.audit_design == "neyman":
        inclusion = _neyman_inclusions(pooled, rows, best_ranks(runs), design)
    elif design.audit_design == "impact":
        inclusion = audit_inclusions(pooled, runs, share=design.audit_share, depth=design.depth)
    else:
        inclusion = dict.fromkeys(pooled, design.audit_share)
    labels: list[PooledLabel] = []
    for q, d in pooled:
        row = rows[(q, d)]
        counts["calls"] += row.outcome.calls
        if row.outcome.label is None:
            counts["escalated"] += 1
            counts["human"] += 1
            labels.append(PooledLabel(q, d, None, row.human, "escalated", True, 1.0))
            continue
        label, p = row.outcome.label, inclusion[(q, d)]
        counts["wrong"] += label != int(bool(truth.get(q, {}).get(d, 0)))
        drawn = row.draw < p
        counts["human"] += drawn
        name = stratum_name(label, row.outcome.round)
        labels.append(PooledLabel(q, d, label, row.human if drawn else None, name, drawn, p))
    return start, labels, counts


@dataclass(frozen=True, slots=True)
class _Row:
    """One candidate's simulated debate, its audit draw (uniform on [0, 1)) and the label its
    annotator would give (seen only if it is escalated or drawn)."""

    outcome: DebateOutcome
    draw: float
    human: int

    @property
    def seen(self) -> int:
        """The label a pool strategy learns from: the consensus, or the annotator's label of
        an escalated pair."""
        return self.human if self.outcome.label is None else self.outcome.label


def _neyman_inclusions(
    pooled: Sequence[tuple[str, str]],
    rows: Mapping[tuple[str, str], _Row],
    best: Mapping[tuple[str, str], int],
    design: StudyDesign,
) -> dict[tuple[str, str], float]:
    """Each agreed pooled pair's audit inclusion probability under the two-phase Neyman
    audit: the pilot's labels (a pair is in the pilot when its draw is below its unit's pilot
    probability; its human label is seen only then) give each stratum's error rate, and the
    final allocation sets every unit's probability (the unit: the pair's stratum and its best
    rank over the runs, ``best``, as in a real job's pool)."""

    def unit(pair: tuple[str, str]) -> str:
        o = rows[pair].outcome
        return audit_unit(o.label or 0, o.round, best.get(pair), allocation="neyman")

    agreed = [pair for pair in pooled if rows[pair].outcome.label is not None]
    sizes = Counter(unit(pair) for pair in agreed)
    pilot = audit_allocation(
        {n: AuditStratum(size) for n, size in sizes.items()},
        share=design.audit_share, allocation="neyman", pilot_done=False,
    )  # fmt: skip
    judged: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    for pair in agreed:
        name, row = unit(pair), rows[pair]
        if row.draw < pilot[name]:
            judged[name] += 1
            wrong[name] += row.human != row.outcome.label
    final = audit_allocation(
        {n: AuditStratum(size, pilot[n], judged[n], wrong[n]) for n, size in sizes.items()},
        share=design.audit_share, allocation="neyman", pilot_done=True,
    )  # fmt: skip
    return {pair: final[unit(pair)] for pair in agreed}


def annotators_completion(
    truth: Mapping[str, Mapping[str, int]],
    pool: Sequence[PooledLabel],
    annotator_error: float,
    rng: random.Random,
) -> dict[tuple[str, str], int] | None:
    """``{(query_id, doc_id): label}``: the simulated annotators' label of every pooled pair,
    the value the intervals estimate (they take each human label as right): the pair's human
    label where it has one, else the truth flipped with probability ``annotator_error`` (a
    fresh, independent draw from ``rng``: the annotator the pair would have had). None when
    annotators never err: the completion is then the perfect assessor's."""
    if annotator_error == 0:
        return None
    completion = {}
    for label in pool:
        if label.human is not None:
            completion[(label.query_id, label.doc_id)] = label.human
            continue
        relevant = int(bool(truth.get(label.query_id, {}).get(label.doc_id, 0)))
        wrong = rng.random() < annotator_error
        completion[(label.query_id, label.doc_id)] = 1 - relevant if wrong else relevant
    return completion


def _estimand(
    truth: Mapping[str, Mapping[str, int]],
    start: Mapping[str, Mapping[str, int]],
    pool: Sequence[PooledLabel],
    ranked: Mapping[str, Sequence[str]],
    queries: Sequence[str],
    measure: str,
    completion: Mapping[tuple[str, str], int] | None = None,
) -> float:
    """The system's mean measure under the perfect assessor's completion of the pool, or
    under ``completion`` (:func:`annotators_completion`) when given."""
    completed = {q: dict(j) for q, j in start.items()}
    for label in pool:
        key = (label.query_id, label.doc_id)
        completed.setdefault(label.query_id, {})[label.doc_id] = (
            completion[key] if completion is not None else truth.get(key[0], {}).get(key[1], 0)
        )
    values = [query_measure(measure, ranked.get(q, []), completed.get(q, {})) for q in queries]
    return sum(values) / len(values)


def study_run(
    *,
    truth: Mapping[str, Mapping[str, int]],
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    design: StudyDesign,
) -> StudyResult:
    """Replicate the study ``design.replications`` times (seeded by ``design.seed``, so the
    same inputs give the same JSON) and tally each method's coverage of every measure of
    ``design.measures``, and the prediction-powered pair differences and tau.

    ``truth``: ``{query_id: {doc_id: grade}}`` (binarised here); ``runs``: ``{system:
    {query_id: [doc_id in rank order]}}``. The evaluated queries are the truth's queries with
    at least one judgment. Raises ValueError when there is no such query or no run.
    """
    if not runs:
        raise ValueError("the study needs at least one run")
    truth = binarise(truth)
    queries = sorted(q for q, judged in truth.items() if judged)
    if not queries:
        raise ValueError("the truth qrels judge no query")
    tallies = {m: {name: MethodTally() for name in METHODS} for m in design.measures}
    comparisons = {m: ComparisonTally() for m in design.measures}
    sums = dict.fromkeys(("human", "pooled", "escalated", "calls", "wrong", "candidates"), 0.0)
    for r in range(design.replications):
        rng = random.Random(f"{design.seed}:{r}")
        start, pool, counts = _replication(truth, runs, queries, design, rng)
        for key in ("human", "escalated", "calls", "wrong", "candidates"):
            sums[key] += counts[key]
        sums["pooled"] += len(pool)
        # A stream of its own: the draws above stay those of studies without annotator error.
        annotated = annotators_completion(
            truth, pool, design.assessor.annotator_error, random.Random(f"{design.seed}:{r}:a")
        )
        replication = _Replication(truth, start, pool, runs, queries, annotated)
        _tally(tallies, comparisons, replication, design, seed=r)
    n = design.replications
    return StudyResult(
        replications=n,
        systems=len(runs),
        queries=len(queries),
        human_labels=sums["human"] / n,
        pooled_pairs=sums["pooled"] / n,
        escalated=sums["escalated"] / n,
        llm_calls=sums["calls"] / n,
        wrong_consensus=sums["wrong"] / n,
        methods=tallies[design.measure],
        by_measure=tallies,
        comparisons=comparisons,
        audit_design=design.audit_design,
        audit_share=design.audit_share,
        strategy=design.strategy,
        budget=design.budget,
        depth_pool_pairs=sums["candidates"] / n,
    )


@dataclass(frozen=True)
class _Replication:
    """One replication's inputs to the intervals: the truth, the starting qrels, the pooled
    labels, the runs and the evaluated queries."""

    truth: Mapping[str, Mapping[str, int]]
    start: Mapping[str, Mapping[str, int]]
    pool: Sequence[PooledLabel]
    runs: Mapping[str, Mapping[str, Sequence[str]]]
    queries: Sequence[str]
    annotated: Mapping[tuple[str, str], int] | None = None

    def truths(self, measure: str) -> dict[str, float]:
        """``{system: mean measure under the perfect assessor's completion}``."""
        return {
            s: _estimand(self.truth, self.start, self.pool, ranked, self.queries, measure)
            for s, ranked in self.runs.items()
        }

    def annotators_values(self, measure: str) -> dict[str, float] | None:
        """``{system: mean measure under the annotators' completion}``; None when annotators
        never err (the same as :meth:`truths`)."""
        if self.annotated is None:
            return None
        return {
            s: _estimand(
                self.truth, self.start, self.pool, ranked, self.queries, measure, self.annotated
            )
            for s, ranked in self.runs.items()
        }

    def original(self, measure: str) -> dict[str, float]:
        """``{system: mean measure under the starting qrels}`` (the original leaderboard)."""
        out = {}
        for system, ranked in self.runs.items():
            values = [
                query_measure(measure, ranked.get(q, []), self.start.get(q, {}))
                for q in self.queries
            ]
            out[system] = sum(values) / len(values)
        return out


def _tally(
    tallies: dict[str, dict[str, MethodTally]],
    comparisons: dict[str, ComparisonTally],
    rep: _Replication,
    design: StudyDesign,
    *,
    seed: int,
) -> None:
    """Add one replication's intervals of each method and measure to the tallies, and the
    prediction-powered pair differences and tau to the comparisons."""
    truths = {m: rep.truths(m) for m in design.measures}
    annotators = {m: rep.annotators_values(m) or {} for m in design.measures}
    for method, use_machine in (("ppi", True), ("human_only", False)):
        try:
            found = refined_intervals(
                runs=rep.runs,
                fixed=rep.start,
                pool=rep.pool,
                queries=rep.queries,
                measures=design.measures,
                use_machine=use_machine,
            )
        except IntervalError:
            for m in design.measures:
                tallies[m][method].failures += 1
            continue
        for m in design.measures:
            for system, value in truths[m].items():
                interval = found.by_system[system][m]
                low, high = found.ranges[m][system]
                # A range of one value (every pair human-labelled) is an exact answer, not an
                # interval that says nothing.
                spans = interval.low <= low + 1e-12 and interval.high >= high - 1e-12
                whole = high - low > 1e-9 and spans
                tallies[m][method].add(
                    interval, value, system, annotators[m].get(system), whole_range=whole
                )
            tallies[m][method].replication_end()
            if use_machine:
                comparisons[m].add(found, m, truths[m], rep.original(m))
    for m in design.measures:
        naive = machine_only_intervals(
            runs=rep.runs,
            fixed=rep.start,
            pool=rep.pool,
            queries=rep.queries,
            measure=m,
            seed=seed,
        )
        for system, value in truths[m].items():
            tallies[m]["llm_only"].add(naive[system], value, system, annotators[m].get(system))
        tallies[m]["llm_only"].replication_end()
