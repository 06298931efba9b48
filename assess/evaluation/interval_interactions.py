"""The second-order term of the intervals' estimator: how two wrong labels of one query move a
ratio measure by more or less than their two effects apart. Pure, no database.

Why it is needed (docs/measured.md, "The second-order term"): the estimator of
:mod:`assess.evaluation.intervals` predicts each unaudited pair at its model cell's share of
relevant, as if the pairs of a query were independent, and corrects the prediction by the
first-order effect of each audited pair's residual. A measure whose normaliser depends on
every label of the query (nDCG@10's ideal DCG, R@100's count of relevant documents) is not
linear in them, so the exact expansion of the value under human labels around the
prediction also has terms in products of two residuals of one query,

    sum over pairs i < j of one query, both unaudited, of e_i * e_j * d2F / dx_i dx_j.

Where relevance within a query is not independent (sparse qrels: about one relevant
document a query, so a query whose relevant document is known has no other, and one whose
relevant document is missing has exactly one), these products do not average out: the
first-order estimate was then low on ArguAna's and SciFact's nDCG@10 and R@100 by a bias
that does not shrink with the number of queries, while the interval does.

The term is estimated by Horvitz-Thompson (Horvitz and Thompson, JASA 1952) from the couples
of audited pairs of one query: under Poisson sampling both members of a couple are
audited with probability pi_i * pi_j, and both unaudited with (1 - pi_i) * (1 - pi_j), so

    sum over audited couples of e_i * e_j * F_ij * (1 - pi_i) / pi_i * (1 - pi_j) / pi_j

is unbiased for the population term (for the model's prediction held fixed). Its variance:
written as a polynomial in the pairs' independent audit indicators, the estimator's variance
is exact (Hoeffding's decomposition: Hoeffding, Ann. Math. Stat. 1948; for Poisson samples,
Sarndal, Swensson and Wretman, *Model Assisted Survey Sampling*, 1992, sec. 2.8 and 3.6),
a first-order part with each pair's slope taken at the query's human labels
(:func:`slope_squares`: the couples' covariance with the first-order terms, overlapping
couples included) and the couples' own part (:func:`second_order`), each estimated without
bias from the sample. F_ij, the second mixed difference
F(1, 1) - F(1, 0) - F(0, 1) + F(0, 0) of the multilinear extension with the query's other
labels where the estimator has them, is exact. Terms of third and higher order are left out:
their weights grow as 1 / pi^3, too noisy to estimate from an audit of a tenth of the pairs.

The price: a couple's weight is (1 / pi - 1)^2, 81 at a 10% audit, so with few queries one
couple of large residuals (a relevant pair the debate missed, audited beside a false
positive of its query) moves the estimate by a lot: its variance counts that, nothing floors
it, and an estimate pushed out of the range the labels allow gets the whole range as its
interval (:func:`~assess.evaluation.intervals.bounded`). The intervals are wider for it:
19% (nDCG@10) and 33% (R@100) on ArguAna's 1,401 queries (docs/measured.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .interval_expectations import Expect, QueryTerms


def expected_measure(terms: QueryTerms, at_x: tuple[float, dict[float, float]]) -> float:
    """F(x) for one query and system: sum over the top k of gain * E[Y_d h(R)], where a
    known relevant document contributes E[h(R)] and one of p group p * E[h(R + 1 | d out)]
    (``at_x``: :class:`~assess.evaluation.interval_expectations.Expect`'s pair)."""
    mean0, loo = at_x
    value = terms.hard_mass * mean0
    for p, mass in terms.group_mass.items():
        value += p * mass * loo.get(p, 0.0)
    return value


def sample_couples(
    sample: Sequence[tuple[str, str]], queries: Sequence[str]
) -> list[tuple[int, int]]:
    """Every couple (i, j), i < j, of indices into ``sample`` (audited ``(query_id,
    doc_id)`` pairs) whose two pairs belong to one of ``queries``: the units of the
    second-order term."""
    evaluated = set(queries)
    by_query: dict[str, list[int]] = {}
    for index, (q, _doc) in enumerate(sample):
        if q in evaluated:
            by_query.setdefault(q, []).append(index)
    couples: list[tuple[int, int]] = []
    for members in by_query.values():
        for n, i in enumerate(members):
            couples.extend((i, j) for j in members[n + 1 :])
    return couples


# A query's expectations with the couple's two labels set, in the order (1, 1), (1, 0),
# (0, 1), (0, 0): each (E[h(R)], {p: E[h(R + 1) | one of p out]}), as Expect gives them.
CoupleExpectations = tuple[tuple[float, dict[float, float]], ...]
SETTINGS = ((1, 1), (1, 0), (0, 1), (0, 0))


def couple_expectations(
    *, known: int, groups: Counter[float], at: tuple[float, float], expect: Expect
) -> CoupleExpectations:
    """The query's expectations with a couple's two labels set (see CoupleExpectations):
    the same for every system, so computed once per couple and measure. ``known``: the
    query's known relevant documents; ``groups``: {p: how many pairs at p}, the couple's
    two among them at their points ``at``."""
    rest = Counter(groups)
    rest[at[0]] -= 1
    rest[at[1]] -= 1
    return tuple(expect(known + a + b, rest) for a, b in SETTINGS)


def couple_interaction(
    *,
    terms: QueryTerms,
    couple: tuple[str, str],
    at: tuple[float, float],
    expectations: CoupleExpectations,
) -> float:
    """F(1, 1) - F(1, 0) - F(0, 1) + F(0, 0) for one query and system: the second mixed
    difference of the query's expected measure in the labels of the two documents of
    ``couple``, the query's other labels as the estimator has them. ``terms``: the system's
    top k summarised with both documents' gains asked for
    (:func:`~assess.evaluation.interval_expectations.query_terms`); ``at``: the two
    documents' points among the query's groups; ``expectations``: from
    :func:`couple_expectations`."""
    a, b = couple
    gain_a, gain_b = terms.gain_of.get(a, 0.0), terms.gain_of.get(b, 0.0)
    mass = dict(terms.group_mass)
    mass[at[0]] = mass.get(at[0], 0.0) - gain_a
    mass[at[1]] = mass.get(at[1], 0.0) - gain_b
    total = 0.0
    for (label_a, label_b), (mean0, loo) in zip(SETTINGS, expectations, strict=True):
        value = (terms.hard_mass + gain_a * label_a + gain_b * label_b) * mean0
        for p, m in mass.items():
            value += p * m * loo.get(p, 0.0)
        total += value if label_a == label_b else -value
    return total


@dataclass(frozen=True)
class CoupleWeights:
    """What the second-order sums need of the human sample, as arrays over its couples
    (``i``, ``j``: the couple's indices into the sample): ``first`` e_i e_j w_i w_j (w =
    (1 - pi) / pi), the estimate's weight; ``own`` (e_i e_j)^2 (1 - pi_i)(1 - pi_j) /
    (pi_i pi_j)^2, the couples' own variance; ``lift_i`` e_j w_j and ``spread_i`` e_j^2
    (1 - pi_j) / pi_j^2 for member i (``lift_j``, ``spread_j`` likewise for j), how a couple
    moves its members' slopes (:func:`slope_squares`); ``size`` the sample's size."""

    i: np.ndarray
    j: np.ndarray
    first: np.ndarray
    own: np.ndarray
    lift_i: np.ndarray
    lift_j: np.ndarray
    spread_i: np.ndarray
    spread_j: np.ndarray
    size: int


def couple_weights(
    couples: Sequence[tuple[int, int]],
    residual: Sequence[float],
    inv_pi: Sequence[float],
    one_minus_pi: Sequence[float],
) -> CoupleWeights:
    """:class:`CoupleWeights` of ``couples`` (indices into the human sample's ``residual``
    e_i, ``inv_pi`` 1 / pi_i and ``one_minus_pi`` 1 - pi_i lists)."""
    pairs = np.asarray(couples, dtype=np.intp).reshape(-1, 2)
    e, ip, om = (np.asarray(x, dtype=float) for x in (residual, inv_pi, one_minus_pi))
    i, j = pairs[:, 0], pairs[:, 1]
    lift = e * om * ip  # e w
    spread = e * e * om * ip * ip
    return CoupleWeights(
        i=i,
        j=j,
        first=lift[i] * lift[j],
        own=(e[i] * e[j]) ** 2 * om[i] * om[j] * (ip[i] * ip[j]) ** 2,
        lift_i=lift[j],
        lift_j=lift[i],
        spread_i=spread[j],
        spread_j=spread[i],
        size=len(e),
    )


def second_order(cross: Sequence[float], weights: CoupleWeights) -> tuple[float, float]:
    """(estimate, variance) of the second-order term of the module docstring: ``cross`` the
    F_ij of each couple (divided by the number of queries, as slopes are), in ``weights``'
    order. The estimate is sum e_i e_j F_ij (1 - pi_i) / pi_i (1 - pi_j) / pi_j; the
    variance is the couples' own part, sum of (e_i e_j F_ij)^2 (1 - pi_i)(1 - pi_j) /
    (pi_i pi_j)^2; their covariance with the first-order terms is in
    :func:`slope_squares`."""
    f = np.asarray(cross, dtype=float)
    return float(f @ weights.first), float((f * f) @ weights.own)


def slope_squares(
    slopes: Sequence[float], cross: Sequence[float], weights: CoupleWeights
) -> np.ndarray:
    """Each sampled pair's squared slope as the first-order variance needs it once couples
    exist: (slope_i + sum over its couples of F_ij * e_j * (1 - pi_j) / pi_j)^2, less the
    Horvitz-Thompson variance of that sum, sum of (F_ij e_j)^2 (1 - pi_j) / pi_j^2.

    Why: written as a polynomial in the pairs' independent audit indicators I_i, the
    estimator is sum_i a_i I_i + sum over couples of b_ij I_i I_j (a_i = e_i F_i / pi_i at
    the model's prediction, b_ij = e_i e_j F_ij / (pi_i pi_j)), whose variance is exactly
    sum_i pi_i (1 - pi_i) (a_i + sum_j b_ij pi_j)^2 + sum over couples of b_ij^2 pi_i
    (1 - pi_i) pi_j (1 - pi_j). The first sum is the first-order variance with the slope
    at the human labels (the plain slopes leave out the couples' covariance with the
    first-order terms); the bracket is estimated by the adjusted slope, whose square
    overstates its square by its own variance, hence the subtraction (over all Poisson
    samples the two sums' estimates are then unbiased; the second is
    :func:`second_order`'s). A square may come out below 0 in one sample; the variance's
    cells keep their sums at 0 or more."""
    f = np.asarray(cross, dtype=float)
    w, n = weights, weights.size
    adjusted = np.asarray(slopes, dtype=float)
    adjusted = adjusted + np.bincount(w.i, f * w.lift_i, n) + np.bincount(w.j, f * w.lift_j, n)
    spread = np.bincount(w.i, f * f * w.spread_i, n) + np.bincount(w.j, f * f * w.spread_j, n)
    return adjusted * adjusted - spread


@dataclass(frozen=True)
class SampleArrays:
    """A complete human sample (:class:`~assess.evaluation.intervals.HumanSample`) as the
    GREG sums use it: ``correction`` each pair's weight in the estimate's first-order sums
    (e_i (1 / pi_i - 1) + (1 - pi_i) / pi_i^2 e_i leverage_i); ``design_weight`` (1 - pi_i) /
    pi_i^2; ``variance`` v_c; ``residual_square`` e_i^2; ``cell`` each pair's model cell as
    0..cells - 1; ``couples`` the second-order term's weights."""

    correction: np.ndarray
    design_weight: np.ndarray
    variance: np.ndarray
    residual_square: np.ndarray
    cell: np.ndarray
    cells: int
    couples: CoupleWeights

    @classmethod
    def of(
        cls,
        *,
        residual: Sequence[float],
        inv_pi: Sequence[float],
        one_minus_pi: Sequence[float],
        leverage: Sequence[float],
        variance: Sequence[float],
        cell: Sequence[int],
        couples: Sequence[tuple[int, int]],
    ) -> SampleArrays:
        """The arrays of a sample given as its lists (one entry per sampled pair, in one
        order; ``couples`` indices into them)."""
        e, ip, om = (np.asarray(x, dtype=float) for x in (residual, inv_pi, one_minus_pi))
        lev = np.asarray(leverage, dtype=float)
        index = {c: n for n, c in enumerate(dict.fromkeys(cell))}
        return cls(
            correction=e * (ip - 1.0) + om * ip * ip * e * lev,
            design_weight=om * ip * ip,
            variance=np.asarray(variance, dtype=float),
            residual_square=e * e,
            cell=np.asarray([index[c] for c in cell], dtype=np.intp),
            cells=len(index),
            couples=couple_weights(couples, residual, inv_pi, one_minus_pi),
        )
