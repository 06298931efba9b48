"""Intervals on refined metrics from a probability sample of human labels. Pure, no database.

The setting (docs/METHOD.md, "Intervals on refined metrics"): N pooled pairs carry a machine
label (a debate's consensus, or a stage-0 label); pairs without one are judged by humans
whatever happens (escalated pairs: a take-all stratum, inclusion probability 1); and a
probability sample of the machine-labelled pairs also carries a human label (the audit: pair
i audited with a known inclusion probability pi_i, drawn independently of its labels). The
estimand is a system's mean measure over the evaluated queries under the qrels humans would
give the same pool: the fixed judgments plus the human label of every pooled pair.

The point estimate is the difference estimator of model-assisted survey sampling (Sarndal,
Swensson and Wretman, *Model Assisted Survey Sampling*, 1992, sec. 6.3), which is
prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, Science 382,
2023) written for a finite pool with known inclusion probabilities:

    theta_hat = theta(machine labels) + sum over audited pairs of z_i / pi_i

where z_i is the change pair i's human label makes to the mean measure (0 when the machine
label is right): the first term has no sampling error (it is computed over the whole pool),
the second is a Horvitz-Thompson estimate (Horvitz and Thompson, JASA 1952) of the total
correction. P@10 is linear in the labels, so z_i is exact. nDCG@10 and R@100 are ratios (the
ideal DCG or the denominator depends on every label of the query), so z_i is the exact change
when pair i alone takes its human label (a discrete linearisation; Oosterhuis et al. 2024,
arXiv 2407.02464, on why ratio measures need care): exact when a query has one wrong machine
label, and exact for every interaction of audited pairs (see :func:`_system_measure`), while
wrong labels that were not audited together interact unseen (a second-order bias, measured by
``simulate_study``).

The interval is not the normal one on that sum: wrong labels are rare, an audit catches few
of them, and a normal interval's standard error is small exactly when the audit missed them
(it covered 80% in the simulated study's hardest setting). :func:`audit_interval` draws the
number of wrong labels the audit did not reach from the binomial thinning that produced the
ones it saw, cell by cell (stratum x rank band), and their effects from the seen ones: see its
docstring and docs/measured.md for the coverage this gives on real qrels.

Why not ``ppi_py.ppi_mean_ci``: it assumes i.i.d. labelled and unlabelled samples from a
super-population (its variance adds var(Y_hat)/N for the unlabelled mean), whereas here the
pool is the whole finite population, the sample is Poisson with known, possibly unequal
inclusion probabilities (stratified audits), and the measures are ratios per query; for a
linear measure and one stratum the point estimates agree.

Missing human labels: a pair drawn for the audit whose human label is not in yet is treated
as missing at random within its stratum, and the stratum's inclusion probability is scaled by
its response rate (a weighting-class adjustment, Sarndal et al. sec. 15.6). An escalated pair
without a human label makes an interval impossible (it has no label of any kind): refused.

Shapes: qrels ``{query_id: {doc_id: grade}}``; ranked runs ``{system: {query_id: [doc_id in
rank order]}}``; pool labels :class:`PooledLabel`. Relevance is binary (grade >= rel_level);
nDCG uses binary gains, which equal trec_eval's linear gains on binary qrels.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

INTERVAL_MEASURES = ("nDCG@10", "P@10", "R@100")


class IntervalError(ValueError):
    """The human sample cannot support an interval; the message says what is missing."""


@dataclass(frozen=True)
class PooledLabel:
    """One pooled pair's labels.

    ``machine``: the machine label (grade), or None for a pair with none (escalated: humans
    decide it, inclusion 1). ``human``: the human label when the pair is in the human sample
    and judged, else None. ``stratum``: the sampling stratum's name (e.g. ``"label 1, round
    1"``). ``drawn``: True when the pair was drawn into the human sample (audit or
    escalation), whether or not its human label is in yet. ``inclusion``: the design's
    inclusion probability of the pair's stratum, in (0, 1] (escalated pairs: 1).
    """

    query_id: str
    doc_id: str
    machine: int | None
    human: int | None
    stratum: str
    drawn: bool
    inclusion: float


@dataclass(frozen=True)
class Interval:
    """A point estimate with its 95% interval and the number of human labels behind it."""

    estimate: float
    low: float
    high: float
    n_human: int

    @property
    def half_width(self) -> float:
        """Half the interval's width."""
        return (self.high - self.low) / 2

    def contains(self, value: float) -> bool:
        """True when ``value`` lies in the closed interval (a 1e-12 slack for rounding)."""
        return self.low - 1e-12 <= value <= self.high + 1e-12


