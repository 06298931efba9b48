"""Intervals on a refined set's metrics, from the labels' provenance (database side).

A refined set's provenance rows become the pure estimator's pooled labels
(:func:`assess.evaluation.interval_labels.pooled_labels`): agreed pairs are
machine-labelled, in strata "label L, round R", audited with their stratum's stored
probability (the job's audit share for sets refined before it was stored); escalated pairs
are human-labelled; pairs that were judged before (original qrels) are fixed. Pairs with no
final label are unjudged in the refined qrels. An escalated one (humans must decide it:
awaiting, incomplete, tied or over the human budget) is missing at random among the
escalated pairs in the intervals; any other (a debate pending or failed, a pair no job
debated) is no escalation, humans never see it, and it is left out here too, so counted as
not relevant, as in the refined qrels. The notes say how many of each, and how many drawn
audit pairs wait for a human label (:mod:`assess.evaluation.interval_missing`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from django.core.cache import cache

from assess.models import Adjudication, Judgment, LabelProvenance, Refinement, ReviewItem
from assess.models.simulated import qrel_set_simulated_labels, simulated_sentence
from core.text import plural
from corpora.identical import skip_identical
from corpora.models import QrelSet, Run
from corpora.selectors import pool_pair_ranks
from corpora.services import run_rows

from . import interval_comparisons as ic
from . import intervals as iv
from . import metrics, plots
from .interval_deltas import DeltaIntervals, delta_intervals
from .interval_labels import pooled_labels
from .interval_missing import (
    MissingLabels,
    audit_waiting_words,
    difference_notes,
    label_grades,
    missing_notes,
)
from .interval_reports import (
    TAU_PPI,
    WHOLE_RANGE_NOTE,
    SampleSize,
    SampleSource,
    interval_json,
    level_note,
    pair_json,
    sample_of,
    sizes_text,
    sources_note,
    whole_range,
)
from .interval_sources import sample_sources as sample_sources
from .ranking import RankingAgreement, RbpScore
from .rebench import (
    CACHE_SECONDS,
    CACHE_VERSION,
    RebenchError,
    RebenchReport,
    qrels_dict,
    rebench_compute,
    rebench_runs,
)
from .tables import Table

BUDGET_TARGET = 0.01  # the half-width the budget planner aims at, on nDCG@10
# Below this many audited labels the planner's figure is a first guess: it scales the width
# as if it came from sampling alone, and a few labels give widths that come mostly from the
# range the unjudged pairs allow or the variance floor (the normal approximation's usual n).
PLAN_FEW_AUDITED = 30


def plan_caveat(n_audited: int | None) -> str:
    """Words on a budget figure that rests on fewer than :data:`PLAN_FEW_AUDITED` audited
    labels ("" otherwise, and for an unknown count)."""
    if n_audited is None or n_audited >= PLAN_FEW_AUDITED:
        return ""
    return (
        f"only {n_audited:,} audited label{'s' if n_audited != 1 else ''} so far, fewer than "
        f"{PLAN_FEW_AUDITED}: read the figure as a first guess (it scales the intervals' width "
        "as if it came from sampling alone, which so few labels cannot show); judge the "
        "drawn audits first"
    )


# What the simulated studies measured (docs/measured.md): said wherever the intervals are
# shown, so that nobody reads them as exact 95% intervals, nor as measured beyond what was.
COVERAGE_CAVEAT = (
    "Measured coverage of the prediction-powered (nominal 95%) intervals in simulated "
    "studies on real qrels, at one audit share only, 10% of the agreed pairs: 93-100% on "
    "SciFact (300 and 1,109 queries), ArguAna (1,401), NFCorpus, Cranfield and Vaswani, "
    "for nDCG@10, P@10 and R@100 (docs/measured.md); at smaller audits, not measured here. "
    "The variance floor that keeps them this wide is a heuristic, tuned in those "
    "simulations, not a theorem; an interval with fewer than 5 human labels (audited or "
    "escalated) bearing on it (n_b) is the value's whole range, also a convention. Read them as "
    "approximate. "
    "The studies' annotators never erred: the intervals take every human label as right, "
    "so they cover the value under the annotators' labels, not the annotators' errors."
)


# What a run pair's "settled" says, and what it does not: the rank changes' Wilcoxon and
# t-test compare each system with itself (original vs refined qrels), never two systems.
SETTLED_WORDS = (
    "Paired over queries and the same human sample. The order of a and b is what the "
    "interval on their paired per-query difference says: settled when it excludes 0, at 95% "
    "for each pair on its own, not adjusted for the pairs compared. Conditional on these "
    "queries: label errors cannot reverse the order on this query set, which says nothing "
    "of queries at large. The rank changes' Wilcoxon and t-test p ask another question: "
    "whether one system's score moved between the original and the refined qrels."
)


def _range_note(intervals: Iterable[iv.Interval]) -> str:
    """`` 'whole range': ...`` after a table's note when one of its ``intervals`` is its
    value's whole range (:func:`~assess.evaluation.interval_reports.whole_range`), else ""."""
    return f" {WHOLE_RANGE_NOTE}." if any(whole_range(i) for i in intervals) else ""


