"""Comparisons built on the refined-metric intervals of :mod:`assess.evaluation.intervals`:
paired differences between systems, the share of settled pairs, Kendall's tau with its
interval, the naive interval from the machine labels alone, and the budget planner. Pure,
no database."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .intervals import (
    Interval,
    PooledLabel,
    SystemIntervals,
    bounded,
    greg_interval,
    greg_variance,
    query_measure,
)
from .metrics import kendall_tau

# --------------------------------------------------------------------------- comparisons


def difference_interval(intervals: SystemIntervals, a: str, b: str, measure: str) -> Interval:
    """95% interval on system ``a``'s mean ``measure`` minus system ``b``'s (paired: the same
    queries and the same human sample, so the estimator is the GREG estimator of the
    difference, with slopes slope_a - slope_b; see :mod:`assess.evaluation.intervals`), kept
    within [-1, 1] (:func:`bounded`: the whole range when the estimate left it). Raises
    KeyError for an unknown system or measure."""
    sa, sb = intervals.slope[measure][a], intervals.slope[measure][b]
    base = intervals.base[measure][a] - intervals.base[measure][b]
    diff = [x - y for x, y in zip(sa, sb, strict=True)]
    # A difference of two means of values in [0, 1] lies in [-1, 1].
    return bounded(greg_interval(base, diff, intervals.sample), -1, 1)


@dataclass(frozen=True)
class PairComparison:
    """One system pair's difference (``a`` minus ``b``) and whether its sign is settled."""

    a: str
    b: str
    difference: Interval

    @property
    def settled(self) -> bool:
        """True when the 95% interval excludes 0: the order of a and b is settled."""
        return self.difference.low > 0 or self.difference.high < 0


def pair_comparisons(intervals: SystemIntervals, measure: str = "nDCG@10") -> list[PairComparison]:
    """Every system pair (in name order, ``a`` < ``b``) with its paired difference interval.
    Each interval is at 95% on its own (no multiplicity adjustment: with S systems, about 5%
    of the S(S-1)/2 unsettled-by-truth pairs can look settled by chance)."""
    systems = sorted(intervals.by_system)
    return [
        PairComparison(a, b, difference_interval(intervals, a, b, measure))
        for i, a in enumerate(systems)
        for b in systems[i + 1 :]
    ]


def _covariance(
    intervals: SystemIntervals, measure: str, systems: Sequence[str]
) -> list[list[float]]:
    """The estimators' covariance matrix over ``systems``: the GREG covariance with each
    cell's model variance (Poisson design: sum (1 - pi_i) / pi_i^2 * slope_a,i * slope_b,i *
    v_c), rescaled as D C D so that its diagonal is each system's variance as its interval
    uses it (:func:`assess.evaluation.intervals.greg_variance`; D is diagonal and positive,
    so the matrix stays positive semi-definite)."""
    s = intervals.sample
    weight = [
        om * ip * ip * v for om, ip, v in zip(s.one_minus_pi, s.inv_pi, s.variance, strict=True)
    ]
    slopes = {name: intervals.slope[measure][name] for name in systems}
    scale = {}
    for name in systems:
        model, used = greg_variance(slopes[name], s)
        scale[name] = math.sqrt(used / model) if model > 0 else 1.0
    return [
        [
            scale[a]
            * scale[b]
            * sum(w * x * y for w, x, y in zip(weight, slopes[a], slopes[b], strict=True))
            for b in systems
        ]
        for a in systems
    ]