@dataclass
class SystemIntervals:
    """Every system's estimate per measure, plus what the pair comparisons need."""

    method: str
    n_human: int
    queries: int
    by_system: dict[str, dict[str, Interval]]
    notes: list[str] = field(default_factory=list)
    # Per measure and system: each sampled pair's would-be effect w_i (see _system_measure)
    # and the base mean, kept so that differences and covariances use the same sample.
    would_be: dict[str, dict[str, list[float]]] = field(default_factory=dict, repr=False)
    base: dict[str, dict[str, float]] = field(default_factory=dict, repr=False)
    inv_pi: list[float] = field(default_factory=list, repr=False)
    one_minus_pi: list[float] = field(default_factory=list, repr=False)
    stratum_of: list[str] = field(default_factory=list, repr=False)
    wrong: list[bool] = field(default_factory=list, repr=False)
    ranks: dict[str, list[int]] = field(default_factory=dict, repr=False)


# --------------------------------------------------------------------------- measures


def _gain(grade: int) -> float:
    return float(grade) if grade > 0 else 0.0


def _ideal_dcg(grades: Sequence[int], k: int) -> float:
    top = sorted((g for g in grades if g > 0), reverse=True)[:k]
    return sum(_gain(g) / math.log2(rank + 1) for rank, g in enumerate(top, start=1))


def query_measure(
    measure: str, ranking: Sequence[str], judged: Mapping[str, int], *, rel_level: int = 1
) -> float:
    """One query's ``nDCG@10``, ``P@10`` or ``R@100`` under ``judged`` ({doc_id: grade}).

    Same definitions as ir_measures / trec_eval: nDCG@10 with linear gains and the ideal DCG
    over every judged grade (Jarvelin and Kekalainen, TOIS 2002); P@10 = relevant in the top
    10 / 10; R@100 = relevant in the top 100 / all relevant (0 when the query has none).
    Raises ValueError for another measure name.
    """
    if measure == "nDCG@10":
        ideal = _ideal_dcg(list(judged.values()), 10)
        if ideal <= 0:
            return 0.0
        dcg = sum(
            _gain(judged.get(d, 0)) / math.log2(rank + 1)
            for rank, d in enumerate(ranking[:10], start=1)
        )
        return dcg / ideal
    if measure == "P@10":
        return sum(1 for d in ranking[:10] if judged.get(d, 0) >= rel_level) / 10
    if measure == "R@100":
        total = sum(1 for g in judged.values() if g >= rel_level)
        if not total:
            return 0.0
        return sum(1 for d in ranking[:100] if judged.get(d, 0) >= rel_level) / total
    raise ValueError(f"no interval for measure {measure!r} (one of {', '.join(INTERVAL_MEASURES)})")


# --------------------------------------------------------------------------- the design


@dataclass
class _Design:
    """The pool seen by the estimator: per query the relevant pairs whose label is known
    (fixed judgments, escalated pairs' human labels), the machine labels, where each
    machine-labelled pair's slope is taken, and the weighted human sample."""

    hard: dict[str, set[str]]  # query -> documents known relevant
    soft: dict[str, dict[str, float]]  # query -> {document: where its label's slope is taken}
    machine: dict[str, set[str]]  # query -> documents the machine labels relevant
    sample: list[tuple[str, str, int, int]]  # (query, document, human label, machine label)
    inv_pi: list[float]
    one_minus_pi: list[float]
    notes: list[str]
    stratum_of: list[str] = field(default_factory=list)  # each sampled pair's stratum


