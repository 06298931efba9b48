"""Comparisons built on the refined-metric intervals of :mod:`assess.evaluation.intervals`:
paired differences between systems, the share of settled pairs, Kendall's tau with its
interval, the naive interval from the machine labels alone, and the budget planner. Pure,
no database."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from .interval_range import MIN_BEARING, footprints_equal, interval_quantile, sample_bears_on
from .intervals import (
    Interval,
    PooledLabel,
    SystemIntervals,
    bounded,
    greg_estimate,
    greg_interval,
    query_measure,
)
from .metrics import SCORE_DECIMALS, kendall_tau

# --------------------------------------------------------------------------- comparisons

# A difference within this of 0 is 0: two systems tied exactly get means that differ by float
# rounding (5.6e-17), which must not read as an order (settled) or as an untied pair. The
# same precision the paired tests round scores to (metrics.SCORE_DECIMALS).
TIE_TOLERANCE = 10.0**-SCORE_DECIMALS


def excludes_zero(interval: Interval) -> bool:
    """True when ``interval`` lies wholly above or below 0 by more than rounding
    (:data:`TIE_TOLERANCE`)."""
    return interval.low > TIE_TOLERANCE or interval.high < -TIE_TOLERANCE


def sign(value: float) -> int:
    """-1, 0 or 1: the sign of ``value``, 0 within :data:`TIE_TOLERANCE` of 0."""
    return (value > TIE_TOLERANCE) - (value < -TIE_TOLERANCE)


def difference_interval(intervals: SystemIntervals, a: str, b: str, measure: str) -> Interval:
    """95% interval on system ``a``'s mean ``measure`` minus system ``b``'s (paired: the same
    queries and the same human sample, so the estimator is the GREG estimator of the
    difference, with slopes slope_a - slope_b, and its design-based variance: Sarndal,
    Swensson and Wretman, *Model Assisted Survey Sampling*, 1992, sec. 6.6; see
    :mod:`assess.evaluation.intervals`), kept within [-1, 1] and within the systems' ranges
    (a's lowest less b's highest, a's highest less b's lowest:
    :mod:`assess.evaluation.interval_range`; :func:`bounded`: the whole range when the
    estimate left it). The whole range too when only it can settle the pair
    (:func:`range_only`: the sample measures no error of the difference although the pairs
    without a human label can move it, or fewer than MIN_BEARING audited pairs move the two
    systems unalike, too few to estimate it; the interval's ``n_bearing`` counts them). A
    difference those pairs cannot move
    (:func:`difference_known`) is its exact value, of width 0: F_a - F_b is the expectation of
    a - b under the model, and the expectation of a constant is that constant. Raises
    KeyError for an unknown system or measure."""
    base, diff, cross = _difference_terms(intervals, a, b, measure)
    found = greg_interval(base, diff, intervals.sample, cross, _reached(intervals, a, b, measure))
    if difference_known(intervals, a, b, measure):
        return replace(found, estimate=base, low=base, high=base)
    low, high = _difference_range(intervals, a, b, measure)
    informed = not range_only(intervals, a, b, measure, found)
    return bounded(found, low, high, informed=informed)


def _difference_range(
    intervals: SystemIntervals, a: str, b: str, measure: str
) -> tuple[float, float]:
    """(lowest, highest) a - b: a difference of two means of values in [0, 1] lies in
    [-1, 1], and within a's lowest less b's highest and a's highest less b's lowest (the
    logical bounds of :mod:`assess.evaluation.interval_range`, taken for each system apart:
    valid, if wider than the paired range, which is not computed)."""
    ranges = intervals.ranges.get(measure, {})
    if a in ranges and b in ranges:
        return ranges[a][0] - ranges[b][1], ranges[a][1] - ranges[b][0]
    return -1.0, 1.0


def difference_known(intervals: SystemIntervals, a: str, b: str, measure: str) -> bool:
    """Whether ``a`` minus ``b`` on ``measure`` is the same for every completion of the
    pairs without a human label (:func:`~assess.evaluation.interval_range.
    undetermined_queries` of their footprints finds no query; e.g. two systems with the same
    top 10 tie exactly on P@10 whatever the labels). False when a footprint is missing."""
    prints = intervals.footprint.get(measure, {})
    return a in prints and b in prints and footprints_equal(prints[a], prints[b])


def range_only(
    intervals: SystemIntervals, a: str, b: str, measure: str, found: Interval | None = None
) -> bool:
    """Whether only its range can settle ``a`` minus ``b``: the difference is not known
    (:func:`difference_known`) and the sample measures none of its error, because ``a`` or
    ``b`` is a system it measures none of (:func:`_pair_unseen`) or because the GREG
    variance of the difference is 0 (``found``, its interval, computed when None), as when
    every audited pair moves both systems alike (the same slopes) while an unaudited one
    moves only one, or is estimated from fewer than
    :data:`~assess.evaluation.interval_range.MIN_BEARING` pairs with a nonzero slope_a -
    slope_b (its ``n_bearing``). A variance of 0 then only fails to see an error; the range is the
    logical bounds the labels allow (partial identification: Manski, *Partial
    Identification of Probability Distributions*, 2003, ch. 1). The tolerance is the one a
    system's own interval uses (:func:`assess.evaluation.intervals.refined_intervals`)."""
    if difference_known(intervals, a, b, measure):
        return False
    if _pair_unseen(intervals, a, b, measure):
        return True
    if found is None:
        base, diff, cross = _difference_terms(intervals, a, b, measure)
        found = greg_interval(
            base, diff, intervals.sample, cross, _reached(intervals, a, b, measure)
        )
    if (found.n_bearing or 0) < MIN_BEARING:
        return True
    low, high = _difference_range(intervals, a, b, measure)
    return found.high - found.low <= 1e-12 * max(1.0, high - low)


def unmeasured_differences(intervals: SystemIntervals, measure: str = "nDCG@10") -> list[str]:
    """``"a - b measure"`` for every system pair (in name order) whose difference spans its
    range because its variance is 0 although the pairs without a human label can move it
    (:func:`range_only`, with no human label bearing on it), neither system being one the
    sample measures nothing of (those the systems' own notes name): what
    :func:`~assess.evaluation.interval_missing.unmeasured_difference_note` names."""
    return range_only_differences(intervals, measure)[0]


def range_only_differences(
    intervals: SystemIntervals, measure: str = "nDCG@10"
) -> tuple[list[str], list[tuple[str, str]]]:
    """(unmeasured, few): the system pairs (in name order, ``"a - b measure"``) that only
    their range settles (:func:`range_only`), neither system being one the sample measures
    nothing of: ``unmeasured`` those no human label bears on (n_b = 0, or a variance of 0),
    ``few`` those with 1 to MIN_BEARING - 1 bearing on them, each with its n_b as a string
    (what :func:`~assess.evaluation.interval_missing.few_labels_difference_note` names)."""
    unmeasured: list[str] = []
    few: list[tuple[str, str]] = []
    if measure not in intervals.slope:
        return unmeasured, few
    systems = sorted(intervals.by_system)
    for i, a in enumerate(systems):
        for b in systems[i + 1 :]:
            if _pair_unseen(intervals, a, b, measure) or difference_known(intervals, a, b, measure):
                continue
            base, diff, cross = _difference_terms(intervals, a, b, measure)
            reached = _reached(intervals, a, b, measure)
            found = greg_interval(base, diff, intervals.sample, cross, reached)
            if not range_only(intervals, a, b, measure, found):
                continue
            bearing = found.n_bearing or 0
            if 0 < bearing < MIN_BEARING:
                few.append((f"{a} - {b} {measure}", str(bearing)))
            else:
                unmeasured.append(f"{a} - {b} {measure}")
    return unmeasured, few


def _pair_unseen(intervals: SystemIntervals, a: str, b: str, measure: str) -> bool:
    """Whether ``a`` or ``b`` is a system no audited pair reaches on ``measure``: the sample
    measures no error of it (its own interval is its whole range), so none of a difference
    with it either, which then only its range can settle."""
    return bool({(measure, a), (measure, b)} & intervals.unseen)


def _difference_terms(
    intervals: SystemIntervals, a: str, b: str, measure: str
) -> tuple[float, list[float], np.ndarray]:
    """(F_a(x) - F_b(x), slope_a - slope_b per sampled pair, F_ij of a less b's per couple):
    the GREG terms of a - b."""
    sa, sb = intervals.slope[measure][a], intervals.slope[measure][b]
    base = intervals.base[measure][a] - intervals.base[measure][b]
    crosses = intervals.cross.get(measure, {})
    cross = crosses.get(a, np.zeros(0)) - crosses.get(b, np.zeros(0))
    return base, [x - y for x, y in zip(sa, sb, strict=True)], cross


def _reached(intervals: SystemIntervals, a: str, b: str, measure: str) -> np.ndarray | None:
    """Whether each sampled pair lies in ``a``'s or ``b``'s top k on ``measure`` (what a
    difference's n_b is capped at: :func:`~assess.evaluation.interval_range.sample_bears_on`);
    None when either system's is not kept."""
    reach = intervals.reach.get(measure, {})
    return reach[a] | reach[b] if a in reach and b in reach else None


@dataclass(frozen=True)
class PairComparison:
    """One system pair's difference (``a`` minus ``b``) and whether its sign is settled."""

    a: str
    b: str
    difference: Interval

    @property
    def settled(self) -> bool:
        """True when the 95% interval excludes 0 (by more than rounding): the order of a and b
        is settled."""
        return excludes_zero(self.difference)


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


def kendall_tau_interval(
    intervals: SystemIntervals,
    original: Mapping[str, float],
    *,
    measure: str = "nDCG@10",
    level: float = 0.95,
) -> tuple[float, float, float] | None:
    """(tau-b, low, high): Kendall's tau-b (:func:`assess.evaluation.metrics.kendall_tau`)
    between the leaderboard under ``original`` scores ({system: score}, fixed) and the
    refined estimates, with an interval that holds with probability >= ``level`` (up to the
    normal approximation of each difference).

    The interval comes from simultaneous intervals on every system pair's difference
    (:func:`difference_interval`'s GREG estimator and variance, at level ``1 - (1 -
    level) / M`` each for the M pairs: Bonferroni, as in Dunn, "Multiple comparisons among
    means", JASA 1961); a pair with a system no audited pair reaches
    (``intervals.unseen``: none, or fewer than MIN_BEARING, of its audited pairs move it),
    or whose difference has variance 0 or fewer than MIN_BEARING audited pairs moving it
    although the unaudited pairs can move it, is settled only by its range
    (:func:`range_only`), since its variance measures nothing; the others' intervals take
    the t quantile on their n_b - 1 degrees of freedom; a pair whose difference is known
    (:func:`difference_known`) is settled by that value. With probability >= ``level``
    every pair whose simultaneous interval excludes 0 is ordered as its estimate says; tau
    is then at least the tau-b with every other pair counted discordant with the original order and
    at most the one with every other pair concordant. Pairs tied in ``original`` count for neither,
    as in tau-b. An open pair may also be tied on the refined side: the perfect assessor's
    completion ties near-identical systems exactly (two runs with the same relevant documents in
    their top 100 on every query have the same R@100), and tau-b's tie correction then shrinks its
    denominator, so the bounds are taken over those ties too (:func:`tau_b_bounds`); the
    point estimate takes the refined side as untied (its estimates are continuous).
    Conservative by construction: a percentile interval of tau over draws around the
    estimate does not cover (tau is bounded and moves in steps; simulated with 20 systems
    0.01 apart and standard errors of 0.01, such an interval covered the true tau in 0-13%
    of cases). None when tau is undefined (fewer than two systems, or one side constant)."""
    systems = sorted(s for s in intervals.by_system if s in original)
    # Systems tied exactly get scores that differ by float rounding (0.1 + 0.2 against 0.3):
    # the ties below are counted on the scores as kendall_tau rounds them, so that the tau and
    # its bounds see the same ties.
    before = {s: round(original[s], SCORE_DECIMALS) for s in systems}
    centre = {s: intervals.by_system[s][measure].estimate for s in systems}
    tau, _ = kendall_tau(before, centre)
    if tau is None:
        return None
    pairs = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1 :]]
    each = 1 - (1 - level) / len(pairs)  # Bonferroni: each pair's own level
    agree = open_untied = open_tied = tied_before = 0
    for a, b in pairs:
        sign_before = (before[a] > before[b]) - (before[a] < before[b])
        tied_before += sign_before == 0
        if range_only(intervals, a, b, measure) or difference_known(intervals, a, b, measure):
            # Only the pair's range can settle it (difference_interval's whole range), or the
            # pair's difference is known exactly (difference_interval gives that value).
            found = difference_interval(intervals, a, b, measure)
        else:
            found = _difference_at(intervals, a, b, measure, each)
        if excludes_zero(found):
            if sign_before:
                agree += 1 if (found.estimate > 0) == (sign_before > 0) else -1
        elif sign_before:
            open_untied += 1
        else:
            open_tied += 1
    low, high = tau_b_bounds(
        agree=agree,
        open_untied=open_untied,
        open_tied=open_tied,
        pairs=len(pairs),
        tied_before=tied_before,
    )
    return tau, min(low, tau), max(high, tau)