@dataclass
class RefinedIntervals:
    """Every interval a re-benchmark shows, or ``error`` saying what is missing; and, from
    :func:`report_intervals`, the re-benchmark's own ranking ``agreement`` and per run
    ``rbp`` (RBP on the original, on the refined qrels), which the datasheet shows too.
    ``simulated``: the refined set's simulated labels, ``{"debate": n, "human": m,
    "stage0": k}`` (:mod:`assess.models.simulated`); ``sources``: the jobs whose reviews
    gave the human sample (:func:`sample_sources`)."""

    error: str = ""
    ppi: iv.SystemIntervals | None = None
    human_only: iv.SystemIntervals | None = None
    llm_only: dict[str, iv.Interval] = field(default_factory=dict)
    pairs: list[ic.PairComparison] = field(default_factory=list)
    tau: tuple[float, float, float] | None = None
    # {run: nDCG@10 on the original qrels} as the estimator measures it (binary gains at the
    # relevance level): what the refined estimates are compared with, by tau and the plot.
    before: dict[str, float] = field(default_factory=dict)
    # {measure: {run: score on the original qrels}} for every interval measure, measured as
    # ``before``: what each Δ interval subtracts (:meth:`deltas`).
    originals: dict[str, dict[str, float]] = field(default_factory=dict)
    # {run: {measure: score on the refined qrels as they are}}: the leaderboard's plain values
    # (ir_measures on the qrels, debate labels taken as decided), from :func:`report_intervals`;
    # the datasheet shows each beside its estimate, which corrects those labels' errors.
    plain: dict[str, dict[str, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    more_labels: int | None = None  # more audit labels for +-BUDGET_TARGET on nDCG@10
    agreement: RankingAgreement | None = None
    rbp: dict[str, tuple[RbpScore, RbpScore]] = field(default_factory=dict)
    simulated: dict[str, int] = field(default_factory=dict)
    sources: list[SampleSource] = field(default_factory=list)
    # The evaluated queries (every mean is over them; the LLM-only bootstrap resamples them)
    # and how many of them hold a pooled pair (the only ones label errors can move).
    queries: int = 0
    pooled_queries: int = 0

    @property
    def settled_share(self) -> float | None:
        """Share of system pairs whose nDCG@10 order is settled at 95% (None: no pair)."""
        if not self.pairs:
            return None
        return sum(p.settled for p in self.pairs) / len(self.pairs)

    def sample(self, interval: iv.Interval) -> SampleSize:
        """The human labels behind ``interval``: its audited ones and every escalated pair's
        (:class:`~assess.evaluation.interval_reports.SampleSize`)."""
        return sample_of(interval, escalated=self.counts.get("escalated", 0))

    @property
    def simulated_line(self) -> str:
        """ "SIMULATED labels: ..." when the refined set holds simulated labels, else ""."""
        return simulated_sentence(self.simulated)

    def deltas(self) -> DeltaIntervals:
        """Each run's change from the original score to the refined estimate (Δ) with its
        95% interval, on nDCG@10, P@10 and R@100: the refined interval minus the exact
        original score (:mod:`assess.evaluation.interval_deltas`); without intervals,
        ``missing`` says why."""
        if self.ppi is None:
            return DeltaIntervals(missing=self.error)
        refined = {
            m: {s: by[m] for s, by in self.ppi.by_system.items() if m in by} for m in self.originals
        }
        samples = {m: {s: self.sample(i) for s, i in by.items()} for m, by in refined.items()}
        return delta_intervals(refined=refined, original=self.originals, samples=samples)

    def tau_sample(self) -> SampleSize | None:
        """The human labels behind Kendall's tau interval (those of the nDCG@10 estimates)."""
        if self.ppi is None or not self.ppi.by_system:
            return None
        return self.sample(next(iter(self.ppi.by_system.values()))["nDCG@10"])

    def as_json(self) -> dict[str, Any]:
        """The API's ``intervals``, at 95%: ``{"method", "level", "caveat", "error",
        "counts", "notes", "simulated", "simulated_labels", "sample_sources": [{"job",
        "audit_share", "audited", "escalated", "reused", "on_pool"}], "deltas" (each run's
        change from the original score, with its interval:
        :meth:`~assess.evaluation.interval_deltas.DeltaIntervals.as_json`), "systems":
        {system: {measure: INTERVAL}}, "naive": {"llm_only": {system: INTERVAL +
        "n_queries"}, "human_only": {...}}, "pairs": [PAIR], "settled_share", "budget":
        {"measure", "target_half_width", "more_human_labels", "undecided_pairs": [PAIR]},
        "kendall_tau_original_vs_ppi":
        {"tau", "low", "high", "n", "n_audited", "n_escalated", "systems", "compares"},
        "kendall_tau": the same}``, INTERVAL as
        :func:`~assess.evaluation.interval_reports.interval_json`, PAIR as
        :func:`~assess.evaluation.interval_reports.pair_json` (``n``, ``n_human``: every
        human label behind it, audited and escalated)."""
        out: dict[str, Any] = {
            "method": "prediction-powered (GREG estimator over the audit, a model per "
            "stratum and rank band, and the second-order term of two labels of one query; "
            "docs/rebenchmarking.md)",
            "level": 0.95,
            "caveat": COVERAGE_CAVEAT,
            "error": self.error,
            "counts": self.counts,
            "notes": self.notes,
            "simulated": any(self.simulated.values()),
            "simulated_labels": dict(self.simulated),
            "sample_sources": [asdict(source) for source in self.sources],
            "deltas": self.deltas().as_json(),
        }
        if self.ppi is None:
            return out

        def one(i: iv.Interval) -> dict[str, float | int | None]:
            return interval_json(i, self.sample(i))

        out["systems"] = {
            s: {m: one(i) for m, i in by.items()} for s, by in self.ppi.by_system.items()
        }
        out["naive"] = {
            "llm_only": {
                s: {**one(i), "n_queries": self.queries} for s, i in self.llm_only.items()
            },
            "human_only": (
                {s: one(by["nDCG@10"]) for s, by in self.human_only.by_system.items()}
                if self.human_only
                else {}
            ),
        }
        out["pairs"] = [pair_json(p, self.sample(p.difference)) for p in self.pairs]
        out["settled_share"] = self.settled_share
        out["budget"] = {
            "measure": "nDCG@10",
            "target_half_width": BUDGET_TARGET,
            "more_human_labels": self.more_labels,
            "undecided_pairs": [pair for pair in out["pairs"] if not pair["settled"]],
        }
        sample = self.tau_sample()
        if self.tau is not None and sample is not None:
            tau = dict(zip(("tau", "low", "high"), self.tau, strict=True))
            systems = len(self.ppi.by_system)
            entry = {**tau, **sample.as_json(), "systems": systems, "compares": TAU_PPI}
            out["kendall_tau_original_vs_ppi"] = entry
            # The key of the API before the two taus were named apart: the same entry.
            out["kendall_tau"] = dict(entry)
        return out


def pool_best_ranks(*, refined: QrelSet) -> dict[tuple[str, str], int]:
    """``{(query_id, doc_id): rank}``: each pooled pair's best rank over the runs that put it
    in the pool the refined set was refined from (:class:`corpora.models.PairSource`). The
    intervals' model bands pairs by it, so the model is a fact of the pool, not of the runs a
    re-benchmark happens to evaluate."""
    pool = Refinement.objects.filter(qrel_set=refined).values_list("pool_id", flat=True).first()
    return {} if pool is None else pool_pair_ranks(pool=pool, by_ids=True)


def refined_simulated(*, refined: QrelSet) -> dict[str, int]:
    """The simulated labels of ``refined``, ``{"debate": n, "human": m, "stage0": k}``,
    those it copied from the refined sets it was made from included
    (:func:`assess.models.simulated.qrel_set_simulated_labels`; all 0 for an imported
    set)."""
    return qrel_set_simulated_labels(refined)


def _answers_since_sentence(refined: QrelSet) -> str:
    """ "; 2 human answers on this pool's audits and escalations came after this set was
    refined: refine the pool again to use them" when people answered after the refinement
    (a refined set is immutable, so its intervals never see later answers); "" otherwise."""
    refinement = Refinement.objects.filter(qrel_set=refined).first()
    if refinement is None:
        return ""
    items = ReviewItem.objects.filter(debate__pair__pool_id=refinement.pool_id)
    later = (
        Judgment.objects.filter(item__in=items, undone_at__isnull=True)
        .filter(created__gt=refinement.created)
        .count()
    ) + Adjudication.objects.filter(item__in=items, created__gt=refinement.created).count()
    if not later:
        return ""
    answers = "1 human answer" if later == 1 else f"{later:,} human answers"
    return (
        f"; {answers} on this pool's audits and escalations came after this set was refined: "
        "refine the pool again to use them"
    )


def _binary_scores(
    ranked: Mapping[str, metrics.Ranked],
    fixed: Mapping[str, Mapping[str, int]],
    queries: Sequence[str],
    rel_level: int,
) -> dict[str, dict[str, float]]:
    """{measure: {run: mean over ``queries`` under ``fixed``}} for every interval measure,
    relevance binary (grade >= ``rel_level``; binary gains for nDCG@10): the estimator's own
    definition (:func:`assess.evaluation.intervals.query_measure`), equal to trec_eval's on
    binary qrels."""
    binary = {q: {d: int(g >= rel_level) for d, g in judged.items()} for q, judged in fixed.items()}
    return {
        measure: {
            name: sum(
                iv.query_measure(measure, ranking.get(q, []), binary.get(q, {})) for q in queries
            )
            / max(len(queries), 1)
            for name, ranking in ranked.items()
        }
        for measure in iv.INTERVAL_MEASURES
    }


def rebench_intervals(
    *,
    original: QrelSet,
    refined: QrelSet,
    runs: Sequence[Run],
    rel_level: int = 1,
    with_tau: bool = False,
) -> RefinedIntervals:
    """95% intervals on each run's nDCG@10, P@10 and R@100 under the refined qrels, the
    pair differences, the share of settled pairs and, ``with_tau``, Kendall's tau against
    the runs' nDCG@10 on the original qrels (``before``: with binary gains at ``rel_level``,
    as the estimates have them, so that graded qrels do not move tau by the change of gain
    alone), with the two naive
    intervals beside them, the refined set's simulated labels counted, and a note when no
    judgment reaches ``rel_level`` (every measure is then 0). Never raises for a sample that
    cannot support an interval: ``error`` says what is missing instead."""
    labels, counts = pooled_labels(refined=refined)
    result = RefinedIntervals(counts=counts)
    result.simulated = refined_simulated(refined=refined)
    result.sources = sample_sources(refined=refined)
    if note := sources_note(result.sources):
        result.notes.append(note)
    fixed = qrels_dict(qrel_set=original)
    if note := level_note(rel_level=rel_level, grades=label_grades(fixed=fixed, pool=labels)):
        result.notes.append(note)
    queries = sorted(q for q, judged in fixed.items() if judged)
    result.queries = len(queries)
    result.pooled_queries = len({label.query_id for label in labels} & set(queries))
    # The same entries the re-benchmark scores: a query's own document skipped when the
    # dataset excludes identical ids.
    exclude_self = original.dataset.exclude_identical_ids
    ranked = {
        run.name: metrics.rank_run(skip_identical(run_rows(run=run), enabled=exclude_self)[0])
        for run in runs
    }
    best_rank = pool_best_ranks(refined=refined)
    try:
        result.ppi = iv.refined_intervals(
            runs=ranked, fixed=fixed, pool=labels, queries=queries, rel_level=rel_level,
            best_rank=best_rank,
        )  # fmt: skip
        result.human_only = iv.refined_intervals(
            runs=ranked, fixed=fixed, pool=labels, queries=queries, rel_level=rel_level,
            measures=("nDCG@10",), use_machine=False, best_rank=best_rank,
        )  # fmt: skip
    except iv.IntervalError as exc:
        result.error = str(exc) + _answers_since_sentence(refined)
        result.ppi = result.human_only = None
        result.notes += missing_notes(MissingLabels.of(counts), intervals=False)
        return result
    result.notes += missing_notes(MissingLabels.of(counts, labels)) + result.ppi.notes
    result.llm_only = ic.machine_only_intervals(
        runs=ranked, fixed=fixed, pool=labels, queries=queries, rel_level=rel_level
    )
    result.pairs = ic.pair_comparisons(result.ppi)
    found = ic.range_only_differences(result.ppi)
    result.notes += difference_notes(*found, minimum=iv.MIN_BEARING)
    result.more_labels = ic.labels_for_half_width(
        result.ppi, target=BUDGET_TARGET, pool_size=counts["agreed"]
    )
    if result.more_labels and (step := ic.first_step_note(result.ppi)):
        result.notes.append(step)
    result.originals = _binary_scores(ranked, fixed, queries, rel_level)
    result.before = result.originals["nDCG@10"]
    if with_tau and len(ranked) > 1:
        result.tau = ic.kendall_tau_interval(result.ppi, result.before)
    return result


def report_intervals(
    *, report: RebenchReport, original: QrelSet, refined: QrelSet, rel_level: int = 1
) -> RefinedIntervals:
    """:func:`rebench_intervals` for the runs of a re-benchmark ``report`` of ``original``
    vs ``refined``, with Kendall's tau against the report's original nDCG@10 scores (what
    the command, the page, the API and the pipeline show), carrying the report's ranking
    agreement and RBP along, and each run's plain scores on ``refined`` (``plain``: the
    refined leaderboard's nDCG@10, P@10 and R@100)."""
    found = rebench_intervals(
        original=original,
        refined=refined,
        runs=rebench_runs(dataset=original.dataset, names=report.runs),
        rel_level=rel_level,
        with_tau=True,
    )
    result = report.result
    found.plain = {
        row.system: {m: row.scores[m] for m in iv.INTERVAL_MEASURES if m in row.scores}
        for row in result.after
    }
    found.agreement = result.agreement
    found.rbp = {s: (result.rbp_before[s], result.rbp_after[s]) for s in result.rbp_after}
    return found


def refinement_runs(*, refinement: Refinement) -> list[Run]:
    """The systems a refined set's intervals are shown for outside the re-benchmark page
    (the datasheet, the budget planner): the finished runs its pool was made from, by name,
    or every finished run of the dataset when the pool names none. Raises RebenchError when
    there is no finished run at all."""
    pooled = list(refinement.pool.runs.filter(status=Run.Status.DONE).order_by("name"))
    return pooled or rebench_runs(dataset=refinement.qrel_set.dataset)


def _refinement_key(refinement: Refinement, runs: Sequence[Run], rel_level: int) -> str:
    """What a refined set's intervals depend on: its provenance (written once, with the set),
    the original set, the runs, the relevance level and the audit share of every job behind
    the provenance (read live for sets refined before each pair's inclusion probability was
    stored with its provenance: a job and stratum none of whose pairs was drawn still
    carries the job's share, though no weight uses it)."""
    shares = (
        LabelProvenance.objects.filter(qrel_set=refinement.qrel_set)
        .values_list("job_id", "job__audit_share")
        .distinct()
        .order_by("job_id")
    )
    parts = [f"{q.pk}@{q.created.isoformat()}" for q in (refinement.qrel_set, refinement.original)]
    parts += sorted(f"{r.pk}@{r.created.isoformat()}" for r in runs)
    parts += [f"job{job}:{share!r}" for job, share in shares]
    parts.append(f"rel={rel_level};v={CACHE_VERSION}")
    return "assess:refined-intervals:" + hashlib.sha256("|".join(parts).encode()).hexdigest()


def refinement_intervals(*, refinement: Refinement, rel_level: int = 1) -> RefinedIntervals:
    """:func:`report_intervals` of a refined set against the original it was refined from,
    for :func:`refinement_runs`: the one computation behind the benchmark zip's datasheet,
    the job page's budget panel and the API's ``budget``. Reads only. Cached (Django's
    cache, as the re-benchmark, :data:`assess.evaluation.rebench.CACHE_SECONDS`) under what
    it depends on, since the job page asks again at every poll. Never raises for a
    re-benchmark that cannot run (no finished run...): ``error`` says why instead."""
    refined, original = refinement.qrel_set, refinement.original
    try:
        runs = refinement_runs(refinement=refinement)
    except RebenchError as exc:
        return RefinedIntervals(error=str(exc))
    key = _refinement_key(refinement, runs, rel_level)
    found = cache.get(key)
    if found is not None:
        return found
    try:
        report = rebench_compute(
            dataset=refined.dataset, original=original, refined=refined, runs=runs,
            rel_level=rel_level,
        )  # fmt: skip
    except RebenchError as exc:
        return RefinedIntervals(error=str(exc))
    found = report_intervals(report=report, original=original, refined=refined, rel_level=rel_level)
    cache.set(key, found, CACHE_SECONDS)
    return found


def _cell(interval: iv.Interval, sample: SampleSize | None = None) -> str:
    """``0.6655 [0.6012, 0.7301] (n_b = 7)``, with ``n = 12; `` before n_b when ``sample``
    is given (n_b: :func:`~assess.evaluation.interval_reports.bearing_text`, left out when no
    sample is behind the interval) and "whole range; " first when fewer than 5 human labels
    bear on it (:func:`~assess.evaluation.interval_reports.sizes_text`)."""
    cell = f"{interval.estimate:.4f} [{interval.low:.4f}, {interval.high:.4f}]"
    sizes = sizes_text(interval, sample)
    return f"{cell} {sizes}" if sizes else cell


def _llm_only_cell(interval: iv.Interval, result: RefinedIntervals) -> str:
    """``0.6652 [0.6198, 0.7080] (n = 1; 300 queries resampled)``: the LLM-only interval's
    human labels (escalated pairs only) and the queries its bootstrap resamples, its sample."""
    cell = _cell(interval, result.sample(interval))
    return f"{cell[:-1]}; {result.queries:,} queries resampled)"


# Two runs make one pair: tau is then 1 or -1, and its interval, from that pair's, spans both
# unless the pair is settled. Said so that a -1 beside a tau-b of 1 is not read as a reversal.
TWO_RUNS_TAU = (
    " With two runs tau is 1 or -1 and nothing between: read the pair's difference and its "
    "interval instead."
)


def _summary_note(result: RefinedIntervals) -> str:
    """The per-system table's closing sentences: Kendall's tau of the original scores and the
    PPI estimates, the settled and undecided pairs, the budget and the notes."""
    sample = result.tau_sample()
    tau = (
        f" Kendall's tau {TAU_PPI} (nDCG@10) [95% interval]: {result.tau[0]:.3f} "
        f"[{result.tau[1]:.3f}, {result.tau[2]:.3f}] (bounds from simultaneous intervals on "
        f"every system pair; binary nDCG on both sides), n = {sample.text()} human labels "
        "(not the tau-b of the ranking agreement, which ranks the runs on the refined "
        "qrels' debate labels)." + (TWO_RUNS_TAU if len(result.pairs) == 1 else "")
        if result.tau and sample
        else ""
    )
    settled = result.settled_share
    undecided = [f"{p.a}-{p.b}" for p in result.pairs if not p.settled]
    pairs_note = (
        f" System pairs settled at 95% (each on its own, unadjusted): "
        f"{sum(p.settled for p in result.pairs):,} of {len(result.pairs):,} ({settled:.0%})"
        + (f"; undecided: {', '.join(undecided[:10])}" if undecided else "")
        + "."
        if settled is not None
        else ""
    )
    caveat = plan_caveat(result.ppi.n_human if result.ppi else None)
    budget = (
        f" About {result.more_labels:,} more audited labels for +-{BUDGET_TARGET} on "
        "nDCG@10 (from the sample so far" + (f"; {caveat}" if caveat else "") + ")."
        if result.more_labels
        else ""
    )
    # The note on jobs of other pools names them without their figures: the human sample's
    # words ("by job: ...") listed every job's just before.
    borrowed = sources_note(result.sources)
    short = sources_note(result.sources, figures=False)
    notes = [short if note == borrowed else note for note in result.notes]
    return tau + pairs_note + budget + "".join(f" Note: {n}." for n in notes)


def _sample_words(result: RefinedIntervals) -> str:
    """The human sample's sizes and each job's share of it, with its audit share (a job's
    labels may come from another job's reviews: :func:`sample_sources`)."""
    counts = result.counts
    words = (
        f"human sample: {counts.get('audited', 0):,} audited of {counts.get('agreed', 0):,} "
        f"agreed labels{audit_waiting_words(MissingLabels.of(counts))}, "
        f"{plural(counts.get('escalated', 0), 'escalated pair')} judged"
    )
    if result.sources:
        words += "; by job: " + "; ".join(source.text() for source in result.sources)
    return words


def _scope_words(result: RefinedIntervals) -> str:
    """What the prediction-powered intervals cover, for the per-system note: the label errors
    of the pooled pairs on these queries, not other queries. Said here and not only under the
    pairs: beside the LLM-only bootstrap over queries, a narrow interval from a few human
    labels read as a precise nDCG@10 when few queries hold pooled pairs."""
    over = "the evaluated queries"
    if result.queries:
        over = (
            f"these {plural(result.queries, 'query', 'queries')} (the errors move only the "
            f"{plural(result.pooled_queries, 'query', 'queries')} holding pooled pairs)"
        )
    return (
        f"They cover the errors of the pooled pairs' machine labels, conditional on {over}; "
        "not how the means would change with other queries."
    )


def interval_tables(result: RefinedIntervals) -> list[Table]:
    """The intervals as tables for the command and the page: per system (with the two naive
    intervals and the human labels behind each: audited and escalated), then the system
    pairs. With ``error`` set, one table whose note says what is missing. Simulated labels
    are not said again here: the page and the printout that show these tables open with
    the "SIMULATED labels" line (``result.simulated_line``), and a note repeating it under
    the table said nothing new."""
    sample = _sample_words(result)
    if result.ppi is None:
        return [
            Table(
                title="Intervals (95%) on the refined qrels",
                header=("system",),
                rows=[],
                note=f"{sample}.",
                empty=f"No interval: {result.error}.",
            )
        ]
    rows: list[tuple[str, ...]] = []
    for system, by in sorted(result.ppi.by_system.items()):
        human = result.human_only.by_system[system]["nDCG@10"] if result.human_only else None
        llm = result.llm_only.get(system)
        rows.append(
            (
                system,
                *(_cell(by[m]) for m in iv.INTERVAL_MEASURES),
                _llm_only_cell(llm, result) if llm else "n/a",
                _cell(human, result.sample(human)) if human else "n/a",
                result.sample(by["nDCG@10"]).text(),
            )
        )
    per_system = Table(
        title="Intervals (95%) on the refined qrels, prediction-powered",
        header=(
            "system",
            *(f"{m} [95%]" for m in iv.INTERVAL_MEASURES),
            "nDCG@10 LLM only",
            "nDCG@10 humans only",
            "n human labels",
        ),
        rows=rows,
        note=(
            "Debate labels corrected by the audit's human labels (GREG "
            f"estimator; docs/rebenchmarking.md). {_scope_words(result)} {sample}. n: the "
            "human labels behind each interval, audited and escalated (an escalated pair's "
            "label enters every estimate as it is); n_b: the human labels (audited or escalated) "
            f"that bear on that value, which its width rests on (fewer than {iv.MIN_BEARING}: the "
            "interval is "
            "every value the unjudged pairs allow; a t quantile on n_b - 1 degrees of freedom "
            "otherwise). 'LLM only': debate labels, bootstrap over queries, blind to "
            "label errors; 'humans only': the human sample alone. "
            f"{COVERAGE_CAVEAT}{_summary_note(result)}"
            + _range_note(i for by in result.ppi.by_system.values() for i in by.values())
        ),
        numeric=(False, *([False] * 5), True),
    )
    pairs = Table(
        title="System pairs: nDCG@10 difference on the refined qrels (a - b)",
        header=("a", "b", "difference [95%]", "order settled", "n human labels"),
        rows=[
            (
                p.a,
                p.b,
                _cell(p.difference),
                "yes" if p.settled else "no",
                result.sample(p.difference).text(),
            )
            for p in result.pairs
        ],
        note=(SETTLED_WORDS + _range_note(p.difference for p in result.pairs)),
        empty="No system pair to compare: one run only.",
        numeric=(False, False, False, False, True),
    )
    return [per_system, pairs]


def intervals_plot(*, found: RefinedIntervals) -> str:
    """The intervals plot (:func:`assess.evaluation.plots.intervals_svg`) of ``found``, which
    must hold intervals, against each run's nDCG@10 on the original qrels as the estimator
    measures it (``found.before``: binary gains at the relevance level): each
    interval with every human label behind it, audited and escalated; across the top the
    simulated labels if any (in red, as on the other plots), under the axes the caveat and
    the notes."""
    assert found.ppi is not None, "intervals_plot needs intervals"
    after, detail = {}, {}
    for system, by in found.ppi.by_system.items():
        sample = found.sample(by["nDCG@10"])
        after[system] = replace(by["nDCG@10"], n_human=sample.total)
        detail[system] = f"{sample.audited:,} audited, {sample.escalated:,} escalated"
    words = [COVERAGE_CAVEAT] + [f"Note: {note}." for note in found.notes]
    return plots.intervals_svg(
        found.before, after, caveat=" ".join(words), detail=detail, mark=found.simulated_line
    )