def _response_rate(members: Sequence[PooledLabel], name: str) -> float:
    """The share of the stratum's drawn pairs that have their human label (missing at random
    within the stratum: each pair's inclusion probability is scaled by it). Raises
    IntervalError when a pair of the stratum could never be drawn (inclusion 0)."""
    if any(m.inclusion <= 0 for m in members):
        raise IntervalError(
            f"stratum {name!r}: {len(members)} machine-labelled pairs with audit share 0 "
            "(intervals need an audit share > 0)"
        )
    drawn = sum(1 for m in members if m.drawn)
    answered = sum(1 for m in members if m.drawn and m.human is not None)
    return answered / drawn if drawn else 1.0


def _strata_notes(strata: Mapping[str, Sequence[PooledLabel]]) -> list[str]:
    """One line per stratum without a human label: under the Poisson design the estimate
    stays unbiased (the draw just missed it), but its errors, if any, are not seen."""
    notes = []
    for name, members in sorted(strata.items()):
        if not any(m.human is not None for m in members):
            notes.append(
                f"stratum {name!r} ({len(members)} pairs) has no human label: its machine "
                "labels' errors, if any, are not seen by this sample"
            )
    return notes


def _design(
    fixed: Mapping[str, Mapping[str, int]],
    pool: Sequence[PooledLabel],
    *,
    use_machine: bool,
    rel_level: int,
) -> _Design:
    """The estimator's view of the pool; raises IntervalError when an escalated pair has no
    human label or a stratum cannot be sampled."""
    hard: dict[str, set[str]] = {
        q: {d for d, g in judged.items() if g >= rel_level} for q, judged in fixed.items()
    }
    strata: dict[str, list[PooledLabel]] = {}
    for label in pool:
        if label.machine is None:
            if label.human is None:
                raise IntervalError(
                    f"intervals need every escalated pair judged: query {label.query_id!r} "
                    f"document {label.doc_id!r} has no human label yet"
                )
            if label.human >= rel_level:
                hard.setdefault(label.query_id, set()).add(label.doc_id)
            continue
        strata.setdefault(label.stratum, []).append(label)
    design = _Design(hard, {}, {}, [], [], [], [])
    if not strata:
        return design
    design.notes = _strata_notes(strata)
    if not any(m.human is not None for members in strata.values() for m in members):
        raise IntervalError(
            "no audited pair has a human label yet (intervals need an audit share > 0 and "
            "some audited pairs judged)"
        )
    for name, members in sorted(strata.items()):
        response = _response_rate(members, name)
        for m in members:
            pi = min(1.0, m.inclusion * response)
            machine = int((m.machine or 0) >= rel_level) if use_machine else 0
            if machine:
                design.machine.setdefault(m.query_id, set()).add(m.doc_id)
            # Where the other pairs' slopes are taken (see _system_measure): every pair at
            # its machine label, except an audited one, at the midpoint of its machine and
            # human labels (exact for two wrong labels audited together). Moving it by
            # 1 / (2 pi) instead would weight their interaction 1 / (pi_i pi_j) and remove
            # the second-order bias, but on SciFact it doubled the estimate's standard
            # deviation (docs/measured.md): the bias is the smaller harm.
            point = float(machine)
            if m.drawn and m.human is not None:
                point = (machine + int(m.human >= rel_level)) / 2
            design.soft.setdefault(m.query_id, {})[m.doc_id] = point
            if m.drawn and m.human is not None:
                human = int(m.human >= rel_level)
                design.sample.append((m.query_id, m.doc_id, human, machine))
                design.stratum_of.append(name)
                design.inv_pi.append(1.0 / pi)
                design.one_minus_pi.append(1.0 - pi)
    return design