def tau_b_bounds(
    *, agree: int, open_untied: int, open_tied: int, pairs: int, tied_before: int
) -> tuple[float, float]:
    """(lowest, highest) Kendall tau-b, tau-b = (C - D) / sqrt((n0 - n1) * (n0 - n2)) (Kendall
    1945; n0 = ``pairs``, n1 = ``tied_before`` the pairs tied on the first side, n2 those tied
    on the second), over every way the second side's open pairs can fall: ``agree`` is C - D
    over the settled pairs untied on the first side; each of the ``open_untied`` open pairs
    (untied on the first side) counts +1, -1 or, tied, 0 with n2 one higher; each of the
    ``open_tied`` (tied on the first side) counts 0 either way but may raise n2. Orders that
    no ranking could give (ties that are not transitive) are allowed too: bounds, not the
    exact range. Raises ValueError when the first side is all ties (tau undefined)."""
    untied = pairs - tied_before
    if untied <= 0:
        raise ValueError("tau-b is undefined when the first side ties every pair")
    low, high = 1.0, -1.0
    for k in range(open_untied + 1):  # k open pairs tied on the second side
        for j in {0, open_tied}:  # |tau| only grows with ties of first-side ties: ends suffice
            left = pairs - k - j
            if left <= 0:
                continue
            scale = math.sqrt(untied * left)
            high = max(high, (agree + open_untied - k) / scale)
            low = min(low, (agree - open_untied + k) / scale)
    return max(-1.0, low), min(1.0, high)


