"""Intervals on refined metrics from a probability sample of human labels. Pure, no database.

The setting (docs/METHOD.md, "Intervals on refined metrics"): N pooled pairs carry a machine
label (a debate's consensus, or a stage-0 label); pairs without one are judged by humans
whatever happens (escalated pairs: a take-all stratum, inclusion probability 1); and a
probability sample of the machine-labelled pairs also carries a human label (the audit: pair
i audited with a known inclusion probability pi_i, drawn independently of its labels; under
a two-phase Neyman audit the second phase's probabilities depend on the pilot's labels, so
weighting the pilot's pairs by their final pi_i is an approximation, with a small bias that
the variance floor below outweighs: docs/measured.md). The
estimand is a system's mean measure over the evaluated queries under the qrels humans would
give the same pool: the fixed judgments plus the human label of every pooled pair.

The estimator is the generalised regression (GREG) estimator of model-assisted survey
sampling (Sarndal, Swensson and Wretman, *Model Assisted Survey Sampling*, 1992, sec. 6.4
and 6.7), which is prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan and
Zrnic, Science 382, 2023; PPI++, Angelopoulos, Duchi and Zrnic 2024) written for a finite
pool with known inclusion probabilities and a measure that is not linear in the labels:

1. The model: the probability m_c that a human calls a machine-labelled pair relevant, per
   model cell c = sampling stratum (consensus label x round of agreement) x rank band of the
   pair's best rank over the runs its pool was built from (top 3, 4-10, below 10: relevance
   and a wrong label's effect both fall with rank; a fact of the pool, so the model does not
   change with the runs evaluated), estimated from the cell's audited pairs (the Hajek
   ratio sum y_i / pi_i over sum 1 / pi_i), shrunk towards its stratum's by one
   pseudo-label. This is what the machine label *predicts*: PPI's rectifier learnt per
   cell, so a consensus that is wrong 80% of the time predicts relevance 0.2, not 1.
2. The prediction: the expected measure F(x) with every unaudited machine-labelled pair
   relevant with probability m_c and independently so, every audited pair at its human
   label. Each measure is multilinear in the labels (see "expectations" below), so F(x) is
   computed exactly, ratio measures included.
3. The correction: sum over audited pairs of (y_i - m_c) * (1 / pi_i - 1) * dF/dx_i, the
   Horvitz-Thompson estimate (Horvitz and Thompson, JASA 1952) of the first-order effect of
   the unaudited pairs' deviations from the model (dF/dx_i = F(x_i = 1) - F(x_i = 0), exact
   for a multilinear F), plus the estimated O(1/n) bias of a model fitted on the same
   sample (see :func:`greg_interval`).
4. The second-order term: sum over couples of audited pairs of one query of
   e_i * e_j * F_ij * (1 / pi_i - 1) * (1 / pi_j - 1), the Horvitz-Thompson estimate of
   how the unaudited pairs' deviations interact two by two within a query
   (:mod:`assess.evaluation.interval_interactions`; F_ij the exact second mixed
   difference). It is zero for P@10, and it is what keeps nDCG@10 and R@100 centred on
   qrels with about one relevant document a query, where a query's labels are far from
   independent.

Why expand around the model and not around the machine labels (the plain difference
estimator, theta(machine labels) + HT sum of each wrong label's effect): nDCG@10 and R@100
are ratios (the ideal DCG or the denominator depends on every label of the query), so two
wrong labels in one query move them by more or less than the sum of their single effects
(this within-query argument is ours; Oosterhuis et al. 2024, arXiv 2407.02464, apply PPI
to IR evaluation with human annotations of whole queries, not within a query). Around the
machine labels
every wrong label's deviation has the same sign, so those interactions add up to a bias
(-0.035 nDCG@10 on SciFact, 80% coverage; docs/measured.md); around the model the deviations
are centred and their interactions cancel on average when a query's labels are about
independent (with the true m_c the bias vanished in the same study), leaving first-order
terms for the sample. When they are not (a query with one relevant document has exactly one:
ArguAna, SciFact), the interactions add up again, to a bias that does not shrink with the
number of queries (-0.04 R@100 on ArguAna's 1,401); step 4 estimates them. With every pair audited
(pi = 1) the estimate is the human value exactly.

The interval is symmetric about the estimate, with the GREG variance (Sarndal et al. sec.
6.6, Poisson sampling) per model cell: the larger of sum (1 - pi_i) / pi_i^2 * (dF/dx_i)^2
* e_i^2 (the sample's residuals) and the same with e_i^2 replaced by v_c = p(1 - p) at p, the 95%
point of the cell's Jeffreys posterior Beta(k + 1/2, n - k + 1/2) on the side of 1/2 (k relevant of
n audited). The second term is there for rare disagreements: an audit that saw none in a
large cell does not show there are none, and a normal interval built from what it saw would
be narrowest exactly when it missed them. Where a query has two audited pairs, each
(dF/dx_i)^2 is taken at the query's human labels instead
(:func:`~assess.evaluation.interval_interactions.slope_squares`) and the second-order term
adds its couples' own variance. docs/measured.md ("Intervals") gives the coverage
this reaches on real qrels. The interval's half-width is the Student t quantile on n_b - 1
degrees of freedom times the standard error, n_b the human labels (audited or escalated)
bearing on it (:func:`~assess.evaluation.interval_range.sample_bears_on`), and with
n_b < 5 the interval is the value's whole range
(:func:`~assess.evaluation.interval_range.interval_quantile`, :data:`MIN_BEARING`: the
small-sample t interval of a survey mean, Cochran 1977 sec. 2.15; the 5 is a convention
checked in simulation, docs/measured.md). A stratum with no human label even once merged
with those of the same binary machine label gives each value its pairs can move the whole
range too (:func:`~assess.evaluation.interval_strata.blinded_strata`).

Why not ``ppi_py.ppi_mean_ci``: it assumes i.i.d. labelled and unlabelled samples from a
super-population (its variance adds var(Y_hat)/N for the unlabelled mean), whereas here the
pool is the whole finite population, the sample is Poisson with known, possibly unequal
inclusion probabilities (stratified audits), and the measures are ratios per query. Both
correct a model's prediction with the human sample's residuals; here the model is fitted
per cell and the correction weighted by the design.

Missing human labels: a pair drawn for the audit whose human label is not in yet is treated
as missing at random within its stratum's pairs of the same inclusion probability (under a
Neyman audit, its audit unit), whose inclusion probability is scaled by their response rate
(a weighting-class adjustment, Sarndal et al. sec. 15.6). Pairs humans must
decide that have no label yet (an escalation not judged yet, a human tie, over the human
budget: ``machine`` and ``human`` both None; a pending or failed debate is no escalation, and
its pair is no pooled label here) are treated the same way within the escalated stratum:
every escalated pair then enters the model as a stratum of its own (inclusion 1 scaled by
the escalated pairs' response rate), the judged ones as its sample, so the unjudged ones are
predicted at the judged ones' share of relevant and their uncertainty is in the interval. The
reports state both assumptions, with how many labels each covers
(:mod:`assess.evaluation.interval_missing`: only they know whether a human budget holds the
escalations back); with no escalated pair judged at all there is nothing to predict them
from: refused (IntervalError).

Shapes: qrels ``{query_id: {doc_id: grade}}``; ranked runs ``{system: {query_id: [doc_id in
rank order]}}``; pool labels :class:`PooledLabel`. Relevance is binary (grade >= rel_level);
nDCG uses binary gains, which equal trec_eval's linear gains on binary qrels.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.stats import beta as beta_dist

from .interval_expectations import (
    SPEC,
    Expect,
    PairExpect,
    QueryTerms,
    influence,
    pair_expect,
    query_terms,
    rank_gains,
)
from .interval_expectations import query_measure as query_measure
from .interval_interactions import (
    Floats,
    QueryCouples,
    SampleArrays,
    couples_by_query,
    expected_measure,
    query_interactions,
    sample_couples,
    second_order,
    slope_squares,
)
from .interval_missing import labels_reach, mark_notes
from .interval_range import MIN_BEARING as MIN_BEARING
from .interval_range import Interval as Interval
from .interval_range import (
    QueryLabels,
    interval_quantile,
    query_labels,
    sample_bears_on,
    system_footprint,
    system_range,
)
from .interval_range import bounded as bounded
from .interval_strata import ESCALATED as ESCALATED
from .interval_strata import IntervalError as IntervalError
from .interval_strata import PooledLabel as PooledLabel
from .interval_strata import (
    blinded_strata,
    response_rates,
    strata_collapse,
    strata_notes,
    unjudged_escalations,
)

INTERVAL_MEASURES = ("nDCG@10", "P@10", "R@100")
# The second-order term (step 4 of the module docstring) is on; False only to measure what
# it does, as docs/measured.md ("The second-order term") did, with the same seeds.
SECOND_ORDER = True


@dataclass
class HumanSample:
    """The audited, answered machine-labelled pairs, one entry per pair in one order (see the
    module docstring): ``inv_pi`` 1 / pi_i and ``one_minus_pi`` 1 - pi_i (pi after the
    stratum's response rate); ``residual`` y_i - m_c, the human label less its model cell's
    prediction; ``variance`` v_c, the cell's residual variance; ``leverage`` lam_c / N_c,
    how far one unit of y_i / pi_i moves the cell's prediction; ``cell`` the model cell's
    index; ``stratum`` the sampling stratum's name."""

    inv_pi: list[float] = field(default_factory=list)
    one_minus_pi: list[float] = field(default_factory=list)
    residual: list[float] = field(default_factory=list)
    variance: list[float] = field(default_factory=list)
    leverage: list[float] = field(default_factory=list)
    cell: list[int] = field(default_factory=list)
    stratum: list[str] = field(default_factory=list)
    # (i, j), i < j: the couples of entries of one evaluated query, the second-order term's
    # units (assess.evaluation.interval_interactions).
    couples: list[tuple[int, int]] = field(default_factory=list)
    _arrays: SampleArrays | None = field(default=None, init=False, repr=False, compare=False)

    def arrays(self) -> SampleArrays:
        """The sample as the GREG sums use it, computed on first use: call it only once
        the sample is complete (its couples set)."""
        if self._arrays is None:
            self._arrays = SampleArrays.of(
                residual=self.residual,
                inv_pi=self.inv_pi,
                one_minus_pi=self.one_minus_pi,
                leverage=self.leverage,
                variance=self.variance,
                cell=self.cell,
                couples=self.couples,
            )
        return self._arrays


@dataclass
class SystemIntervals:
    """Every system's estimate per measure, plus what the pair comparisons need: the human
    ``sample`` and, per measure and system, ``slope`` (each sampled pair's dF/dx_i divided
    by the number of queries: its first-order effect on the mean) and ``base`` F(x), the
    model's prediction."""

    method: str
    n_human: int
    queries: int
    by_system: dict[str, dict[str, Interval]]
    notes: list[str] = field(default_factory=list)
    sample: HumanSample = field(default_factory=HumanSample, repr=False)
    slope: dict[str, dict[str, list[float]]] = field(default_factory=dict, repr=False)
    base: dict[str, dict[str, float]] = field(default_factory=dict, repr=False)
    # Per measure and system, each couple's F_ij / |queries| (in ``sample.couples``' order;
    # empty for P@10, whose couples' interactions are all 0).
    cross: dict[str, dict[str, np.ndarray]] = field(default_factory=dict, repr=False)
    # Per measure and system, the (lowest, highest) value any completion of the pairs
    # without a human label gives (assess.evaluation.interval_range): intervals stay inside.
    ranges: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict, repr=False)
    # (measure, system) whose interval is its whole range because the sample gives no measure
    # of its machine labels' errors (:func:`bounded`'s ``informed``).
    unseen: set[tuple[str, str]] = field(default_factory=set, repr=False)
    # Per measure and system, interval_range.system_footprint (a difference's known when equal).
    footprint: dict[str, dict[str, dict[str, Hashable]]] = field(default_factory=dict, repr=False)
    # Per measure and system, whether each sampled pair lies in the top k the value reads.
    reach: dict[str, dict[str, np.ndarray]] = field(default_factory=dict, repr=False)


