"""Pool strategies: the order in which a pool's pairs are judged. Pure functions, no database.

A depth-k pool judges every run's top k documents in any order. The strategies here order
the same candidates so that a budget (judge at most B pairs) is spent where it matters:

- ``depth``: rank by rank, every query at once (all rank-1 documents, then rank 2, ...):
  stopping at a budget is a shallower depth pool (Sparck Jones & van Rijsbergen, 1975).
- ``rbp``: per query, documents by the sum over runs of their rank-biased precision weight
  ``(1 - p) p^(rank - 1)`` with p = 0.8 (Moffat, Webber & Zobel, SIGIR 2007, "Strategic
  system comparisons via targeted relevance judgments"; trectools' ``rbp`` pool with
  ``rbp_strategy="sum"``).
- ``rrf``: per query, documents by their reciprocal rank fusion score ``sum 1 / (k + rank)``
  with k = 60 (Cormack, Clarke & Büttcher, SIGIR 2009; trectools' ``rrf`` pool).
  For ``rbp`` and ``rrf``, trectools keeps the top X per query; with a budget over all
  queries we interleave the queries by position (every query's first document, then every
  query's second...): every query's first B places are trectools' pool of the top B (places
  held by judged pairs cost no judgment). Weights come from each run's top ``depth`` (the
  pool's candidates), where trectools weighs each run's whole ranking.
- ``bandit``: MaxMean over runs (Losada, Parapar & Barreiro, SAC 2016 and IPM 2017, the
  method TREC 2017 Common Core used to order its judgments): each run is an arm whose pull
  judges its next unjudged document; the arm with the highest posterior mean of relevance,
  ``(1 + relevant) / (2 + judged)`` under a Beta(1, 1) prior, is pulled next. Their
  non-stationary variant lets old evidence fade as a run goes deeper; here each observation
  is weighted by ``discount ** (observations made after it)``. Arms are (query, run) pairs
  pooled into one bandit, so one budget over all queries flows to the queries whose runs keep
  finding relevant documents (Losada et al. run one bandit per query with a budget each).
- ``mtc``: minimal test collections (Carterette, Allan & Sitaraman, SIGIR 2006): a document's
  priority is the expected effect of its label on the differences between the systems not
  yet ordered, ``P(relevant) * sum over undecided pairs |w_a(d) - w_b(d)|`` with
  ``w(d) = 1 / log2(rank + 1)`` within the depth (the DCG weight; nDCG's per-query
  normaliser is left out because it is unknown until the query is judged). Only a relevant
  label moves a difference (an unjudged document already counts as not relevant), hence the
  factor P(relevant): the mean, over the runs ranking the document, of their Beta(1, 1)
  posterior mean of relevance in that query from the labels known (the bandit's arms). A
  system pair is decided once the sign of its DCG difference, summed over queries, cannot
  change whatever the unjudged documents turn out to be; its documents then stop counting.

``bandit`` and ``mtc`` are adaptive: :func:`pool_order` feeds them the labels known before
it starts (any source: qrels, debate consensus, stage 0, humans) and, given an ``oracle``,
each label as it is revealed. Without an oracle they order by what is known, which is how a
job orders its next batch; the job asks again as labels arrive.

Keys (queries, documents, runs) are any hashable, orderable values; every tie is broken by
key order, so equal inputs give equal orders.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar, get_args

from .pooling import SortKey

R = TypeVar("R", bound=SortKey)  # run key
Q = TypeVar("Q", bound=SortKey)  # query key
D = TypeVar("D", bound=SortKey)  # document key

#: The strategies' names, declared here once: the pool model's choices, the API's schemas
#: and the study bench read them from here (a test holds the model's choices to them).
PoolStrategyName = Literal["depth", "rbp", "rrf", "bandit", "mtc"]
STRATEGIES: tuple[str, ...] = get_args(PoolStrategyName)
#: The strategies that reorder the pairs as labels arrive.
ADAPTIVE = frozenset({"bandit", "mtc"})
RBP_P = 0.8
RRF_K = 60
BANDIT_DISCOUNT = 0.9

# Rankings: run -> query -> documents in rank order (rank 1 first), cut at the pool depth.
Rankings = Mapping[R, Mapping[Q, Sequence[D]]]


@dataclass(frozen=True, slots=True)
class StrategyParams:
    """A strategy's settings: ``rbp_p`` (RBP persistence), ``rrf_k`` (RRF constant),
    ``bandit_discount`` (weight kept per later observation, 1.0 = stationary MaxMean) and
    ``rel_level`` (the lowest grade counted relevant)."""

    rbp_p: float = RBP_P
    rrf_k: int = RRF_K
    bandit_discount: float = BANDIT_DISCOUNT
    rel_level: int = 1

    def as_dict(self) -> dict[str, float | int]:
        return {
            "rbp_p": self.rbp_p,
            "rrf_k": self.rrf_k,
            "bandit_discount": self.bandit_discount,
            "rel_level": self.rel_level,
        }


DEFAULT_PARAMS = StrategyParams()


#: The largest budget a pool may ask for, in pairs: beyond any pool's size. The one bound of
#: ``build_pool --budget``, the pool form and ``POST /datasets/{slug}/pools``.
MAX_BUDGET = 10_000_000


def budget_refusal(written: str, *, leave: str = "leave it out") -> str:
    """The words refusing a budget of 1 or more not written as a whole number of pairs."""
    return (
        f"{written}: give a whole number of pairs (1, 2000) or a share below 1 (0.6); "
        f"{leave} to judge the whole pool"
    )


def budget_read(value: str | float, *, leave: str = "leave it out") -> float:
    """A budget as a person gave it, checked before anything is built: the text of
    ``--budget`` or of the pool form's field, or the JSON number of the API's ``budget``.
    Returns an ``int`` for a count of pairs and a ``float`` for a share below 1.

    A budget of 1 or more must be written as a whole number: ``"1"`` (one pair), ``"2000"``.
    ``"1.0"``, ``"2.5"`` or ``"1e3"`` are refused (:func:`budget_refusal`, ``leave`` naming
    how to ask for the whole pool): 1.0 plausibly means all of the pool (100 %), not one
    pair. A JSON number is taken as written: ``1`` is one pair, ``1.0`` is refused like the
    text ``"1.0"`` (a JavaScript client's ``JSON.stringify(1.0)`` writes ``1``, one pair).
    Raises ValueError for those, for text that is not a number (``not a number: 'x'``), and
    as :func:`budget_resolve` does (0 or less, not finite, above :data:`MAX_BUDGET`)."""
    number: float
    if isinstance(value, str):
        text = value.strip()
        try:
            number = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                raise ValueError(f"not a number: {value!r}") from None
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"budget must be a number, got {value!r}")
    else:
        text, number = repr(value), value
    if isinstance(number, float) and math.isfinite(number) and number >= 1:
        raise ValueError(budget_refusal(text, leave=leave))
    budget_resolve(number, pool_size=1)
    return number


def budget_resolve(budget: float | None, *, pool_size: int) -> tuple[int, str]:
    """The number of pairs a ``budget`` allows in a pool of ``pool_size`` unjudged pairs, and
    a note ("" when none is needed).

    ``None`` is the whole pool; a value below 1 is a share of the pool (rounded to the
    nearest pair, at least 1); a whole number at least 1 is a count, a float such as 20.0
    too (pools built before :func:`budget_read` kept their ``--budget`` as a float; what a
    person types is read by :func:`budget_read`, which refuses ``1.0``). A count larger
    than the pool falls back to the whole pool and the note says so. Raises ValueError for
    a budget of 0 or less, one that is not finite, a count that is not a whole number, or
    one above :data:`MAX_BUDGET`.
    """
    if budget is None:
        return pool_size, ""
    if not math.isfinite(budget):
        raise ValueError(f"budget must be a finite number, got {budget}")
    if budget <= 0:
        raise ValueError(f"budget must be more than 0, got {budget}")
    if budget < 1:
        return min(pool_size, max(1, round(budget * pool_size))), ""
    if budget != int(budget):
        raise ValueError(budget_refusal(f"budget {budget}"))
    count = int(budget)
    if count > MAX_BUDGET:
        raise ValueError(f"budget must be at most {MAX_BUDGET:,} pairs, got {count:,}")
    if count > pool_size:
        return pool_size, (
            f"budget {count:,} is more than the pool's {pool_size:,} pairs: every pair is judged"
        )
    return count, ""


def pool_order(
    strategy: str,
    rankings: Rankings[R, Q, D],
    *,
    labels: Mapping[tuple[Q, D], int] | None = None,
    taken: Collection[tuple[Q, D]] = (),
    budget: int | None = None,
    oracle: Callable[[Q, D], int] | None = None,
    params: StrategyParams = DEFAULT_PARAMS,
) -> list[tuple[Q, D]]:
    """The pairs of the pool ``rankings`` describes, in ``strategy``'s judging order.

    ``rankings`` maps run → query → documents in rank order, already cut at the pool depth
    (the candidates are their union). ``labels`` are grades known before the order starts;
    labelled pairs are never returned, and adaptive strategies learn from them. ``taken``
    pairs were chosen before but have no label (escalated to people, failed): never
    returned, and no evidence either way. ``budget``
    stops the order after that many pairs (None: every unlabelled candidate). ``oracle``
    (adaptive strategies only; the others ignore it) returns the grade of a pair once it is
    chosen, as a replay of judging does. Returns ``(query, document)`` pairs without
    repeats. Raises ValueError for an unknown strategy or a negative budget.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown pool strategy {strategy!r} (expected {', '.join(STRATEGIES)})")
    if budget is not None and budget < 0:
        raise ValueError(f"budget must be 0 or more, got {budget}")
    known = dict(labels or {})
    chosen = {pair for pair in taken if pair not in known}
    limit = budget if budget is not None else math.inf
    if strategy in ADAPTIVE:
        chooser: _Adaptive[R, Q, D] = (
            _MaxMean(rankings, known, chosen, params)
            if strategy == "bandit"
            else _MinimalTestCollection(rankings, known, chosen, params)
        )
        return _adaptive_order(chooser, limit, oracle)
    static = _static_order(strategy, rankings, params)
    out: list[tuple[Q, D]] = []
    for pair in static:
        if len(out) >= limit:
            break
        if pair not in known and pair not in chosen:
            out.append(pair)
    return out


def _adaptive_order(
    chooser: _Adaptive[R, Q, D], limit: float, oracle: Callable[[Q, D], int] | None
) -> list[tuple[Q, D]]:
    out: list[tuple[Q, D]] = []
    while len(out) < limit:
        pair = chooser.choose()
        if pair is None:
            break
        out.append(pair)
        if oracle is not None:
            chooser.observe(pair, oracle(*pair))
    return out


def _static_order(
    strategy: str, rankings: Rankings[R, Q, D], params: StrategyParams
) -> list[tuple[Q, D]]:
    """Every candidate in ``depth``, ``rbp`` or ``rrf`` order (see the module docstring)."""
    if strategy == "depth":
        best: dict[tuple[Q, D], int] = {}
        for per_query in rankings.values():
            for query, docs in per_query.items():
                for rank, doc in enumerate(docs, start=1):
                    key = (query, doc)
                    best[key] = min(rank, best.get(key, rank))
        return sorted(best, key=lambda k: (best[k], k))
    scores: dict[Q, dict[D, float]] = {}
    for per_query in rankings.values():
        for query, docs in per_query.items():
            into = scores.setdefault(query, {})
            for rank, doc in enumerate(docs, start=1):
                weight = (
                    (1 - params.rbp_p) * params.rbp_p ** (rank - 1)
                    if strategy == "rbp"
                    else 1.0 / (params.rrf_k + rank)
                )
                into[doc] = into.get(doc, 0.0) + weight
    keyed: list[tuple[int, float, Q, D]] = []
    for query, docs_scores in scores.items():
        ordered = sorted(docs_scores, key=lambda d: (-docs_scores[d], d))
        keyed.extend((i, -docs_scores[d], query, d) for i, d in enumerate(ordered))
    keyed.sort()
    return [(q, d) for _, _, q, d in keyed]


class _Adaptive(Generic[R, Q, D]):
    """An adaptive chooser: :meth:`choose` the next unlabelled pair (None when none is
    left), :meth:`observe` a chosen pair's grade."""

    def choose(self) -> tuple[Q, D] | None:  # pragma: no cover - interface
        raise NotImplementedError

    def observe(self, pair: tuple[Q, D], grade: int) -> None:  # pragma: no cover
        raise NotImplementedError


@dataclass(slots=True)
class _Arm(Generic[D]):
    docs: Sequence[D]
    pointer: int = 0  # documents before it are passed (labelled or chosen)
    observations: list[tuple[int, bool]] = field(default_factory=list)  # (rank index, rel)

    def mean(self, discount: float) -> float:
        """Posterior mean of relevance under Beta(1, 1), each observation weighted by
        ``discount ** (observations after it)``."""
        rel = seen = 0.0
        weight = 1.0
        for _, relevant in reversed(self.observations):
            seen += weight
            rel += weight * relevant
            weight *= discount
        return (1.0 + rel) / (2.0 + seen)


class _MaxMean(_Adaptive[R, Q, D]):
    """MaxMean over (query, run) arms (Losada, Parapar & Barreiro, IPM 2017): see the module
    docstring. A pair chosen without a label yet (pending) is passed without evidence; its
    grade, once observed, counts for every arm that has passed it."""

    def __init__(
        self,
        rankings: Rankings[R, Q, D],
        labels: dict[tuple[Q, D], int],
        chosen: set[tuple[Q, D]],
        params: StrategyParams,
    ):
        self.labels = labels
        self.params = params
        self.chosen = chosen
        self.arms: dict[tuple[Q, R], _Arm[D]] = {}
        self.by_query: dict[Q, list[tuple[Q, R]]] = {}
        for run in sorted(rankings):
            for query, docs in sorted(rankings[run].items()):
                if docs:
                    self.arms[(query, run)] = _Arm(docs)
                    self.by_query.setdefault(query, []).append((query, run))
        self.heap: list[tuple[float, int, Q, R, int]] = []
        self.version: dict[tuple[Q, R], int] = {}
        for key in self.arms:
            self._refresh(key)

    def _advance(self, key: tuple[Q, R]) -> None:
        """Move an arm's pointer past labelled and chosen documents, recording the labelled
        ones as evidence."""
        arm = self.arms[key]
        query = key[0]
        while arm.pointer < len(arm.docs):
            pair = (query, arm.docs[arm.pointer])
            if pair in self.labels:
                arm.observations.append((arm.pointer, self.labels[pair] >= self.params.rel_level))
            elif pair not in self.chosen:
                return
            arm.pointer += 1

    def _refresh(self, key: tuple[Q, R]) -> None:
        self._advance(key)
        arm = self.arms[key]
        self.version[key] = self.version.get(key, 0) + 1
        if arm.pointer < len(arm.docs):
            # Highest mean first; on a tie the arm whose next document ranks higher.
            mean = arm.mean(self.params.bandit_discount)
            heapq.heappush(self.heap, (-mean, arm.pointer, key[0], key[1], self.version[key]))

    def choose(self) -> tuple[Q, D] | None:
        while self.heap:
            _, _, query, run, version = heapq.heappop(self.heap)
            key = (query, run)
            if version != self.version[key]:
                continue  # a stale heap entry: the arm was refreshed since
            arm = self.arms[key]
            pair = (query, arm.docs[arm.pointer])
            self.chosen.add(pair)
            for other in self.by_query[query]:
                self._refresh(other)
            return pair
        return None

    def observe(self, pair: tuple[Q, D], grade: int) -> None:
        self.labels[pair] = grade
        query, doc = pair
        relevant = grade >= self.params.rel_level
        for key in self.by_query.get(query, []):
            arm = self.arms[key]
            # An arm that passed the pair while it was pending learns its grade now.
            for index in range(arm.pointer):
                if arm.docs[index] == doc:
                    arm.observations.append((index, relevant))
                    arm.observations.sort()
                    break
            self._refresh(key)


class _MinimalTestCollection(_Adaptive[R, Q, D]):
    """Minimal test collections (Carterette, Allan & Sitaraman, SIGIR 2006) over the DCG
    differences of every pair of runs, by expected effect: see the module docstring."""

    def __init__(
        self,
        rankings: Rankings[R, Q, D],
        labels: dict[tuple[Q, D], int],
        chosen: set[tuple[Q, D]],
        params: StrategyParams,
    ):
        self.params = params
        runs = sorted(rankings)
        # weights[(q, d)][run index] = 1 / log2(rank + 1) within the depth.
        self.weights: dict[tuple[Q, D], dict[int, float]] = {}
        # best_rank: among equal effects (one run, or every pair decided) the depth order.
        self.best_rank: dict[tuple[Q, D], int] = {}
        for i, run in enumerate(runs):
            for query, docs in rankings[run].items():
                for rank, doc in enumerate(docs, start=1):
                    self.weights.setdefault((query, doc), {})[i] = 1.0 / math.log2(rank + 1)
                    key = (query, doc)
                    self.best_rank[key] = min(rank, self.best_rank.get(key, rank))
        self.system_pairs = [(a, b) for a in range(len(runs)) for b in range(a + 1, len(runs))]
        self.known = [0.0] * len(self.system_pairs)  # DCG difference a - b from relevant labels
        self.up = [0.0] * len(self.system_pairs)  # most the unjudged can still add
        self.down = [0.0] * len(self.system_pairs)  # most they can still take away
        self.decided = [False] * len(self.system_pairs)
        self.pairs_of_doc: dict[tuple[Q, D], list[tuple[int, float]]] = {}
        self.docs_of_pair: list[list[tuple[Q, D]]] = [[] for _ in self.system_pairs]
        self.swing: dict[tuple[Q, D], float] = {}  # sum of |diff| over undecided pairs
        for pair, w in self.weights.items():
            touched = []
            for index, (a, b) in enumerate(self.system_pairs):
                diff = w.get(a, 0.0) - w.get(b, 0.0)
                if diff:
                    touched.append((index, diff))
                    self.docs_of_pair[index].append(pair)
                    if diff > 0:
                        self.up[index] += diff
                    else:
                        self.down[index] += diff
            self.pairs_of_doc[pair] = touched
            self.swing[pair] = sum(abs(diff) for _, diff in touched)
        # Relevant / judged labels per (query, run index): the arm posteriors of P(relevant).
        self.arm: dict[tuple[Q, int], list[int]] = {}
        self.open_by_query: dict[Q, set[tuple[Q, D]]] = {}
        for pair in self.weights:
            self.open_by_query.setdefault(pair[0], set()).add(pair)
        for pair, grade in sorted(labels.items()):
            if pair in self.weights:
                self._settle(pair, grade >= params.rel_level)
        for pair in chosen:  # chosen before, label still unknown: not again
            self.open_by_query.get(pair[0], set()).discard(pair)
        for index in range(len(self.system_pairs)):
            self._check(index)
        self.best: dict[Q, tuple[float, tuple[Q, D]]] = {}
        for query in self.open_by_query:
            self._refresh(query)

    def _p_relevant(self, pair: tuple[Q, D]) -> float:
        """Mean over the runs ranking ``pair`` of their Beta(1, 1) posterior mean of
        relevance in its query, from the labels known (the MaxMean arms' estimate)."""
        query = pair[0]
        means = []
        for run in self.weights[pair]:
            rel, seen = self.arm.get((query, run), (0, 0))
            means.append((1 + rel) / (2 + seen))
        return sum(means) / len(means)

    def _refresh(self, query: Q) -> None:
        """Recompute ``query``'s best open pair (highest expected effect, then key order)."""
        candidates = self.open_by_query.get(query)
        if not candidates:
            self.best.pop(query, None)
            return
        # Highest expected effect first; among equals the best rank, then the key.
        top = min(
            candidates,
            key=lambda p: (-self._p_relevant(p) * self.swing[p], self.best_rank[p], p),
        )
        self.best[query] = (self._p_relevant(top) * self.swing[top], top)

    def _settle(self, pair: tuple[Q, D], relevant: bool) -> None:
        """The pair's label is known: move its weight from the unknown ranges to ``known``
        and count it for the arms of the runs that rank it."""
        self.open_by_query.get(pair[0], set()).discard(pair)
        for index, diff in self.pairs_of_doc[pair]:
            if diff > 0:
                self.up[index] -= diff
            else:
                self.down[index] -= diff
            if relevant:
                self.known[index] += diff
        for run in self.weights[pair]:
            counts = self.arm.setdefault((pair[0], run), [0, 0])
            counts[0] += relevant
            counts[1] += 1

    def _check(self, index: int) -> set[Q]:
        """Mark a system pair decided once its sign cannot change; returns the queries whose
        documents lost weight by it (none if it was already decided or still is not)."""
        if self.decided[index]:
            return set()
        low = self.known[index] + self.down[index]
        high = self.known[index] + self.up[index]
        if not (low > 0 or high < 0):
            return set()
        self.decided[index] = True
        for pair in self.docs_of_pair[index]:
            diff = next(d for i, d in self.pairs_of_doc[pair] if i == index)
            self.swing[pair] -= abs(diff)
        return {pair[0] for pair in self.docs_of_pair[index]}

    def choose(self) -> tuple[Q, D] | None:
        if not self.best:
            return None
        query = min(self.best, key=lambda q: (-self.best[q][0], self.best_rank[self.best[q][1]], q))
        pair = self.best[query][1]
        self.open_by_query[query].discard(pair)
        self._refresh(query)
        return pair

    def observe(self, pair: tuple[Q, D], grade: int) -> None:
        if pair not in self.weights:
            return
        self._settle(pair, grade >= self.params.rel_level)
        touched = {pair[0]}
        for index, _ in self.pairs_of_doc[pair]:
            touched |= self._check(index)
        for query in touched:
            self._refresh(query)


def rankings_from_entries(
    entries: Iterable[tuple[R, Q, D, int]], *, depth: int
) -> dict[R, dict[Q, list[D]]]:
    """``(run, query, document, rank)`` entries as :data:`Rankings` cut at ``depth``
    (documents in rank order; ranks need not be contiguous). Raises ValueError if ``depth``
    is below 1."""
    if depth < 1:
        raise ValueError(f"pool depth must be at least 1, got {depth}")
    ranked: dict[R, dict[Q, list[tuple[int, D]]]] = {}
    for run, query, doc, rank in entries:
        if rank <= depth:
            ranked.setdefault(run, {}).setdefault(query, []).append((rank, doc))
    return {
        run: {q: [d for _, d in sorted(docs)] for q, docs in per_query.items()}
        for run, per_query in ranked.items()
    }
