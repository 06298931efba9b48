"""Intervals on a refined set's metrics, from the labels' provenance (database side).

A refined set's :class:`assess.models.LabelProvenance` rows say, per pool pair, the debate's
consensus label and round, whether the pair was escalated or drawn for the audit, the
human label and the pair's inclusion probability. They are turned into the pure estimator's
:class:`PooledLabel` list (:func:`assess.evaluation.intervals.refined_intervals`): agreed
pairs are machine-labelled, in strata "label L, round R", audited with their stratum's
stored probability (the job's audit share for sets refined before it was stored); escalated
pairs are human-labelled; pairs that were judged before (original qrels) are fixed. Pairs
with no final label are unjudged in the refined qrels, and are left out here too (so the
estimand is the refined qrels as a human would complete their labelled pairs); the notes say
how many.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db.models import Min

from assess.models import LabelProvenance, Refinement
from corpora.identical import skip_identical
from corpora.models import PairSource, QrelSet, Run
from corpora.services import run_rows
from debates.audit_design import stratum_name

from . import interval_comparisons as ic
from . import intervals as iv
from . import metrics
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

HUMAN_SOURCES = (LabelProvenance.Source.HUMAN, LabelProvenance.Source.ADJUDICATED)
BUDGET_TARGET = 0.01  # the half-width the budget planner aims at, on nDCG@10
# What the simulated studies measured (docs/measured.md): said wherever the intervals are
# shown, so that nobody reads them as exact 95% intervals.
COVERAGE_CAVEAT = (
    "Measured coverage of these nominal 95% intervals in simulated studies on real qrels: "
    "93-99.8% at a 10% audit (lowest on SciFact, about one relevant document a query; "
    "docs/measured.md): read them as approximate."
)


@dataclass
class RefinedIntervals:
    """Every interval a re-benchmark shows, or ``error`` saying what is missing; and, from
    :func:`report_intervals`, the re-benchmark's own ranking ``agreement`` and per run
    ``rbp`` (RBP on the original, on the refined qrels), which the datasheet shows too."""

    error: str = ""
    ppi: iv.SystemIntervals | None = None
    human_only: iv.SystemIntervals | None = None
    llm_only: dict[str, iv.Interval] = field(default_factory=dict)
    pairs: list[ic.PairComparison] = field(default_factory=list)
    tau: tuple[float, float, float] | None = None
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    more_labels: int | None = None  # more audit labels for +-BUDGET_TARGET on nDCG@10
    agreement: RankingAgreement | None = None
    rbp: dict[str, tuple[RbpScore, RbpScore]] = field(default_factory=dict)

    @property
    def settled_share(self) -> float | None:
        """Share of system pairs whose nDCG@10 order is settled at 95% (None: no pair)."""
        if not self.pairs:
            return None
        return sum(p.settled for p in self.pairs) / len(self.pairs)

    def as_json(self) -> dict[str, Any]:
        """``{"method", "error", "counts", "notes", "systems": {system: {measure: {"estimate",
        "low", "high", "n_human"}}}, "naive": {"llm_only": {...}, "human_only": {...}},
        "pairs": [{"a", "b", "difference", "low", "high", "settled"}], "settled_share",
        "kendall_tau": {"tau", "low", "high"}}``; intervals at 95%."""

        def one(i: iv.Interval) -> dict[str, float | int]:
            return {"estimate": i.estimate, "low": i.low, "high": i.high, "n_human": i.n_human}

        out: dict[str, Any] = {
            "method": "prediction-powered (GREG estimator over the audit, a model per "
            "stratum and rank band; docs/rebenchmarking.md)",
            "level": 0.95,
            "caveat": COVERAGE_CAVEAT,
            "error": self.error,
            "counts": self.counts,
            "notes": self.notes,
        }
        if self.ppi is None:
            return out
        out["systems"] = {
            s: {m: one(i) for m, i in by.items()} for s, by in self.ppi.by_system.items()
        }
        out["naive"] = {
            "llm_only": {s: one(i) for s, i in self.llm_only.items()},
            "human_only": (
                {s: one(by["nDCG@10"]) for s, by in self.human_only.by_system.items()}
                if self.human_only
                else {}
            ),
        }
        out["pairs"] = [
            {
                "a": p.a,
                "b": p.b,
                "difference": p.difference.estimate,
                "low": p.difference.low,
                "high": p.difference.high,
                "settled": p.settled,
            }
            for p in self.pairs
        ]
        out["settled_share"] = self.settled_share
        out["budget"] = {
            "measure": "nDCG@10",
            "target_half_width": BUDGET_TARGET,
            "more_human_labels": self.more_labels,
            "undecided_pairs": [[p.a, p.b] for p in self.pairs if not p.settled],
        }
        if self.tau is not None:
            out["kendall_tau"] = dict(zip(("tau", "low", "high"), self.tau, strict=True))
        return out


def pooled_labels(*, refined: QrelSet) -> tuple[list[iv.PooledLabel], dict[str, int]]:
    """The refined set's pool pairs as the estimator's labels, and counts by kind
    (``agreed``, ``audited``, ``escalated``, ``unresolved``, ``judged_before``). An agreed
    pair is in its audit stratum (:func:`debates.audit_design.stratum_name`) with the
    inclusion probability its provenance stored at refinement (for a set refined before
    that was stored, its job's audit share)."""
    counts = dict.fromkeys(("agreed", "audited", "escalated", "unresolved", "judged_before"), 0)
    labels: list[iv.PooledLabel] = []
    rows = (
        LabelProvenance.objects.filter(qrel_set=refined)
        .values_list(
            "query__query_id",
            "document__doc_id",
            "label",
            "source",
            "original_relevance",
            "consensus_label",
            "consensus_round",
            "review_kind",
            "inclusion",
            "job__audit_share",
        )
        .order_by("pk")
    )
    for q, d, label, source, original, consensus, round_, kind, inclusion, share in rows.iterator(
        chunk_size=5000
    ):
        if original is not None:
            counts["judged_before"] += 1
            continue
        human = label if source in HUMAN_SOURCES else None
        if consensus is not None:
            audited = kind == "audit"
            counts["agreed"] += 1
            counts["audited"] += audited and human is not None
            labels.append(
                iv.PooledLabel(
                    q, d, consensus, human if audited else None,
                    stratum_name(consensus, round_), audited,
                    float(share or 0.0) if inclusion is None else inclusion,
                )
            )  # fmt: skip
        elif human is not None:
            counts["escalated"] += 1
            labels.append(iv.PooledLabel(q, d, None, human, iv.ESCALATED, True, 1.0))
        else:
            # No label of any kind yet: humans' to decide, missing at random among the
            # escalated pairs in the intervals (see assess.evaluation.intervals).
            counts["unresolved"] += 1
            labels.append(iv.PooledLabel(q, d, None, None, iv.ESCALATED, True, 1.0))
    return labels, counts


def pool_best_ranks(*, refined: QrelSet) -> dict[tuple[str, str], int]:
    """``{(query_id, doc_id): rank}``: each pooled pair's best rank over the runs that put it
    in the pool the refined set was refined from (:class:`corpora.models.PairSource`). The
    intervals' model bands pairs by it, so the model is a fact of the pool, not of the runs a
    re-benchmark happens to evaluate."""
    pools = Refinement.objects.filter(qrel_set=refined).values("pool_id")
    rows = (
        PairSource.objects.filter(pair__pool_id__in=pools)
        .values_list("pair__query__query_id", "pair__document__doc_id")
        .annotate(best=Min("rank"))
    )
    return {(q, d): best for q, d, best in rows.iterator(chunk_size=5000)}


def rebench_intervals(
    *,
    original: QrelSet,
    refined: QrelSet,
    runs: Sequence[Run],
    rel_level: int = 1,
    original_scores: dict[str, float] | None = None,
) -> RefinedIntervals:
    """95% intervals on each run's nDCG@10, P@10 and R@100 under the refined qrels, the
    pair differences, the share of settled pairs and Kendall's tau against
    ``original_scores`` ({run: nDCG@10 on the original qrels}), with the two naive
    intervals beside them. Never raises for a sample that cannot support an interval:
    ``error`` says what is missing instead."""
    labels, counts = pooled_labels(refined=refined)
    result = RefinedIntervals(counts=counts)
    if counts["unresolved"]:
        result.notes.append(
            f"{counts['unresolved']:,} pool pairs have no final label: unjudged (not "
            "relevant) in the refined qrels and in its point values; in these intervals, "
            "missing at random among the escalated pairs"
        )
    fixed = qrels_dict(qrel_set=original)
    queries = sorted(q for q, judged in fixed.items() if judged)
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
        result.error = str(exc)
        result.ppi = result.human_only = None
        return result
    result.notes += result.ppi.notes
    result.llm_only = ic.machine_only_intervals(
        runs=ranked, fixed=fixed, pool=labels, queries=queries, rel_level=rel_level
    )
    result.pairs = ic.pair_comparisons(result.ppi)
    result.more_labels = ic.labels_for_half_width(
        result.ppi, target=BUDGET_TARGET, pool_size=counts["agreed"]
    )
    if original_scores and len(ranked) > 1:
        result.tau = ic.kendall_tau_interval(result.ppi, original_scores)
    return result


def _cell(interval: iv.Interval) -> str:
    return f"{interval.estimate:.4f} [{interval.low:.4f}, {interval.high:.4f}]"


def report_intervals(
    *, report: RebenchReport, original: QrelSet, refined: QrelSet, rel_level: int = 1
) -> RefinedIntervals:
    """:func:`rebench_intervals` for the runs of a re-benchmark ``report`` of ``original``
    vs ``refined``, with Kendall's tau against the report's original nDCG@10 scores (what
    the command, the page, the API and the pipeline show), carrying the report's ranking
    agreement and RBP along."""
    found = rebench_intervals(
        original=original,
        refined=refined,
        runs=rebench_runs(dataset=original.dataset, names=report.runs),
        rel_level=rel_level,
        original_scores={r.system: r.scores[metrics.NDCG10] for r in report.result.before},
    )
    result = report.result
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
    stored with its provenance, whose weight is still the job's share)."""
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


def _summary_note(result: RefinedIntervals) -> str:
    """The per-system table's closing sentences: Kendall's tau, the settled and undecided
    pairs, the budget and the notes."""
    tau = (
        f" Kendall's tau (original vs refined, nDCG@10): {result.tau[0]:.3f} "
        f"[{result.tau[1]:.3f}, {result.tau[2]:.3f}]."
        if result.tau
        else ""
    )
    settled = result.settled_share
    undecided = [f"{p.a}-{p.b}" for p in result.pairs if not p.settled]
    pairs_note = (
        f" System pairs settled at 95%: {sum(p.settled for p in result.pairs)} of "
        f"{len(result.pairs)} ({settled:.0%})"
        + (f"; undecided: {', '.join(undecided[:10])}" if undecided else "")
        + "."
        if settled is not None
        else ""
    )
    budget = (
        f" About {result.more_labels:,} more audited labels for +-{BUDGET_TARGET} on "
        "nDCG@10 (from the sample so far)."
        if result.more_labels
        else ""
    )
    return tau + pairs_note + budget + "".join(f" Note: {n}." for n in result.notes)


def interval_tables(result: RefinedIntervals) -> list[Table]:
    """The intervals as tables for the command and the page: per system (with the two naive
    intervals and the human sample's size), then the system pairs. With ``error`` set, one
    table whose note says what is missing."""
    counts = result.counts
    sample = (
        f"human sample: {counts.get('audited', 0):,} audited of {counts.get('agreed', 0):,} "
        f"agreed labels, {counts.get('escalated', 0):,} escalated pairs judged"
    )
    if result.ppi is None:
        return [
            Table(
                title="Intervals (95%) on the refined qrels",
                header=("system",),
                rows=[],
                note=f"No interval: {result.error}. {sample}.",
            )
        ]
    rows: list[tuple[str, ...]] = []
    for system, by in sorted(result.ppi.by_system.items()):
        human = result.human_only.by_system[system]["nDCG@10"] if result.human_only else None
        rows.append(
            (
                system,
                *(_cell(by[m]) for m in iv.INTERVAL_MEASURES),
                _cell(result.llm_only[system]) if system in result.llm_only else "n/a",
                _cell(human) if human else "n/a",
                f"{result.ppi.n_human:,}",
            )
        )
    summary = _summary_note(result)
    per_system = Table(
        title="Intervals (95%) on the refined qrels, prediction-powered",
        header=(
            "system",
            *(f"{m} [95%]" for m in iv.INTERVAL_MEASURES),
            "nDCG@10 LLM only",
            "nDCG@10 humans only",
            "n human",
        ),
        rows=rows,
        note=(
            f"Debate labels corrected by the audit's human labels (GREG estimator; "
            f"docs/rebenchmarking.md). {sample}. 'LLM only': debate labels, bootstrap over "
            f"queries, blind to label errors; 'humans only': the human sample alone. "
            f"{COVERAGE_CAVEAT}{summary}"
        ),
        numeric=(False, *([False] * 5), True),
    )
    pair_rows: list[tuple[str, ...]] = [
        (p.a, p.b, _cell(p.difference), "yes" if p.settled else "no") for p in result.pairs
    ]
    pairs = Table(
        title="System pairs: nDCG@10 difference on the refined qrels (a - b)",
        header=("a", "b", "difference [95%]", "order settled"),
        rows=pair_rows,
        note="Paired over queries and the same human sample; each interval at 95% on its own.",
    )
    return [per_system, pairs]