# --------------------------------------------------------------------------- the design


@dataclass
class _Design:
    """The pool seen by the estimator: per query the relevant pairs whose label is known
    (fixed judgments, escalated pairs' human labels), each machine-labelled pair's point x_i
    (its human label when audited, else its model cell's prediction), and the human sample."""

    hard: dict[str, set[str]]  # query -> documents known relevant
    soft: dict[str, dict[str, float]]  # query -> {document: x_i}
    sample: list[tuple[str, str]]  # (query, document) of each audited, answered pair
    human: HumanSample
    notes: list[str]
    # query -> {document: its stratum} for the pairs of a stratum with no human label even
    # after collapsing: kept at their machine label, their errors unseen (blinded_strata).
    blind: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class _Member:
    """One machine-labelled pair as the model sees it: its labels, its human label as 0/1
    (None when not audited or not answered) and its inclusion probability after the
    stratum's response rate."""

    label: PooledLabel
    human: int | None
    pi: float
    machine: float  # the machine label as 0/1 (0 in the human-only estimator)


# Pseudo-labels that pull a model cell's estimate towards its stratum's (a cell with few
# audited pairs borrows from the stratum; Sarndal et al. 1992 sec. 10.5 on small groups).
SHRINK = 1.0
# The residual variance of a cell is taken at this quantile of its relevant share's
# Jeffreys posterior (or the sample's own residuals, if larger): an audit that saw few or no
# disagreements in a large cell must not claim it has none (rare events; see the module
# docstring).
VARIANCE_QUANTILE = 0.95


