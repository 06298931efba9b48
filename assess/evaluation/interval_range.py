"""The range a refined measure can take whatever the pooled pairs without a human label turn out
to be: the logical bounds an interval on the human-completed value never needs to cross.
Pure, no database.

The estimand of :mod:`assess.evaluation.intervals` is a system's mean measure under the fixed
judgments plus the human label of every pooled pair. The pairs whose human label is known
(escalations judged, audited pairs) are fixed; every other pooled pair may be relevant or
not. Over those 2^U completions the mean measure has a least and a greatest value, found
exactly per query (a pair belongs to one query, so the queries' extremes add up):

- P@10: the unknown pairs in the top 10 all relevant (highest) or all not (lowest).
- R@100 = a / b (relevant in the top 100 over all relevant): highest with the unknown pairs in
  the top 100 relevant and the others not ((a + x) / (b + x) grows with x when a <= b);
  lowest with those in the top 100 not relevant and the others relevant.
- nDCG@10 with binary gains (the estimator's): the ideal DCG depends only on how many pairs
  are relevant, so for k unknown pairs of the top 10 called relevant the highest DCG takes
  the k best-ranked of them and the lowest the k worst-ranked; unknown pairs below the top
  10 only raise the ideal DCG, so they are not relevant for the highest value and relevant
  for the lowest. The extremes are the best and worst of those k = 0 ... 10 cases.

Clipping a valid interval to a set that surely holds the estimand keeps its coverage and
can only narrow it (an interval is a set of values the data do not rule out; these bounds
are values the labels themselves rule out). It matters where the human sample decides
almost everything: a pool whose every unaudited pair could only raise a system's P@10 must
not get an interval above the highest P@10 any completion gives.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.stats import t as student_t

from .interval_strata import PooledLabel


@dataclass(frozen=True)
class QueryLabels:
    """One query's labels as the bounds see them: ``relevant`` the documents known relevant
    (fixed judgments and human labels of pooled pairs at or above the relevance level),
    ``unknown`` the pooled documents without a human label."""

    relevant: frozenset[str] = frozenset()
    unknown: frozenset[str] = field(default_factory=frozenset)


def query_labels(
    *,
    fixed: Mapping[str, Mapping[str, int]],
    pool: Sequence[PooledLabel],
    queries: Sequence[str],
    rel_level: int = 1,
) -> dict[str, QueryLabels]:
    """``{query_id: QueryLabels}`` for the evaluated ``queries`` from the fixed judgments
    (``{query_id: {doc_id: grade}}``) and the pooled labels (a pooled pair's human label
    counts; its machine label does not, since the estimand is the humans' value)."""
    relevant: dict[str, set[str]] = {
        q: {d for d, g in fixed.get(q, {}).items() if g >= rel_level} for q in queries
    }
    unknown: dict[str, set[str]] = {q: set() for q in queries}
    for label in pool:
        if label.query_id not in relevant:
            continue
        if label.human is None:
            unknown[label.query_id].add(label.doc_id)
        elif label.human >= rel_level:
            relevant[label.query_id].add(label.doc_id)
        else:
            relevant[label.query_id].discard(label.doc_id)
    return {q: QueryLabels(frozenset(relevant[q]), frozenset(unknown[q])) for q in queries}


# The DCG discount of ranks 1-10, and the ideal DCG of n relevant documents (binary gains).
_DISCOUNT = [0.0] + [1.0 / math.log2(r + 1) for r in range(1, 11)]
_IDEAL = [sum(_DISCOUNT[1 : n + 1]) for n in range(11)]


def _ideal(count: int) -> float:
    return _IDEAL[min(count, 10)]


def _ndcg_range(ranking: Sequence[str], labels: QueryLabels) -> tuple[float, float]:
    top = ranking[:10]
    base = sum(_DISCOUNT[r] for r, d in enumerate(top, 1) if d in labels.relevant)
    gains = [_DISCOUNT[r] for r, d in enumerate(top, 1) if d in labels.unknown]
    below = len(labels.unknown) - len(gains)
    known = len(labels.relevant)
    low, high = math.inf, -math.inf
    best = worst = base  # with the k best-ranked / the k worst-ranked open pairs relevant
    for k in range(len(gains) + 1):
        if k:
            best += gains[k - 1]
            worst += gains[-k]
        ideal_high, ideal_low = _ideal(known + k), _ideal(known + k + below)
        high = max(high, best / ideal_high if ideal_high else 0.0)
        low = min(low, worst / ideal_low if ideal_low else 0.0)
    return low, high


def query_range(measure: str, ranking: Sequence[str], labels: QueryLabels) -> tuple[float, float]:
    """(lowest, highest) value of one query's ``measure`` (``nDCG@10``, ``P@10`` or
    ``R@100``, binary relevance) over every completion of its unknown pairs (module
    docstring). Raises ValueError for another measure."""
    if measure == "nDCG@10":
        return _ndcg_range(ranking, labels)
    if measure == "P@10":
        top = ranking[:10]
        known = sum(1 for d in top if d in labels.relevant)
        return known / 10, (known + sum(1 for d in top if d in labels.unknown)) / 10
    if measure == "R@100":
        top = ranking[:100]
        known = sum(1 for d in top if d in labels.relevant)
        inside = sum(1 for d in top if d in labels.unknown)
        outside = len(labels.unknown) - inside
        total = len(labels.relevant)
        high = (known + inside) / (total + inside) if total + inside else 0.0
        low = known / (total + outside) if total + outside else 0.0
        return low, high
    raise ValueError(f"no range for measure {measure!r}")


def system_range(
    measure: str, ranked: Mapping[str, Sequence[str]], labels: Mapping[str, QueryLabels]
) -> tuple[float, float]:
    """(lowest, highest) mean ``measure`` of one system (``ranked``: ``{query_id: [doc_id in
    rank order]}``) over the queries of ``labels`` and every completion of their unknown
    pairs: the mean of the queries' extremes (each pair belongs to one query)."""
    lows, highs = 0.0, 0.0
    for q, query in labels.items():
        low, high = query_range(measure, ranked.get(q, []), query)
        lows += low
        highs += high
    n = len(labels) or 1
    return lows / n, highs / n


def query_footprint(measure: str, ranking: Sequence[str], labels: QueryLabels) -> Hashable:
    """What of one query's ``measure`` the pairs without a human label can move, as a key
    such that two systems with equal keys have a difference on this query that is the same
    for every completion of those pairs (the converse holds but for coincidences of the
    known values, which only make a difference look movable: conservative). ``ranking``,
    ``labels``: as :func:`query_range`; raises ValueError for another measure.

    Why each key suffices (binary relevance; U the query's unknown pairs, K its known ones):

    - P@10: a - b = (relevant in a's top 10 - in b's) / 10; an unknown pair in both top 10s
      (at any ranks) or in neither adds the same to both, so the set of unknown pairs in
      the top 10 decides.
    - R@100 = relevant in the top 100 / all relevant, the denominator shared and moved by
      every unknown pair: with the same unknown pairs in both top 100s, a - b = (known
      relevant in a's top 100 - in b's) / (|K| + relevant unknown), fixed only when the two
      numerators are equal, so the key is (that set, a's known count).
    - nDCG@10 = DCG / ideal DCG, the ideal shared and, below 10 known relevant documents,
      moved by every unknown pair: an unknown pair at the same rank in both top 10s (or in
      neither) adds the same gain to both DCGs, and a - b = (known DCG of a - of b) / ideal
      is then fixed only when the known DCGs are equal or the ideal cannot move (10 known
      relevant documents fill it), so the key is (unknown pairs with their ranks, a's
      known DCG, or None once the ideal is full).

    A query with no unknown pair has nothing to move: the key is None."""
    if not labels.unknown:
        return None
    if measure == "P@10":
        return frozenset(d for d in ranking[:10] if d in labels.unknown)
    if measure == "R@100":
        top = ranking[:100]
        known = sum(1 for d in top if d in labels.relevant)
        return frozenset(d for d in top if d in labels.unknown), known
    if measure == "nDCG@10":
        ranks: list[tuple[int, str]] = list(enumerate(ranking[:10], 1))
        placed = frozenset((doc, rank) for rank, doc in ranks if doc in labels.unknown)
        if len(labels.relevant) >= 10:
            return placed, None
        # Rounded: the same gains summed in another order differ by float rounding.
        dcg = sum(_DISCOUNT[rank] for rank, doc in ranks if doc in labels.relevant)
        return placed, round(dcg, 9)
    raise ValueError(f"no footprint for measure {measure!r}")


def system_footprint(
    measure: str, ranked: Mapping[str, Sequence[str]], labels: Mapping[str, QueryLabels]
) -> dict[str, Hashable]:
    """``{query_id: query_footprint}`` of one system (``ranked``: ``{query_id: [doc_id in rank
    order]}``) over the queries of ``labels`` that have an unknown pair."""
    return {
        q: query_footprint(measure, ranked.get(q, []), query)
        for q, query in labels.items()
        if query.unknown
    }


def footprints_equal(a: Mapping[str, Hashable], b: Mapping[str, Hashable]) -> bool:
    """Whether :func:`undetermined_queries` of ``a`` and ``b`` is empty, stopping at the first
    query that differs (most system pairs differ on their first query: the pair comparisons
    ask this for every pair of every measure)."""
    return all(b.get(q) == key for q, key in a.items()) and all(
        a.get(q) == key for q, key in b.items()
    )


def undetermined_queries(a: Mapping[str, Hashable], b: Mapping[str, Hashable]) -> list[str]:
    """The queries (sorted) on which the pairs without a human label can move system a's
    value less system b's, from their :func:`system_footprint` on the same labels. Each
    pair belongs to one query, so a - b, a sum over queries, is the same for every
    completion exactly when it is so on every query: an empty list says a - b is known."""
    return sorted(q for q in a.keys() | b.keys() if a.get(q) != b.get(q))


def sample_bears_on(
    slopes: Sequence[float],
    design_weight: Sequence[float] | np.ndarray,
    cross: Sequence[float] | np.ndarray = (),
    couples: Sequence[tuple[int, int]] = (),
    *,
    variance: Sequence[float] | np.ndarray | None = None,
    reached: Sequence[bool] | np.ndarray | None = None,
) -> int:
    """n_b, how many human labels (audited or escalated) of the probability sample bear on a
    value: the effective number of terms its variance estimate rests on,
    floor((sum_i t_i)^2 / sum_i t_i^2) (Kish, *Survey Sampling*, 1965, sec. 11.7; the
    degrees of freedom of Satterthwaite, 1946, for a sum of squares weighted by t_i), over
    the sampled pairs with a nonzero ``design_weight`` ((1 - pi) / pi^2: a pair drawn with
    certainty adds nothing to the variance) and a nonzero ``slopes`` entry (its first-order
    effect on the value, :func:`assess.evaluation.intervals.greg_interval`) or a couple of
    ``couples`` (indices into the sample, in ``cross``' order) with a nonzero ``cross`` term
    whose two members both have a weight. t_i = design weight * (slope_i^2 + the squares of
    its couples' cross terms) * ``variance`` (v_c of the pair's model cell; 1 each when
    None): n_b is the count when every term is alike and less when a few dominate.
    ``reached`` (one flag per sampled pair: in the top k the value reads, in either system's
    for a difference) caps n_b at the bearing pairs reached: a pair outside moves nDCG@10 or
    R@100 only through the normalisation (the ideal DCG, the relevant count), so the errors
    of the machine labels the value counts are measured by those inside alone. 0 when no
    such pair lies in the top k the value reads (a system whose top 10 holds none of the few
    audited pairs): the variance then measures none of its labels' errors, and
    :func:`assess.evaluation.intervals.bounded` gives the whole range. Between 1 and
    :data:`MIN_BEARING` - 1 the variance is estimated from too few terms to be trusted
    (:func:`interval_quantile`). ``couples`` empty: the couples count only when no pair's
    own slope does (as 1, the value being then moved by the sample all the same)."""
    weight = np.asarray(design_weight, dtype=float)
    slope = np.asarray(slopes, dtype=float)
    weighted = weight > 1e-15
    bearing = weighted & (np.abs(slope) * weight > 1e-15)
    square = slope * slope
    f = np.asarray(cross, dtype=float)
    crossed = np.abs(f) > 1e-15
    if couples and crossed.any():
        pair = np.asarray(couples, dtype=np.intp).reshape(-1, 2)
        # A couple bears through both members' weights: with one drawn surely, none.
        kept = crossed & weighted[pair[:, 0]] & weighted[pair[:, 1]]
        both = np.where(kept, f * f, 0.0)
        square = square + sum(np.bincount(pair[:, m], both, len(slope)) for m in (0, 1))
        bearing[pair[kept].ravel()] = True
    elif crossed.any() and not bearing.any():
        return 1
    scale = np.ones_like(weight) if variance is None else np.asarray(variance, dtype=float)
    terms = np.where(bearing, weight * square * scale, 0.0)
    total, squares = float(terms.sum()), float((terms * terms).sum())
    count = int(bearing.sum())
    # Equal terms give the count, up to rounding: hence the slack before the floor.
    effective = min(count, math.floor(total * total / squares + 1e-9)) if squares > 0 else count
    if reached is not None:
        effective = min(effective, int((bearing & np.asarray(reached, dtype=bool)).sum()))
    return effective


# An interval needs at least this many human labels bearing on its value (n_b,
# :func:`sample_bears_on`); with fewer it is the value's whole range. A convention, not a
# theorem (as n >= 30 is for the normal approximation): in a reviewer's simulation of 20
# queries x 10 pairs at audit shares 0.02-0.05 (600 replications each), 1.96 standard errors
# covered the human nDCG@10 and P@10 in 33-87% of cases at n_b < 5, 88.5-98% at 5-9 and
# 97-100% at 10 or more; the t quantile of interval_quantile in 83-91%, 96.2-100% and
# 98-100% (docs/measured.md, "Labels bearing on a value").
MIN_BEARING = 5


@functools.lru_cache(maxsize=4096)
def interval_quantile(bearing: int, level: float = 0.95) -> float:
    """The two-sided ``level`` quantile an interval's standard error is multiplied by: the
    Student t quantile on ``bearing`` - 1 degrees of freedom (``bearing``: n_b of
    :func:`sample_bears_on`), the small-sample interval for a survey mean whose variance is
    estimated from n units (Cochran, *Sampling Techniques*, 3rd ed., 1977, sec. 2.15;
    Sarndal, Swensson and Wretman, *Model Assisted Survey Sampling*, 1992, on design-based
    confidence intervals: the normal quantile holds only as n grows). At n_b = 6,
    t(0.975, 5) = 2.5706 where the normal's is 1.96. ``bearing`` below 2 has no degree of
    freedom: taken as 2 (callers give such a value its whole range, :data:`MIN_BEARING`). Raises
    ValueError for a ``level`` outside (0, 1)."""
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), not {level!r}")
    return float(student_t.ppf(1 - (1 - level) / 2, max(bearing, 2) - 1))