# --------------------------------------------------------------------------- expectations
#
# Each measure is sum over the top k of gain(rank) * Y_d * h(R), where R is the query's number
# of relevant documents: nDCG@10 has h(R) = 1 / ideal DCG(R), R@100 has h(R) = 1 / R and P@10
# has h = 1. With independent Bernoulli(p) labels for the machine-labelled pairs, the expected
# measure is multilinear in the p's, so one pair's influence, F(p_i = 1) - F(p_i = 0), is
# exact, and R's distribution is a convolution of one binomial per distinct p.

# Each measure's cut-off k (its top k is what a label can move).
_SPEC: dict[str, int] = {"nDCG@10": 10, "P@10": 10, "R@100": 100}


def _gains(measure: str, k: int) -> list[float]:
    if measure == "nDCG@10":
        return [1 / math.log2(r + 1) for r in range(1, k + 1)]
    if measure == "P@10":
        return [0.1] * k
    return [1.0] * k


def _h(measure: str, relevant: int) -> float:
    if measure == "P@10":
        return 1.0
    if relevant <= 0:
        return 0.0
    if measure == "R@100":
        return 1.0 / relevant
    return 1.0 / _ideal_dcg([1] * min(relevant, 10), 10)


class _Expect:
    """E[h(R)] and E[h(R + 1)] with one pair of group p left out, memoised per state."""

    def __init__(self, measure: str) -> None:
        self.measure = measure
        self.cache: dict[
            tuple[int, tuple[tuple[float, int], ...]], tuple[float, dict[float, float]]
        ] = {}

    def __call__(self, known: int, groups: Mapping[float, int]) -> tuple[float, dict[float, float]]:
        """(E[h(known + K)], {p: E[h(known + 1 + K without one pair of group p)]})."""
        state = (known, tuple(sorted((p, n) for p, n in groups.items() if n)))
        found = self.cache.get(state)
        if found is None:
            found = self.cache[state] = self._compute(known, dict(state[1]))
        return found

    def _compute(self, known: int, groups: dict[float, int]) -> tuple[float, dict[float, float]]:
        if self.measure == "P@10":
            return 1.0, {p: 1.0 for p in groups}
        h = [_h(self.measure, known + j) for j in range(sum(groups.values()) + 2)]
        h_plus = h[1:]
        full = _count_distribution(groups)
        mean0 = float(np.dot(full, h[: len(full)]))
        loo: dict[float, float] = {}
        for p in groups:
            fewer = dict(groups)
            fewer[p] -= 1
            dist = _count_distribution(fewer)
            loo[p] = float(np.dot(dist, h_plus[: len(dist)]))
        return mean0, loo


def _count_distribution(groups: Mapping[float, int]) -> np.ndarray:
    """P(K = j), j = 0..n, for K a sum of independent Binomial(n_p, p) over the groups: the
    coefficients of prod (1 - p + p z)^n_p. Computed as that polynomial, so that it is also
    defined for a p outside [0, 1] (where the multilinear extension is still the same
    polynomial; see _design for why such points occur)."""
    dist = np.ones(1)
    for p, n in groups.items():
        if n:
            coefficients = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
            dist = np.convolve(dist, np.asarray(coefficients, dtype=float))
    return dist


@dataclass
class _QueryTerms:
    """One system's top k of one query, summarised: the gain mass of the known relevant
    documents and of each p group's documents, and each document's gain."""

    hard_mass: float
    group_mass: dict[float, float]
    gain_of: dict[str, float]


def _terms(
    ranking: Sequence[str],
    k: int,
    gains: Sequence[float],
    hard: set[str],
    soft: Mapping[str, float],
    wanted: set[str],
) -> _QueryTerms:
    """One system's top ``k`` of one query summarised; ``wanted``: the documents whose own
    gain is asked for (the query's sampled pairs)."""
    terms = _QueryTerms(0.0, {}, {})
    for doc, gain in zip(ranking[:k], gains, strict=False):
        if doc in wanted:
            terms.gain_of[doc] = gain
        if doc in hard:
            terms.hard_mass += gain
        elif doc in soft:
            p = soft[doc]
            terms.group_mass[p] = terms.group_mass.get(p, 0.0) + gain
    return terms