def _hajek(members: Sequence[_Member]) -> tuple[float | None, int, int]:
    """(sum y / pi over sum 1 / pi, k relevant, n audited) over the audited members (None
    when none is audited)."""
    seen = [(a.human, 1.0 / a.pi) for a in members if a.human is not None]
    if not seen:
        return None, 0, 0
    weight = sum(w for _, w in seen)
    return sum(y * w for y, w in seen) / weight, sum(y for y, _ in seen), len(seen)


def _cell_model(members: Sequence[_Member], m_group: float) -> tuple[float, float, float]:
    """(m, v, lam) of one model cell: the prediction m, the Hajek mean of its audited pairs
    shrunk towards the stratum's ``m_group`` by SHRINK pseudo-labels; the residual variance
    v = p(1 - p) at p = the VARIANCE_QUANTILE point of the Jeffreys posterior
    Beta(k + 1/2, n - k + 1/2) (at most 1/4); and lam = n / (n + SHRINK), how much of m
    comes from the cell's own labels."""
    mean, k, n = _hajek(members)
    m = m_group if mean is None else (n * mean + SHRINK * m_group) / (n + SHRINK)
    # The quantile on the side of 1/2, where the variance p(1 - p) is largest.
    if m <= 0.5:
        p = min(0.5, max(m, float(beta_dist.ppf(VARIANCE_QUANTILE, k + 0.5, n - k + 0.5))))
    else:
        p = max(0.5, min(m, float(beta_dist.ppf(1 - VARIANCE_QUANTILE, k + 0.5, n - k + 0.5))))
    return m, p * (1 - p), n / (n + SHRINK)


