"""The benchmark zip's datasheet gets its intervals here: :mod:`assess.refined` writes the
datasheet but may not import :mod:`assess.evaluation`, which owns the estimators; this module
of the assess app itself may import both, and ``assess.apps`` registers
:func:`refinement_intervals_sheet` with
:func:`assess.refined.benchmark_zip.benchmark_intervals_register`.
"""

from __future__ import annotations

from dataclasses import replace

from .evaluation.interval_reports import whole_range
from .evaluation.ranking import RBP_P
from .evaluation.refined_intervals import COVERAGE_CAVEAT, RefinedIntervals, refinement_intervals
from .models import Refinement
from .refined.datasheet_interval_lines import IntervalCell, IntervalsSheet
from .refined.datasheet_ranking import RankingSheet, RbpCell


def refinement_intervals_sheet(refinement: Refinement) -> IntervalsSheet:
    """The datasheet's intervals for ``refinement``: the same figures as
    :func:`assess.evaluation.refined_intervals.refinement_intervals` (the pool's runs
    against the original qrels; binary relevance, grade >= 1) as plain values: per run and
    measure the estimate, its 95% interval and its sample size (audited and escalated human
    labels), the run's plain value on the refined qrels (the re-benchmark page's refined
    leaderboard) and whether the interval is the whole range, the sample's counts, the
    settled run pairs, Kendall's tau and the caveat; ``error`` says why there are none. The
    same re-benchmark's ranking agreement and RBP go with them (``ranking``)."""
    found = refinement_intervals(refinement=refinement)
    counts = found.counts
    sheet = IntervalsSheet(
        error=found.error,
        audited=counts.get("audited", 0),
        escalated=counts.get("escalated", 0),
        agreed=counts.get("agreed", 0),
        audit_waiting=counts.get("audit_waiting", 0),
        unresolved=counts.get("unresolved", 0),
        beyond_budget=counts.get("beyond_budget", 0),
        caveat=COVERAGE_CAVEAT,
        notes=tuple(found.notes),
        ranking=_ranking_sheet(found),
    )
    if found.ppi is None:
        return sheet
    return replace(
        sheet,
        systems={
            system: {
                m: IntervalCell(
                    i.estimate,
                    i.low,
                    i.high,
                    found.sample(i).total,
                    i.n_bearing,
                    plain=found.plain.get(system, {}).get(m),
                    whole_range=whole_range(i),
                )
                for m, i in by.items()
            }
            for system, by in found.ppi.by_system.items()
        },
        pairs=len(found.pairs),
        settled=sum(p.settled for p in found.pairs),
        tau=found.tau,
    )


def _ranking_sheet(found: RefinedIntervals) -> RankingSheet | None:
    """The ranking agreement and RBP of ``found`` as plain values (None: not computed)."""
    a = found.agreement
    if a is None:
        return None
    return RankingSheet(
        runs=a.n,
        kendall_tau_b=a.kendall_tau_b,
        tauap_b=a.tauap_b,
        kendall_at_k=a.kendall_at_k,
        rbo=a.rbo,
        k=a.k,
        k_runs=a.k_n,
        rbo_p=a.rbo_p,
        rbp_p=RBP_P,
        rbp={
            s: RbpCell(before.base, before.residual, after.base, after.residual)
            for s, (before, after) in found.rbp.items()
        },
    )