@dataclass(frozen=True)
class _PairExpect:
    """One sampled pair's expectations with its label set to 1 and to 0 (the query's other
    labels as they are): the same for every system, so computed once per measure."""

    doc: str
    p_doc: float
    one: tuple[float, dict[float, float]]
    zero: tuple[float, dict[float, float]]


def _pair_expect(
    doc: str, p_doc: float, known: int, groups: Counter[float], expect: _Expect
) -> _PairExpect:
    rest = Counter(groups)
    rest[p_doc] -= 1
    return _PairExpect(doc, p_doc, expect(known + 1, rest), expect(known, rest))


def _influence(terms: _QueryTerms, pair: _PairExpect) -> float:
    """F(p_doc = 1) - F(p_doc = 0) for one query and system."""
    (one0, one_loo), (zero0, zero_loo) = pair.one, pair.zero
    gain = terms.gain_of.get(pair.doc, 0.0)
    delta = terms.hard_mass * (one0 - zero0) + gain * one0
    for p, mass in terms.group_mass.items():
        if p == pair.p_doc:
            mass -= gain
        delta += p * mass * (one_loo.get(p, 0.0) - zero_loo.get(p, 0.0))
    return delta


@dataclass
class _MeasureState:
    """What every system shares for one measure: each query's relevant set under the machine
    labels, and each sampled pair's expectations."""

    relevant: dict[str, set[str]]
    pairs: list[_PairExpect | None]  # None: the pair's query is not evaluated
    sampled: dict[str, set[str]]  # query -> its sampled documents


def _measure_state(design: _Design, queries: Sequence[str], expect: _Expect) -> _MeasureState:
    query_set = set(queries)
    relevant = {q: design.hard.get(q, set()) | design.machine.get(q, set()) for q in queries}
    groups: dict[str, Counter[float]] = {}
    pairs: list[_PairExpect | None] = []
    for q, doc, _human, _machine in design.sample:
        if q not in query_set:
            pairs.append(None)
            continue
        soft = design.soft[q]
        if q not in groups:
            groups[q] = Counter(soft.values())
        known = len(design.hard.get(q, set()))
        pairs.append(_pair_expect(doc, soft[doc], known, groups[q], expect))
    sampled: dict[str, set[str]] = {}
    for q, doc, _human, _machine in design.sample:
        sampled.setdefault(q, set()).add(doc)
    return _MeasureState(relevant, pairs, sampled)


def _system_measure(
    design: _Design,
    state: _MeasureState,
    ranked: Mapping[str, Sequence[str]],
    queries: Sequence[str],
    measure: str,
) -> tuple[float, list[float]]:
    """(the mean measure under the machine labels, w_i per sampled pair): w_i is the change
    pair i's label makes to the mean when its machine label is wrong, so z_i = w_i when the
    human disagrees with the machine and 0 otherwise.

    w_i = slope_i * (1 - 2 Yhat_i) / |queries|. The
    slope is F(p_i = 1) - F(p_i = 0) for the multilinear extension F of the query's measure
    (its expectation under independent Bernoulli labels), taken with the query's other
    machine-labelled pairs at their machine labels, except audited ones, which sit halfway
    between their machine and human labels. Correcting two wrong labels of one query moves a
    ratio measure by more or less than the two single corrections (the ideal DCG is concave
    in the number of relevant documents); the midpoint rule makes the sum of the two slopes
    equal the joint change exactly when both pairs are audited, so with every pair audited
    the estimate is the human value. Errors among pairs not audited together still interact
    unseen: the first-order bias the module docstring mentions.
    """
    k = _SPEC[measure]
    gains = _gains(measure, k)
    n = len(queries)
    total = 0.0
    for q in queries:
        ranking = ranked.get(q, [])
        total += query_measure(measure, ranking, dict.fromkeys(state.relevant[q], 1))
    terms_of: dict[str, _QueryTerms] = {}
    would_be: list[float] = []
    for (q, _doc, _human, machine), pair in zip(design.sample, state.pairs, strict=True):
        if pair is None:
            would_be.append(0.0)
            continue
        if q not in terms_of:
            hard, soft = design.hard.get(q, set()), design.soft[q]
            terms_of[q] = _terms(ranked.get(q, []), k, gains, hard, soft, state.sampled[q])
        # The change this pair's label would make were the machine label wrong.
        would_be.append(_influence(terms_of[q], pair) * (1 - 2 * machine) / n)
    return total / n, would_be