def model_cell(best_rank: int) -> str:
    """The rank band of a pair's best rank over its pool's runs, the covariate of the
    model beside the stratum: a wrong label's effect and the chance that a pair is relevant
    both fall with rank."""
    return "top 3" if best_rank <= 3 else "4-10" if best_rank <= 10 else "below 10"


def _cell_add(
    design: _Design, members: Sequence[_Member], m_group: float | None, *, cell: int
) -> None:
    """Add one model cell's pairs to ``design`` (``cell``: the cell's index): each unaudited
    pair at the cell's prediction, each audited one at its human label, with its weight and
    residual. A stratum that no audit reached (``m_group`` None) keeps each pair's machine
    label (0 in the human-only estimator) as the prediction: its errors are unseen, so the
    pairs go to ``design.blind`` (the values they move get their whole range)."""
    if m_group is None:
        for a in members:
            design.soft.setdefault(a.label.query_id, {})[a.label.doc_id] = a.machine
            design.blind.setdefault(a.label.query_id, {})[a.label.doc_id] = a.label.stratum
        return
    m, v, lam = _cell_model(members, m_group)
    for a in members:
        q, d = a.label.query_id, a.label.doc_id
        design.soft.setdefault(q, {})[d] = m if a.human is None else float(a.human)
        if a.human is None:
            continue
        design.sample.append((q, d))
        h = design.human
        h.stratum.append(a.label.stratum)
        h.inv_pi.append(1.0 / a.pi)
        h.one_minus_pi.append(1.0 - a.pi)
        h.residual.append(a.human - m)
        h.variance.append(v)
        h.leverage.append(lam / len(members))
        h.cell.append(cell)


def _escalated_relevant(
    fixed: Mapping[str, Mapping[str, int]], pool: Sequence[PooledLabel], rel_level: int
) -> dict[str, set[str]]:
    """Per query the documents known relevant: fixed judgments and escalated pairs' human
    labels (none of them when some escalated pair is unjudged: the model takes them all)."""
    hard: dict[str, set[str]] = {
        q: {d for d, g in judged.items() if g >= rel_level} for q, judged in fixed.items()
    }
    if unjudged_escalations(pool):
        return hard
    for label in pool:
        if label.machine is None and label.human is not None and label.human >= rel_level:
            hard.setdefault(label.query_id, set()).add(label.doc_id)
    return hard


