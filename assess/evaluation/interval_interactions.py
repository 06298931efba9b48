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
from collections.abc import Mapping, Sequence
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


# A list of floats or an array of them, as the second-order sums take them.
Floats = Sequence[float] | np.ndarray
SETTINGS = ((1, 1, 1), (1, 0, -1), (0, 1, -1), (0, 0, 1))  # (label a, label b, sign)


@dataclass(frozen=True)
class QueryCouples:
    """One query's couples, with what their mixed differences F_ij share across systems.

    The query's expected measure with a couple's labels set to (y_a, y_b) is (H + g_a y_a +
    g_b y_b) * E_y[h(R)] + sum_p p * M'_p * E_y[h(R + 1) | one of p out], where H and M_p
    are a system's gain mass of the known relevant documents and of group p (its top k),
    M'_p the same less the couple's own gains, and the expectations are over the query's
    other labels (:class:`~assess.evaluation.interval_expectations.Expect`). Summed with the
    mixed difference's signs, F_ij = H * d0 + sum_p M_p * by_group[p] + g_a * own_a +
    g_b * own_b, linear in what the system brings: the rest is computed once per couple.

    ``positions`` each couple's index in the sample's couples; ``docs`` the query's sampled
    documents; ``a``, ``b`` each couple's members as indices into ``docs``; ``groups`` the
    query's p values; ``d0`` the signed sum of E_y[h(R)]; ``by_group`` (couples x groups) p
    times the signed sum of E_y[h(R + 1) | one of p out]; ``own_a`` and ``own_b`` what a
    member's own gain adds."""

    positions: np.ndarray
    docs: list[str]
    a: np.ndarray
    b: np.ndarray
    groups: list[float]
    d0: np.ndarray
    by_group: np.ndarray
    own_a: np.ndarray
    own_b: np.ndarray


def query_couples(
    *,
    positions: Sequence[int],
    couples: Sequence[tuple[str, str]],
    points: Mapping[str, float],
    known: int,
    groups: Counter[float],
    expect: Expect,
) -> QueryCouples:
    """:class:`QueryCouples` of one query: ``couples`` its couples of sampled documents (at
    ``positions`` among the sample's couples), ``points`` each sampled document's point
    among the query's ``groups`` ({p: how many pairs at p}), ``known`` its known relevant
    documents."""
    docs = sorted({d for couple in couples for d in couple})
    local = {d: n for n, d in enumerate(docs)}
    keys = sorted(p for p, n in groups.items() if n)
    column = {p: n for n, p in enumerate(keys)}
    d0 = np.zeros(len(couples))
    by_group = np.zeros((len(couples), len(keys)))
    own_a, own_b = np.zeros(len(couples)), np.zeros(len(couples))
    # A couple's row depends on its members' points alone: a query has a few distinct ones
    # (its model cells' predictions, 0 and 1), so the rows are computed once per pair of
    # points, not once per couple.
    done: dict[tuple[float, float], int] = {}
    for row, (a, b) in enumerate(couples):
        at = (points[a], points[b])
        if at in done:
            first = done[at]
            d0[row], own_a[row], own_b[row] = d0[first], own_a[first], own_b[first]
            by_group[row] = by_group[first]
            continue
        done[at] = row
        rest = Counter(groups)
        rest[at[0]] -= 1
        rest[at[1]] -= 1
        for label_a, label_b, sign in SETTINGS:
            mean0, loo = expect(known + label_a + label_b, rest)
            d0[row] += sign * mean0
            own_a[row] += sign * mean0 * label_a
            own_b[row] += sign * mean0 * label_b
            for p, value in loo.items():
                by_group[row, column[p]] += sign * p * value
        # M'_p leaves out the couple's own gains from its members' groups.
        own_a[row] -= by_group[row, column[at[0]]]
        own_b[row] -= by_group[row, column[at[1]]]
    return QueryCouples(
        positions=np.asarray(positions, dtype=np.intp),
        docs=docs,
        a=np.asarray([local[a] for a, _ in couples], dtype=np.intp),
        b=np.asarray([local[b] for _, b in couples], dtype=np.intp),
        groups=keys,
        d0=d0,
        by_group=by_group,
        own_a=own_a,
        own_b=own_b,
    )


def couples_by_query(
    *,
    couples: Sequence[tuple[int, int]],
    sample: Sequence[tuple[str, str]],
    soft: Mapping[str, dict[str, float]],
    hard: Mapping[str, set[str]],
    groups: Mapping[str, Counter[float]],
    expect: Expect,
) -> dict[str, QueryCouples]:
    """Each query's :class:`QueryCouples` from the sample's ``couples`` (indices into
    ``sample``, its ``(query_id, doc_id)`` pairs; all of evaluated queries), with the
    estimator's points ``soft`` ({query: {doc: x_i}}), known relevant documents ``hard``
    and ``groups`` ({query: {p: how many pairs at p}})."""
    by_query: dict[str, list[int]] = {}
    for position, (i, _j) in enumerate(couples):
        by_query.setdefault(sample[i][0], []).append(position)
    found = {}
    for q, positions in by_query.items():
        members = [couples[k] for k in positions]
        found[q] = query_couples(
            positions=positions,
            couples=[(sample[i][1], sample[j][1]) for i, j in members],
            points=soft[q],
            known=len(hard.get(q, set())),
            groups=groups[q],
            expect=expect,
        )
    return found


def query_interactions(found: QueryCouples, terms: QueryTerms) -> np.ndarray:
    """Each couple's F_ij = F(1, 1) - F(1, 0) - F(0, 1) + F(0, 0) for one system, the
    second mixed difference of the query's expected measure in the couple's two labels
    (its other labels as the estimator has them), from ``terms``: the system's top k
    summarised with the sampled documents' gains asked for
    (:func:`~assess.evaluation.interval_expectations.query_terms`). Exact."""
    mass = np.asarray([terms.group_mass.get(p, 0.0) for p in found.groups])
    gains = np.asarray([terms.gain_of.get(d, 0.0) for d in found.docs])
    return (
        terms.hard_mass * found.d0
        + found.by_group @ mass
        + gains[found.a] * found.own_a
        + gains[found.b] * found.own_b
    )


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


def second_order(cross: Floats, weights: CoupleWeights) -> tuple[float, float]:
    """(estimate, variance) of the second-order term of the module docstring: ``cross`` the
    F_ij of each couple (divided by the number of queries, as slopes are), in ``weights``'
    order. The estimate is sum e_i e_j F_ij (1 - pi_i) / pi_i (1 - pi_j) / pi_j; the
    variance is the couples' own part, sum of (e_i e_j F_ij)^2 (1 - pi_i)(1 - pi_j) /
    (pi_i pi_j)^2; their covariance with the first-order terms is in
    :func:`slope_squares`."""
    f = np.asarray(cross, dtype=float)
    return float(f @ weights.first), float((f * f) @ weights.own)


def slope_squares(slopes: Floats, cross: Floats, weights: CoupleWeights) -> np.ndarray:
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