def _ranks(design: _Design, ranked: Mapping[str, Sequence[str]]) -> list[int]:
    """Each sampled pair's rank in the system's run (a large number when not ranked)."""
    out = []
    for q, d, _, _ in design.sample:
        try:
            out.append(list(ranked.get(q, ())).index(d) + 1)
        except ValueError:
            out.append(10**9)
    return out


def rank_band(rank: int, measure: str) -> str:
    """The rank band a pair's effect depends on: the top 3 and the rest of the top 10 move
    nDCG@10 and P@10 most, lower ranks only through the ideal DCG or not at all."""
    if measure == "R@100":
        return "top 100" if rank <= 100 else "below 100"
    return "top 3" if rank <= 3 else "4-10" if rank <= 10 else "below 10"


DRAWS = 2000


def audit_interval(
    base: float,
    would_be: Sequence[float],
    wrong: Sequence[bool],
    cells: Sequence[str],
    inv_pi: Sequence[float],
    *,
    seed: int = 0,
) -> Interval:
    """The estimate base + sum over audited wrong labels of w_i / pi_i (Horvitz-Thompson)
    with a 95% interval that respects how few wrong labels an audit catches.

    The correction is the sum of the effects of the wrong machine labels in the pool. In
    each cell (sampling stratum x rank band: a label's effect depends mostly on its rank)
    the audit saw k of them, each exactly; the ones it did not reach are a binomial
    thinning away (each audited with probability pi), so their number U given k follows
    the negative binomial NB(k + 1/2, pi) (the posterior predictive under a Jeffreys-type
    prior, as audit sampling bounds the misstatements it did not see). The audit being a
    random sample, their effects are exchangeable with the k seen ones (Ericson, JRSS B
    1969, finite-population inference): their sum is drawn as U times a draw of the seen
    effects' mean (normal, with its standard error) plus the spread of U such effects. A
    cell whose audit found no wrong label (k = 0) still admits U from NB(1/2, pi), each with
    the effect of one of the cell's audited pairs, had its label been wrong. The interval is
    the 2.5% and 97.5% points of 2,000 seeded draws. With every pair audited (pi = 1) U = 0
    and the interval has no width. A normal interval on the Horvitz-Thompson sum
    under-covers here: with few wrong labels seen its standard error is small exactly when
    the estimate is far off.
    """
    point = base + sum(w * ip for w, bad, ip in zip(would_be, wrong, inv_pi, strict=True) if bad)
    by_cell: dict[str, tuple[float, list[float], list[float]]] = {}
    for w, bad, cell, ip in zip(would_be, wrong, cells, inv_pi, strict=True):
        # One inclusion probability per cell: pairs drawn with different ones (an audit
        # weighted by impact) fall in different cells.
        pi, seen, possible = by_cell.setdefault(f"{cell} / pi {1.0 / ip:.2g}", (1.0 / ip, [], []))
        (seen if bad else possible).append(w)
    rng = np.random.default_rng(seed)
    draws = np.full(DRAWS, base)
    for _cell, (pi, seen, possible) in sorted(by_cell.items()):
        draws += sum(seen)
        if pi >= 1.0 or not (seen or any(possible)):
            continue
        unseen = rng.negative_binomial(len(seen) + 0.5, pi, size=DRAWS)
        if seen:
            mean, sd = float(np.mean(seen)), float(np.std(seen))
            mean_draw = mean + sd / math.sqrt(len(seen)) * rng.standard_normal(DRAWS)
            draws += unseen * mean_draw + np.sqrt(unseen) * sd * rng.standard_normal(DRAWS)
        else:
            effects = np.asarray(possible)
            mean, sd = float(effects.mean()), float(effects.std())
            draws += unseen * mean + np.sqrt(unseen) * sd * rng.standard_normal(DRAWS)
    low, high = np.percentile(draws, [2.5, 97.5])
    return Interval(point, min(float(low), point), max(float(high), point), len(would_be))