def _design(
    fixed: Mapping[str, Mapping[str, int]],
    pool: Sequence[PooledLabel],
    best_rank: Mapping[tuple[str, str], int],
    *,
    use_machine: bool,
    rel_level: int,
) -> _Design:
    """The estimator's view of the pool (see the module docstring): the model per stratum
    and rank band (one stratum for every machine-labelled pair when ``use_machine`` is
    False: the human sample alone), each pair's point x_i, the sample's weights and
    residuals. ``best_rank``: each pair's best rank over the runs its pool was built from
    (absent: not ranked). Raises IntervalError when an escalated pair has no human label or
    a stratum cannot be sampled."""
    design = _Design(_escalated_relevant(fixed, pool, rel_level), {}, [], HumanSample(), [])
    unjudged = unjudged_escalations(pool)
    strata: dict[str, list[PooledLabel]] = {}
    for label in pool:
        if label.machine is not None:
            strata.setdefault(label.stratum, []).append(label)
        elif unjudged:
            strata.setdefault(ESCALATED, []).append(replace(label, stratum=ESCALATED, drawn=True))
    if not strata:
        return design
    strata, collapsed = strata_collapse(strata, rel_level=rel_level)
    design.notes = strata_notes(strata) + collapsed
    machine_strata = [members for name, members in strata.items() if name != ESCALATED]
    if machine_strata and not any(m.human is not None for ms in machine_strata for m in ms):
        raise IntervalError(
            "no audited pair has a human label yet (intervals need an audit share > 0 and "
            "some audited pairs judged)"
        )
    groups: dict[str, list[_Member]] = {}
    for name, members in sorted(strata.items()):
        response = response_rates(members, name)
        for m in members:
            human = int(m.human >= rel_level) if m.drawn and m.human is not None else None
            machine = float(use_machine and (m.machine or 0) >= rel_level)
            member = _Member(m, human, min(1.0, m.inclusion * response[m.inclusion]), machine)
            # The human-only estimator pools the machine-labelled strata; the escalated
            # pairs stay apart in both, as they are humans' to decide whatever happens.
            own = use_machine or name == ESCALATED
            groups.setdefault(name if own else "all", []).append(member)
    for index, (name, group) in enumerate(sorted(groups.items())):
        m_group = _hajek(group)[0]
        cells: dict[str, list[_Member]] = {}
        for a in group:
            rank = best_rank.get((a.label.query_id, a.label.doc_id), 10**9)
            cells.setdefault(model_cell(rank), []).append(a)
        if m_group is not None and any(all(a.human is None for a in c) for c in cells.values()):
            # A rank band without an audited pair has nothing to correct or bound its
            # prediction with: the stratum is then one model cell, so its audited pairs speak
            # for all its pairs.
            design.notes.append(
                f"stratum {name!r}: a rank band has no audited pair, so the stratum's pairs "
                "share one model"
            )
            cells = {"all": group}
        for band, (_name, cell_members) in enumerate(sorted(cells.items())):
            _cell_add(design, cell_members, m_group, cell=index * 10 + band)
    return design


@dataclass
class _MeasureState:
    """What every system shares for one measure: each evaluated query's expectations at x
    (E[h(R)], and per p group E[h(R + 1)] with one of the group left out), and each sampled
    pair's expectations with its own label set to 1 and to 0."""

    at_x: dict[str, tuple[float, dict[float, float]]]
    pairs: list[PairExpect | None]  # None: the pair's query is not evaluated
    sampled: dict[str, set[str]]  # query -> its sampled documents
    expect: Expect
    groups: dict[str, Counter[float]]  # query -> {p: how many of its pairs at p}
    # Per query with couples, what their mixed differences share across systems (none for
    # P@10, linear in the labels: its couples' interactions are all 0).
    couples: dict[str, QueryCouples] = field(default_factory=dict)


def _measure_state(design: _Design, queries: Sequence[str], expect: Expect) -> _MeasureState:
    groups = {q: Counter(design.soft.get(q, {}).values()) for q in queries}
    at_x = {q: expect(len(design.hard.get(q, set())), groups[q]) for q in queries}
    pairs: list[PairExpect | None] = []
    sampled: dict[str, set[str]] = {}
    for q, doc in design.sample:
        sampled.setdefault(q, set()).add(doc)
        if q not in groups:
            pairs.append(None)
            continue
        known = len(design.hard.get(q, set()))
        pairs.append(pair_expect(doc, design.soft[q][doc], known, groups[q], expect))
    state = _MeasureState(at_x, pairs, sampled, expect, groups)
    if expect.measure != "P@10":
        state.couples = couples_by_query(
            couples=design.human.couples,
            sample=design.sample,
            soft=design.soft,
            hard=design.hard,
            groups=groups,
            expect=expect,
        )
    return state


