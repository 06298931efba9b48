"""The expectations behind :mod:`assess.evaluation.intervals`: each measure's expected value,
and one pair's exact influence on it, when the machine-labelled pairs are independent
Bernoulli labels. Pure, no database.

Each measure is a sum over the top k of gain(rank) * Y_d * h(R), where R is the query's
number of relevant documents: nDCG@10 has h(R) = 1 / ideal DCG(R) (binary gains, Jarvelin
and Kekalainen, TOIS 2002), R@100 has h(R) = 1 / R and P@10 has h = 1. With independent
Bernoulli(p) labels the expected measure is multilinear in the p's (its multilinear
extension), so one pair's influence, F(p_i = 1) - F(p_i = 0), is exact, and R's distribution
is a convolution of one binomial per distinct p.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom


def ideal_dcg(grades: Sequence[int], k: int) -> float:
    """The ideal DCG@k of the given grades (linear gains, grades <= 0 count 0)."""
    top = sorted((g for g in grades if g > 0), reverse=True)[:k]
    return sum(float(g) / math.log2(rank + 1) for rank, g in enumerate(top, start=1))


SPEC: dict[str, int] = {"nDCG@10": 10, "P@10": 10, "R@100": 100}


def rank_gains(measure: str, k: int) -> list[float]:
    """The gain of each rank 1..k in ``measure``: 1 / log2(rank + 1) for nDCG@10, 0.1 for
    P@10, 1 for R@100."""
    if measure == "nDCG@10":
        return [1 / math.log2(r + 1) for r in range(1, k + 1)]
    if measure == "P@10":
        return [0.1] * k
    return [1.0] * k


@functools.lru_cache(maxsize=4096)
def measure_h(measure: str, relevant: int) -> float:
    """h(R) of the module docstring for a query with ``relevant`` relevant documents (0 when
    it has none, for the ratio measures)."""
    if measure == "P@10":
        return 1.0
    if relevant <= 0:
        return 0.0
    if measure == "R@100":
        return 1.0 / relevant
    return 1.0 / ideal_dcg([1] * min(relevant, 10), 10)


class Expect:
    """E[h(R)] and E[h(R + 1)] with one pair of group p left out, memoised per state."""

    def __init__(self, measure: str) -> None:
        self.measure = measure
        self.cache: dict[
            tuple[int, tuple[tuple[float, int], ...]], tuple[float, dict[float, float]]
        ] = {}
        # The count distributions depend on the groups alone, not on the known relevant
        # documents: a pair's two expectations (label 1 and 0) share theirs.
        self.distributions: dict[tuple[tuple[float, int], ...], np.ndarray] = {}

    def _distribution(self, groups: Mapping[float, int]) -> np.ndarray:
        key = tuple(sorted((p, n) for p, n in groups.items() if n))
        found = self.distributions.get(key)
        if found is None:
            found = self.distributions[key] = count_distribution(dict(key))
        return found

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
        h = [measure_h(self.measure, known + j) for j in range(sum(groups.values()) + 2)]
        h_plus = h[1:]
        full = self._distribution(groups)
        mean0 = float(np.dot(full, h[: len(full)]))
        loo: dict[float, float] = {}
        for p in groups:
            fewer = dict(groups)
            fewer[p] -= 1
            dist = self._distribution(fewer)
            loo[p] = float(np.dot(dist, h_plus[: len(dist)]))
        return mean0, loo


def count_distribution(groups: Mapping[float, int]) -> np.ndarray:
    """P(K = j), j = 0..n, for K a sum of independent Binomial(n_p, p) over the groups, each
    p in [0, 1] (the coefficients of prod (1 - p + p z)^n_p)."""
    dist = np.ones(1)
    for p, n in groups.items():
        if not n:
            continue
        if n <= 500:
            coefficients = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
            pmf = np.asarray(coefficients, dtype=float)
        else:
            # math.comb(n, k) overflows a float beyond about n = 1,030.
            pmf = binom.pmf(np.arange(n + 1), n, p)
        dist = np.convolve(dist, pmf)
    return dist


@dataclass
class QueryTerms:
    """One system's top k of one query, summarised: the gain mass of the known relevant
    documents and of each p group's documents, and each document's gain."""

    hard_mass: float
    group_mass: dict[float, float]
    gain_of: dict[str, float]


def query_terms(
    ranking: Sequence[str],
    k: int,
    gains: Sequence[float],
    hard: set[str],
    soft: Mapping[str, float],
    wanted: set[str],
) -> QueryTerms:
    """One system's top ``k`` of one query summarised; ``wanted``: the documents whose own
    gain is asked for (the query's sampled pairs)."""
    terms = QueryTerms(0.0, {}, {})
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
class PairExpect:
    """One sampled pair's expectations with its label set to 1 and to 0 (the query's other
    labels as they are): the same for every system, so computed once per measure."""

    doc: str
    p_doc: float
    one: tuple[float, dict[float, float]]
    zero: tuple[float, dict[float, float]]


def pair_expect(
    doc: str, p_doc: float, known: int, groups: Counter[float], expect: Expect
) -> PairExpect:
    """``doc``'s :class:`PairExpect`: the query's expectations with its label set to 1 and
    to 0 (``known`` relevant documents, ``groups`` {p: how many pairs at p}, ``doc`` one of
    group ``p_doc``)."""
    rest = Counter(groups)
    rest[p_doc] -= 1
    return PairExpect(doc, p_doc, expect(known + 1, rest), expect(known, rest))


def influence(terms: QueryTerms, pair: PairExpect) -> float:
    """F(p_doc = 1) - F(p_doc = 0) for one query and system."""
    (one0, one_loo), (zero0, zero_loo) = pair.one, pair.zero
    gain = terms.gain_of.get(pair.doc, 0.0)
    delta = terms.hard_mass * (one0 - zero0) + gain * one0
    for p, mass in terms.group_mass.items():
        if p == pair.p_doc:
            mass -= gain
        delta += p * mass * (one_loo.get(p, 0.0) - zero_loo.get(p, 0.0))
    return delta


def _gain(grade: int) -> float:
    return float(grade) if grade > 0 else 0.0


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
        ideal = ideal_dcg(list(judged.values()), 10)
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
    raise ValueError(f"no interval for measure {measure!r} (one of {', '.join(SPEC)})")