def kendall_tau_interval(
    intervals: SystemIntervals,
    original: Mapping[str, float],
    *,
    measure: str = "nDCG@10",
    draws: int = 1000,
    seed: int = 0,
) -> tuple[float, float, float] | None:
    """(tau-b, low, high): Kendall's tau-b (:func:`assess.evaluation.metrics.kendall_tau`)
    between the leaderboard under ``original`` scores ({system: score}, fixed) and the
    refined estimates, with a 95% percentile interval from ``draws`` draws of the
    estimators' joint normal distribution (a parametric bootstrap, Efron and Tibshirani, *An
    Introduction to the Bootstrap*, 1993, sec. 6.5; the joint covariance comes from the
    shared human sample). Seeded, so reproducible. None when tau is undefined (fewer than two
    systems, or one side constant)."""
    systems = sorted(s for s in intervals.by_system if s in original)
    before = {s: original[s] for s in systems}
    centre = np.array([intervals.by_system[s][measure].estimate for s in systems])
    tau, _ = kendall_tau(before, dict(zip(systems, centre.tolist(), strict=True)))
    if tau is None:
        return None
    rng = np.random.default_rng(seed)
    cov = np.array(_covariance(intervals, measure, systems))
    taus = [
        kendall_tau(before, dict(zip(systems, row.tolist(), strict=True)))[0]
        for row in rng.multivariate_normal(centre, cov, size=draws, method="eigh")
    ]
    found = np.array([t for t in taus if t is not None])
    low, high = np.percentile(found, [2.5, 97.5])
    return tau, float(low), float(high)


# --------------------------------------------------------------------------- naive intervals


def machine_only_intervals(
    *,
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    fixed: Mapping[str, Mapping[str, int]],
    pool: Sequence[PooledLabel],
    queries: Sequence[str],
    measure: str = "nDCG@10",
    rel_level: int = 1,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Interval]:
    """The naive interval from the machine labels alone: each system's mean ``measure`` with
    every pooled pair at its machine label (escalated pairs at their human label, as a
    refined qrels file has them), and a 95% percentile bootstrap over queries (Efron and
    Tibshirani 1993, ch. 13). It ignores the machine labels' errors, so it need not cover
    the human-completed value: shown beside the prediction-powered interval for contrast.
    Pairs with neither label count as non-relevant."""
    labels: dict[str, dict[str, int]] = {q: dict(j) for q, j in fixed.items()}
    for label in pool:
        value = label.machine if label.machine is not None else label.human
        labels.setdefault(label.query_id, {})[label.doc_id] = value or 0
    draws = np.random.default_rng(seed).integers(0, len(queries), size=(resamples, len(queries)))
    out: dict[str, Interval] = {}
    for system, ranked in sorted(runs.items()):
        values = np.array(
            [
                query_measure(measure, ranked.get(q, []), labels.get(q, {}), rel_level=rel_level)
                for q in queries
            ]
        )
        means = np.sort(values[draws].mean(axis=1))
        point = float(values.mean())
        low = float(means[int(0.025 * (resamples - 1))])
        high = float(means[int(math.ceil(0.975 * (resamples - 1)))])
        out[system] = Interval(point, low, high, 0)
    return out


# --------------------------------------------------------------------------- budget


def labels_for_half_width(
    intervals: SystemIntervals, *, target: float = 0.01, measure: str = "nDCG@10", pool_size: int
) -> int:
    """About how many more human audit labels would bring every system's ``measure``
    interval to a half-width of ``target``, if the audit share of the machine-labelled pairs
    (``pool_size`` of them) were raised uniformly: under the Poisson design the variance
    scales as (1 - pi) / pi, so the needed share is pi' = 1 / (1 + (1 - pi)/pi * (target/h)^2)
    for the current half-width h (Cochran, *Sampling Techniques*, 1977, sec. 4.4). 0 when
    every interval is already narrow enough. An estimate from the sample so far: its own
    uncertainty is large while few labels are in."""
    n = intervals.n_human
    if not n or pool_size <= 0:
        return 0
    pi = min(1.0, n / pool_size)
    if pi >= 1.0:
        return 0
    needed = pi
    for system in intervals.by_system.values():
        half = system[measure].half_width
        if half > target:
            ratio = (1 - pi) / pi * (target / half) ** 2
            needed = max(needed, 1 / (1 + ratio))
    return max(0, math.ceil((needed - pi) * pool_size))