def _system_measure(
    design: _Design,
    state: _MeasureState,
    ranked: Mapping[str, Sequence[str]],
    queries: Sequence[str],
    measure: str,
) -> tuple[float, list[float], np.ndarray, np.ndarray]:
    """(F(x), slope_i per sampled pair, F_ij per couple, whether each sampled pair lies in
    its top k): the system's mean measure expected
    at x (the model's prediction, audited pairs at their human labels), each audited pair's
    first-order effect on that mean, (F(x_i = 1) - F(x_i = 0)) / |queries|, for F the
    multilinear extension of the measure (its expectation under independent Bernoulli
    labels), and each couple's second mixed difference / |queries|
    (:mod:`assess.evaluation.interval_interactions`). All exact: the measure is a sum over
    the top k of gain * Y_d * h(R) (see "expectations")."""
    k = SPEC[measure]
    gains = rank_gains(measure, k)
    n = len(queries)
    terms_of: dict[str, QueryTerms] = {}
    total = 0.0
    for q in queries:
        hard, soft = design.hard.get(q, set()), design.soft.get(q, {})
        wanted = state.sampled.get(q, set())
        terms_of[q] = query_terms(ranked.get(q, []), k, gains, hard, soft, wanted)
        total += expected_measure(terms_of[q], state.at_x[q])
    slopes = [
        0.0 if pair is None else influence(terms_of[q], pair) / n
        for (q, _doc), pair in zip(design.sample, state.pairs, strict=True)
    ]
    cross = np.zeros(len(design.human.couples))
    for q, found in state.couples.items():
        cross[found.positions] = query_interactions(found, terms_of[q]) / n
    top = {q: set(ranked.get(q, [])[:k]) for q in state.sampled}
    reached = np.array([d in top.get(q, ()) for q, d in design.sample], dtype=bool)
    return total / n, slopes, cross if state.couples else np.zeros(0), reached


def greg_interval(
    base: float,
    slopes: Sequence[float],
    sample: HumanSample,
    cross: Floats = (),
    reached: np.ndarray | None = None,
) -> Interval:
    """The estimate and its 95% interval for one system's mean (or one difference of
    two: slopes a - b), from the prediction ``base`` = F(x) and each sampled pair's
    ``slopes`` (in ``sample``'s order):

    estimate = base + sum_i slope_i * e_i * (1 / pi_i - 1)        (the GREG correction)
                    + sum_i (1 - pi_i) / pi_i^2 * e_i * slope_i * leverage_i

    The second sum removes the O(1/n) bias a model estimated from the same sample gives
    (its prediction moves with the residuals it is corrected by; the first-order term of
    E[(m_hat - m) * (the correction's error)], estimated by Horvitz-Thompson). Variance, per
    model cell c, the larger of sum_c (1 - pi_i) / pi_i^2 * slope_i^2 * v_c (the model's)
    and of the same with e_i^2 for v_c (the sample's own residuals); Sarndal, Swensson and
    Wretman 1992, sec. 6.6 (Poisson sampling). ``cross``: each couple's F_ij / |queries|
    (a - b for a difference), whose second-order term
    (:func:`~assess.evaluation.interval_interactions.second_order`) adds to the estimate
    and its variance to the variance; empty: no couple. With every pair audited (pi = 1)
    every sum vanishes and the interval has no width: nothing is left to estimate. The
    half-width is the t quantile on n_b - 1 degrees of freedom times the standard error
    (:func:`~assess.evaluation.interval_range.interval_quantile`; n_b, the effective number
    of variance terms, capped at the pairs ``reached``: :func:`sample_bears_on`, the
    interval's ``n_bearing``); a caller gives a value with n_b < :data:`MIN_BEARING` its
    whole range."""
    point, _model, used = greg_estimate(base, slopes, sample, cross)
    a = sample.arrays()
    bearing = sample_bears_on(
        slopes, a.design_weight, cross, sample.couples, variance=a.variance, reached=reached
    )
    half = interval_quantile(bearing) * math.sqrt(used)
    return Interval(point, point - half, point + half, audited_count(sample), bearing)