def bounded(found: Interval, low: float, high: float) -> Interval:
    """``found`` kept within the range ``[low, high]`` the estimand cannot leave (a mean of
    per-query values in [0, 1]: [0, 1]; a difference of two: [-1, 1]). An estimate outside
    that range comes from a human sample too small to say anything (a Horvitz-Thompson sum
    over one or two labels with large weights): the interval is then the whole range, never
    a clipped, zero-width one that would look certain; otherwise its ends are clipped."""
    if not low <= found.estimate <= high:
        return Interval(min(max(found.estimate, low), high), low, high, found.n_human)
    return Interval(found.estimate, max(found.low, low), min(found.high, high), found.n_human)


def refined_intervals(
    *,
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    fixed: Mapping[str, Mapping[str, int]],
    pool: Sequence[PooledLabel],
    queries: Sequence[str],
    measures: Sequence[str] = INTERVAL_MEASURES,
    rel_level: int = 1,
    use_machine: bool = True,
) -> SystemIntervals:
    """95% intervals on each system's mean measure under the human-completed qrels.

    ``runs``: ``{system: {query_id: [doc_id, ...]}}`` in rank order; ``fixed``: the judgments
    that are not pooled (the original qrels); ``pool``: every pooled pair's labels;
    ``queries``: the evaluated queries (the macro average's denominator). Relevance is binary
    (grade >= ``rel_level``). With ``use_machine=False`` the machine labels are ignored: the
    estimator from the human sample alone (one stratum, a constant model), shown beside the
    prediction-powered one. The method is in the module docstring. Raises IntervalError
    naming the stratum or pair that makes an interval impossible or when ``queries`` is
    empty, ValueError for an unknown measure.
    """
    if not queries:
        raise IntervalError("intervals need at least one evaluated query")
    for measure in measures:
        if measure not in _SPEC:
            raise ValueError(f"no interval for measure {measure!r} (one of {', '.join(_SPEC)})")
    design = _design(fixed, pool, use_machine=use_machine, rel_level=rel_level)
    wrong = [human != machine for _, _, human, machine in design.sample]
    ranks_of: dict[str, list[int]] = {}
    out: dict[str, dict[str, Interval]] = {}
    zs: dict[str, dict[str, list[float]]] = {}
    bases: dict[str, dict[str, float]] = {}
    for measure in measures:
        state = _measure_state(design, queries, _Expect(measure))
        for system, ranked in sorted(runs.items()):
            base, would_be = _system_measure(design, state, ranked, queries, measure)
            if system not in ranks_of:
                ranks_of[system] = _ranks(design, ranked)
            ranks = ranks_of[system]
            cells = [
                f"{name} / {rank_band(r, measure)}"
                for name, r in zip(design.stratum_of, ranks, strict=True)
            ]
            found = audit_interval(base, would_be, wrong, cells, design.inv_pi)
            # Every measure here is a mean of per-query values in [0, 1]: so is the truth.
            out.setdefault(system, {})[measure] = bounded(found, 0.0, 1.0)
            zs.setdefault(measure, {})[system] = would_be
            bases.setdefault(measure, {})[system] = base
    return SystemIntervals(
        method="ppi" if use_machine else "human_only",
        n_human=len(design.sample),
        queries=len(queries),
        by_system=out,
        notes=design.notes,
        would_be=zs,
        base=bases,
        inv_pi=design.inv_pi,
        one_minus_pi=design.one_minus_pi,
        stratum_of=design.stratum_of,
        wrong=wrong,
        ranks=ranks_of,
    )