@dataclass(frozen=True)
class Interval:
    """A point estimate with its 95% interval and ``n_human``, the audited human labels behind
    it (the escalated pairs' human labels are counted apart, by the reports), and
    ``n_bearing``, those of them that move this value."""

    estimate: float
    low: float
    high: float
    n_human: int
    # n_b: the human labels of the probability sample that bear on this value
    # (:func:`sample_bears_on`); None where no sample is behind it (the naive intervals).
    n_bearing: int | None = None

    @property
    def half_width(self) -> float:
        """Half the interval's width."""
        return (self.high - self.low) / 2

    def contains(self, value: float) -> bool:
        """True when ``value`` lies in the closed interval (a 1e-12 slack for rounding)."""
        return self.low - 1e-12 <= value <= self.high + 1e-12


def bounded(found: Interval, low: float, high: float, *, informed: bool = True) -> Interval:
    """``found`` kept within the range ``[low, high]`` the estimand cannot leave (a mean of
    per-query values in [0, 1]: [0, 1]; a difference of two: [-1, 1]). An estimate outside
    that range comes from a human sample too small to say anything (a Horvitz-Thompson sum
    over one or two labels with large weights): the interval is then the whole range, never
    a clipped, zero-width one that would look certain; otherwise its ends are clipped.
    ``informed`` False: no audited pair moves this value (:func:`sample_bears_on`), so the
    sample measures no error of the machine labels it rests on, and its variance would be 0,
    or fewer than :data:`MIN_BEARING` do, too few to estimate it: the interval is the whole
    range too, not a zero-width or overconfident one. ``n_bearing`` is kept."""
    slack = 1e-9  # an estimate at a bound, up to rounding, is at the bound
    if not informed or not low - slack <= found.estimate <= high + slack:
        return replace(found, estimate=min(max(found.estimate, low), high), low=low, high=high)
    estimate = min(max(found.estimate, low), high)
    # Clipped from both sides, so an estimate at a bound up to rounding never inverts it.
    return replace(
        found,
        estimate=estimate,
        low=min(max(found.low, low), estimate),
        high=max(min(found.high, high), estimate),
    )