def audited_count(sample: HumanSample) -> int:
    """The audited labels of ``sample``: its entries but the judged escalated pairs that
    stand for unjudged ones (those are escalated labels, counted as such by the reports)."""
    return sum(1 for name in sample.stratum if name != ESCALATED)


def greg_estimate(
    base: float, slopes: Sequence[float], sample: HumanSample, cross: Floats = ()
) -> tuple[float, float, float]:
    """(estimate, the model's variance, the variance used) of :func:`greg_interval`: the
    sums of its docstring over the sampled pairs, the model's variance with v_c in every
    cell, the variance used with the larger of the two sums in each cell; each plus the
    second-order term's variance over the couples, whose covariance with the first-order
    terms enters through each pair's squared slope
    (:func:`~assess.evaluation.interval_interactions.slope_squares`). One pass: the
    second-order sums serve the estimate and the variance alike."""
    a = sample.arrays()
    slope = np.asarray(slopes, dtype=float)
    second, extra = second_order(cross, a.couples) if len(cross) else (0.0, 0.0)
    point = base + float(slope @ a.correction) + second
    squares = slope_squares(slopes, cross, a.couples) if len(cross) else slope * slope
    weight = a.design_weight * squares
    model = np.bincount(a.cell, weight * a.variance, a.cells)
    seen = np.bincount(a.cell, weight * a.residual_square, a.cells)
    # A cell's sum is a variance: at 0 or more (slope_squares' estimates may dip below).
    floor = float(np.maximum(model, 0.0).sum())
    used = float(np.maximum(np.maximum(model, seen), 0.0).sum())
    return point, floor + extra, used + extra


def best_ranks(runs: Mapping[str, Mapping[str, Sequence[str]]]) -> dict[tuple[str, str], int]:
    """``{(query_id, doc_id): the best rank (1-based) over runs}`` for every document some
    run ranks in its top 10 (``runs``: ``{system: {query_id: [doc_id in rank order]}}``). The
    model's rank bands stop at 10 (:func:`model_cell`): deeper ranks need no entry."""
    best: dict[tuple[str, str], int] = {}
    for ranked in runs.values():
        for q, docs in ranked.items():
            for r, d in enumerate(docs[:10], 1):
                if r < best.get((q, d), 10**9):
                    best[(q, d)] = r
    return best


def _system_interval(
    found: SystemIntervals,
    design: _Design,
    state: _MeasureState,
    run: tuple[str, Mapping[str, Sequence[str]]],
    queries: Sequence[str],
    measure: str,
    labels: Mapping[str, QueryLabels],
    reachable: bool,
) -> tuple[str, str]:
    """Put one system's interval on ``measure`` into ``found``; return (mark, detail): mark
    "unseen" when no audited pair moves its value, "few" when fewer than MIN_BEARING do
    (detail: how many), "blind" when a stratum with no human label can move it (detail: the
    strata), "unmeasured" when some does but the variance is 0 (the whole range given for
    all four), "at_bound" when its estimate sits at an end of the range, else ""."""
    system, ranked = run
    base, slopes, cross, reached = _system_measure(design, state, ranked, queries, measure)
    interval = greg_interval(base, slopes, design.human, cross, reached)
    # The human-completed value lies between the lowest and highest value any completion
    # of the pairs without a human label gives (within [0, 1]).
    low, high = system_range(measure, ranked, labels)
    # n_b, the audited pairs that move this value: with none its variance, a sum over the
    # sample, is 0 whatever its machine labels' errors; with fewer than MIN_BEARING it is
    # estimated from too few terms (coverage fell to 33-87% in simulation): the whole range.
    bears = interval.n_bearing or 0
    blind = blinded_strata(design.blind, {q: ranked.get(q, []) for q in queries}, measure)
    # A variance of 0 where the labels allow a range measures no error, it only fails to see
    # one: the audited pairs that move the value have residual 0 (a stratum's only human
    # label is its model) and their first-order slopes vanish.
    measured = interval.high - interval.low > 1e-12 * max(1.0, high - low)
    informed = not reachable or (bears >= MIN_BEARING and measured and not blind)
    kept = bounded(interval, low, high, informed=informed)
    found.by_system.setdefault(system, {})[measure] = kept
    found.slope.setdefault(measure, {})[system] = slopes
    found.base.setdefault(measure, {})[system] = base
    found.cross.setdefault(measure, {})[system] = cross
    found.reach.setdefault(measure, {})[system] = reached
    found.ranges.setdefault(measure, {})[system] = (low, high)
    # At a level no grade reaches every value is surely 0: nothing moves a difference.
    found.footprint.setdefault(measure, {})[system] = (
        system_footprint(measure, ranked, labels) if reachable else {}
    )
    if high - low <= 1e-9:
        return "", ""
    if not informed:
        found.unseen.add((measure, system))
        if blind:
            return "blind", ", ".join(repr(name) for name in sorted(blind))
        if bears < MIN_BEARING:
            return ("unseen", "") if not bears else ("few", str(bears))
        return "unmeasured", ""
    return "at_bound" if min(kept.estimate - low, high - kept.estimate) <= 1e-9 else "", ""