def _difference_at(
    intervals: SystemIntervals, a: str, b: str, measure: str, level: float
) -> Interval:
    """The GREG estimate of ``a`` minus ``b`` (:func:`difference_interval`) with its interval
    at ``level`` instead of 95% (the t quantile on n_b - 1 degrees of freedom,
    :func:`~assess.evaluation.interval_range.interval_quantile`), unclipped."""
    base, diff, cross = _difference_terms(intervals, a, b, measure)
    point, _model, used = greg_estimate(base, diff, intervals.sample, cross)
    arrays = intervals.sample.arrays()
    bearing = sample_bears_on(
        diff,
        arrays.design_weight,
        cross,
        intervals.sample.couples,
        variance=arrays.variance,
        reached=_reached(intervals, a, b, measure),
    )
    half = interval_quantile(bearing, level) * math.sqrt(used)
    return Interval(point, point - half, point + half, 0, bearing)


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
    refined qrels file has them), and a 95% percentile bootstrap over the ``queries`` (Efron
    and Tibshirani 1993, ch. 13; its sample is the queries, not human labels: the returned
    intervals' ``n_human`` is 0). It ignores the machine labels' errors, so it need not
    cover the human-completed value: shown beside the prediction-powered interval for
    contrast. Every grade is made binary at ``rel_level`` first (grade >= ``rel_level`` is
    relevant), the prediction-powered estimate's own definition, so the two columns measure
    the same nDCG@10. Pairs with neither label count as non-relevant."""
    labels: dict[str, dict[str, int]] = {
        q: {d: int(g >= rel_level) for d, g in j.items()} for q, j in fixed.items()
    }
    for label in pool:
        value = label.machine if label.machine is not None else label.human
        labels.setdefault(label.query_id, {})[label.doc_id] = int((value or 0) >= rel_level)
    draws = np.random.default_rng(seed).integers(0, len(queries), size=(resamples, len(queries)))
    out: dict[str, Interval] = {}
    for system, ranked in sorted(runs.items()):
        values = np.array(
            [query_measure(measure, ranked.get(q, []), labels.get(q, {})) for q in queries]
        )
        means = np.sort(values[draws].mean(axis=1))
        point = float(values.mean())
        low = float(means[int(0.025 * (resamples - 1))])
        high = float(means[int(math.ceil(0.975 * (resamples - 1)))])
        out[system] = Interval(point, low, high, 0)
    return out


# --------------------------------------------------------------------------- budget


def first_step_note(intervals: SystemIntervals, *, measure: str = "nDCG@10") -> str:
    """Words on the systems for which :func:`labels_for_half_width` gives only a first step
    (``measure``'s n_b from 1 to MIN_BEARING - 1: the labels that would bring it to
    MIN_BEARING, not to the target width), "" when there are none."""
    few = sorted(
        name
        for name, system in intervals.by_system.items()
        if 0 < (system[measure].n_bearing or 0) < MIN_BEARING
    )
    if not few:
        return ""
    return (
        f"for {', '.join(few)}, whose {measure} rests on fewer than {MIN_BEARING} labels' "
        f"effective size (n_b), the more audited labels planned are only a first step, those "
        f"that would give each {MIN_BEARING} if n_b grows with the audit share (judged "
        "escalations bearing on it do not): its width is known once they are in, so plan "
        "again then"
    )


def labels_for_half_width(
    intervals: SystemIntervals, *, target: float = 0.01, measure: str = "nDCG@10", pool_size: int
) -> int:
    """About how many more human audit labels would bring every system's ``measure``
    interval to a half-width of ``target``, if the audit share of the machine-labelled pairs
    (``pool_size`` of them) were raised uniformly: under the Poisson design the variance
    scales as (1 - pi) / pi, so the needed share is pi' = 1 / (1 + (1 - pi)/pi * (target/h)^2)
    for the current half-width h (Cochran, *Sampling Techniques*, 1977, sec. 4.4). 0 when
    every interval is already narrow enough. An estimate from the sample so far: its own
    uncertainty is large while few labels are in. Where a cell's variance floor (the
    Jeffreys point of an audit that saw few disagreements) dominates, the variance falls
    faster than (1 - pi) / pi as labels come in, so the figure is then an upper estimate (a
    reviewer's example: 400 more labels said where about 170 would do); and the uncertainty
    of escalated pairs still unjudged, which a larger audit cannot shrink, is not in it. The
    second-order term's variance (two audited pairs of one query) falls as ((1 - pi) / pi)^2,
    faster still: one more reason the figure is an upper estimate. A system no audited pair
    reaches (``intervals.unseen`` with n_b 0) is left out: its interval is the whole range
    its unjudged pairs allow, a width that does not shrink as (1 - pi) / pi. One whose value
    rests on too few labels (n_b from 1 to MIN_BEARING - 1, its interval the whole range) is
    not put through Cochran's rule either: its whole-range half-width would ask for nearly
    every pair, which says nothing about the variance. It asks instead for the share that
    brings its n_b to MIN_BEARING, pi * MIN_BEARING / n_b, taking n_b (Kish's effective
    size of the labels bearing on it) to grow in proportion to the share, as the count of
    an equal-probability sample does; its width is known only once those labels are in, so
    for it the figure is a first step (plan again then), not an upper estimate."""
    n = intervals.n_human
    if not n or pool_size <= 0:
        return 0
    pi = min(1.0, n / pool_size)
    if pi >= 1.0:
        return 0
    needed = pi
    for name, system in intervals.by_system.items():
        bearing = system[measure].n_bearing
        if (measure, name) in intervals.unseen and not bearing:
            continue
        if bearing is not None and 0 < bearing < MIN_BEARING:
            needed = max(needed, min(1.0, pi * MIN_BEARING / bearing))
            continue
        half = system[measure].half_width
        if half > target:
            ratio = (1 - pi) / pi * (target / half) ** 2
            needed = max(needed, 1 / (1 + ratio))
    return max(0, math.ceil((needed - pi) * pool_size))