def refined_intervals(
    *,
    runs: Mapping[str, Mapping[str, Sequence[str]]],
    fixed: Mapping[str, Mapping[str, int]],
    pool: Sequence[PooledLabel],
    queries: Sequence[str],
    measures: Sequence[str] = INTERVAL_MEASURES,
    rel_level: int = 1,
    use_machine: bool = True,
    best_rank: Mapping[tuple[str, str], int] | None = None,
) -> SystemIntervals:
    """95% intervals on each system's mean measure under the human-completed qrels.

    ``runs``: ``{system: {query_id: [doc_id, ...]}}`` in rank order; ``fixed``: the judgments
    that are not pooled (the original qrels); ``pool``: every pooled pair's labels;
    ``queries``: the evaluated queries (the macro average's denominator). Relevance is binary
    (grade >= ``rel_level``). With ``use_machine=False`` the machine labels are ignored: the
    estimator from the human sample alone (one model for every machine-labelled pair, split
    by rank band as the prediction-powered one is), shown beside the prediction-powered
    one. ``best_rank``: each pooled pair's best rank over the runs its pool was built from,
    ``{(query_id, doc_id): rank}`` (a pair absent from it counts as ranked below 10), which
    decides its model cell's rank band; None: the best rank over ``runs``. Passing the pool's
    own ranks keeps the model the same whichever runs are evaluated. The method is in the
    module docstring. Raises IntervalError (a ValueError) naming the stratum or pair that
    makes an interval impossible, a pooled pair that is also in ``fixed``, or when
    ``queries`` is empty; ValueError for an unknown measure.
    """
    if not queries:
        raise IntervalError("intervals need at least one evaluated query")
    # The estimand counts each pair once, by its fixed judgment or by its pooled label: a pair
    # in both would be counted twice by the estimate and by its logical range (a pool leaves
    # the judged pairs out; the refinement passes such pairs as "judged before", not pooled).
    for label in pool:
        if label.doc_id in fixed.get(label.query_id, {}):
            raise IntervalError(
                f"pooled pair ({label.query_id}, {label.doc_id}) is also in the fixed "
                "judgments: pass it in one of them"
            )
    for measure in measures:
        if measure not in SPEC:
            raise ValueError(f"no interval for measure {measure!r} (one of {', '.join(SPEC)})")
    if best_rank is None:
        best_rank = best_ranks(runs)
    design = _design(fixed, pool, best_rank, use_machine=use_machine, rel_level=rel_level)
    design.human.couples = sample_couples(design.sample, queries) if SECOND_ORDER else []
    found = SystemIntervals(
        method="ppi" if use_machine else "human_only",
        n_human=audited_count(design.human),
        queries=len(queries),
        by_system={},
        notes=design.notes,
        sample=design.human,
    )
    labels = query_labels(fixed=fixed, pool=pool, queries=queries, rel_level=rel_level)
    # At a level no grade reaches every measure is surely 0 (level_note says so), whatever
    # the loose ranges allow: the sample need not reach a value to say that.
    reachable = labels_reach(fixed=fixed, pool=pool, rel_level=rel_level)
    marks: dict[str, list[tuple[str, str]]] = {
        name: [] for name in ("at_bound", "blind", "unseen", "few", "unmeasured")
    }
    for measure in measures:
        state = _measure_state(design, queries, Expect(measure))
        for system, ranked in sorted(runs.items()):
            mark, detail = _system_interval(found, design, state, (system, ranked), queries,
                                            measure, labels, reachable)  # fmt: skip
            if mark:
                marks[mark].append((f"{system} {measure}", detail))
    found.notes += mark_notes(marks, minimum=MIN_BEARING)
    return found
