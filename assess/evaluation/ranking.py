"""Ranking measures: how far two leaderboards agree, and rank-biased precision with its
residual. Pure, no database.

A leaderboard is a mapping ``{system: score}``, higher = better (e.g. each run's mean
nDCG@10). The agreement measures compare two leaderboards of the SAME systems: ``reference``
(the original, or "true", leaderboard) and ``other`` (e.g. the one on the refined qrels);
different system sets are a ValueError, and so is a score that is not a finite number.
Fewer than 2 systems leave nothing to order: every agreement measure is then None.

Names follow autojudge-evaluate's ``meta-evaluate`` (TREC AutoJudge), the tool that reports
the same correlations between leaderboards: ``kendall`` (tau-b), ``tauap_b`` and
``kendall@10``; RBP as ir_measures names it, ``RBP(p=0.8)``.

Ties are part of every definition here, and each function says how it treats them: two
systems with equal scores are tied, never ordered by name, except where a top-k cut falls
inside a tie (:func:`kendall_at_k`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from scipy import stats

from corpora.formats import relevance_level_check

Leaderboard = Mapping[str, float]  # {system: score}, higher = better
Qrels = Mapping[str, Mapping[str, int]]  # {query_id: {doc_id: grade}}

TOP_K = 10  # kendall@10, autojudge-evaluate's default top-k correlation
RBO_P = 0.9  # persistence of RBO: the top 10 carry about 86% of the weight
RBP_P = 0.8  # persistence of RBP (ir_measures' default): the user reads 5 documents on average
TIE_DECIMALS = 4  # scores shown as tied ranks: equal as the tables print them


def _systems(reference: Leaderboard, other: Leaderboard) -> list[str]:
    """The common systems, sorted. ValueError when the sets differ or a score is not finite."""
    if set(reference) != set(other):
        only_ref = sorted(set(reference) - set(other))
        only_other = sorted(set(other) - set(reference))
        raise ValueError(
            "the two leaderboards must rank the same systems "
            f"(only in the reference: {only_ref or 'none'}; only in the other: "
            f"{only_other or 'none'})"
        )
    for board in (reference, other):
        for system, score in board.items():
            try:
                finite = math.isfinite(score)
            except TypeError:
                finite = False
            if not finite:
                raise ValueError(f"score {score!r} of system {system!r} is not a finite number")
    return sorted(reference)


def _constant(board: Leaderboard) -> bool:
    return len(set(board.values())) < 2


# --------------------------------------------------------------------------- Kendall


def kendall_tau_b(before: Leaderboard, after: Leaderboard) -> tuple[float | None, float | None]:
    """Kendall's tau-b between two leaderboards of the same systems, with its two-sided
    p-value: ``(tau, p)`` (scipy.stats.kendalltau, variant "b"; Kendall, "The treatment of
    ties in ranking problems", Biometrika 1945). Symmetric in its arguments.

    Ties: computed on the scores, so two systems tied on a side are tied (tau-b divides by
    sqrt((n0 - n1)(n0 - n2)), n1 and n2 the tied pairs of each side), not ordered by name.
    Returns ``(None, None)`` with fewer than 2 systems or when a side is constant (tau-b
    undefined). Raises ValueError if the system sets differ or a score is not finite.
    """
    systems = _systems(before, after)
    if len(systems) < 2 or _constant(before) or _constant(after):
        return None, None
    result = stats.kendalltau(
        [before[s] for s in systems], [after[s] for s in systems], variant="b"
    )
    return float(result.statistic), float(result.pvalue)


def kendall_at_k(reference: Leaderboard, other: Leaderboard, k: int = TOP_K) -> float | None:
    """Top-k Kendall's tau-b, autojudge-evaluate's ``kendall@k``: the ``k`` systems with the
    highest ``reference`` scores are kept, in BOTH leaderboards, and :func:`kendall_tau_b`
    is computed on them. So it asks whether the best systems of the reference keep their
    order among themselves; a system entering the other's top k from below does not count.
    Asymmetric: the cut is the reference's. With ``k`` or fewer systems it equals tau-b.

    Ties: a tie across the cut is broken by system name (ascending), as the leaderboards
    order ties (autojudge-evaluate keeps the order of its input there); ties inside the top
    k count as ties (tau-b). Returns None with fewer than 2 systems kept or a constant side.
    Raises ValueError for ``k < 1``, different system sets or a score that is not finite.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    systems = _systems(reference, other)
    top = sorted(systems, key=lambda s: (-reference[s], s))[:k]
    return kendall_tau_b({s: reference[s] for s in top}, {s: other[s] for s in top})[0]


# --------------------------------------------------------------------------- AP correlation


def _tau_ap_b_half(x: Leaderboard, y: Leaderboard, systems: Sequence[str]) -> float:
    """The asymmetric half of tau_AP,b walking down ``y``: for each system i below y's top
    tie group, the share of the systems strictly above i's group in y that x also puts
    strictly above i; the mean of those shares, rescaled to [-1, 1]. ``y`` not constant."""
    shares = []
    for i in systems:
        above = [j for j in systems if y[j] > y[i]]
        if above:
            shares.append(sum(1 for j in above if x[j] > x[i]) / len(above))
    return 2 * math.fsum(shares) / len(shares) - 1


def _tau_ap_a(x: Leaderboard, y: Leaderboard, systems: Sequence[str]) -> float:
    """tau_AP,a: ``x`` true scores without ties, ``y`` estimated scores that may tie. A system
    of y's tie group that starts at 1-based position g and holds t systems sits at each of
    g .. g + t - 1 with probability 1/t: the concordant systems above its group count with
    the mean of 1/(position - 1), and the pairs inside the group half concordant."""
    n = len(systems)
    total = 0.0
    for i in systems:
        above = [j for j in systems if y[j] > y[i]]
        tied = sum(1 for j in systems if y[j] == y[i])
        g = len(above) + 1
        if above:
            concordant = sum(1 for j in above if x[j] > x[i])
            total += concordant * sum(1 / (g + m - 2) for m in range(1, tied + 1)) / tied
        total += sum(m / (g + m - 1) for m in range(1, tied)) / 2 / tied
    return 2 * total / (n - 1) - 1


def tau_ap(
    reference: Leaderboard, other: Leaderboard, *, variant: Literal["b", "a"] = "b"
) -> float | None:
    """AP correlation between two leaderboards of the same systems, in [-1, 1]. Yilmaz,
    Aslam and Robertson, "A new rank correlation coefficient for information retrieval",
    SIGIR 2008: like Kendall's tau, but a swap near the top costs more than one near the
    bottom. Walking down a ranking, each system scores the share of the systems above it
    that the other ranking also puts above it; tau_AP = 2 * mean(shares) - 1. On
    ``[A, B, C, D]`` vs ``[B, A, C, D]`` it is 1/3, on ``[A, B, D, C]`` 7/9 (tau: 2/3 both).

    ``reference`` is the original (or true) leaderboard, ``other`` the one compared with it.
    Ties follow Urbano and Marrero, "The treatment of ties in AP correlation", ICTIR 2017
    (the reference code is their R package ircor):

    - ``variant="b"`` (default): tau_AP,b, for two leaderboards that may both tie (two
      "observers"; agreement). A system's share is taken over the systems strictly above its
      tie group, and counts a system above only if the compared ranking puts it strictly
      above (a tie there is not agreement); systems of the top tie group have no share. It
      is SYMMETRIC: the mean of the walk down ``other`` (against ``reference``) and the walk
      down ``reference`` (against ``other``), so the order of the arguments does not change
      it. This is autojudge-evaluate's ``tauap_b`` (their copy of ircor's ``tauAP_b``).
      Without ties it is the symmetric tau_AP of Yilmaz et al. (the mean of both ways).
    - ``variant="a"``: tau_AP,a, ASYMMETRIC: ``reference`` holds the true scores and may not
      tie (ValueError), ``other`` an estimate that may; the walk goes down ``other``, and a
      tie group counts as its expected value over the orders of its systems (accuracy).
      Without ties it is Yilmaz et al.'s original tau_AP of ``other`` against ``reference``.

    Returns None with fewer than 2 systems or when a side is constant (no walk to make;
    autojudge-evaluate reports 0.0 for that half instead, and refuses fewer than 3 systems).
    Raises ValueError for different system sets, a score that is not finite, an unknown
    ``variant`` or (variant "a") ties in ``reference``. O(n^2) in the number of systems.
    """
    if variant not in ("a", "b"):
        raise ValueError(f"variant must be 'a' or 'b', got {variant!r}")
    systems = _systems(reference, other)
    if variant == "a" and len(set(reference.values())) < len(systems):
        raise ValueError("tau_AP,a needs a reference without ties: use variant 'b'")
    if len(systems) < 2 or _constant(reference) or _constant(other):
        return None
    if variant == "a":
        return _tau_ap_a(reference, other, systems)
    walk_other = _tau_ap_b_half(reference, other, systems)
    walk_reference = _tau_ap_b_half(other, reference, systems)
    return (walk_other + walk_reference) / 2


# --------------------------------------------------------------------------- RBO


def _depth_shares(board: Leaderboard, systems: Sequence[str]) -> dict[str, list[float]]:
    """Per system, the probability that it is in the top d (d = 1..n) when the board's ties
    are put in a uniformly random order: 0 above its tie group's first position, 1 from its
    last one on, and (d - first + 1) / group size in between (positions from 0)."""
    n = len(systems)
    ordered = sorted(systems, key=lambda s: -board[s])
    first = {s: next(i for i, t in enumerate(ordered) if board[t] == board[s]) for s in systems}
    size = {s: sum(1 for t in systems if board[t] == board[s]) for s in systems}
    return {
        s: [min(max((d - first[s] + 1) / size[s], 0.0), 1.0) for d in range(n)] for s in systems
    }


def rbo(reference: Leaderboard, other: Leaderboard, p: float = RBO_P) -> float | None:
    """Rank-biased overlap of two leaderboards of the same systems, in [0, 1]. Webber, Moffat
    and Zobel, "A similarity measure for indefinite rankings", ACM TOIS 28(4), 2010: the
    agreement at depth d is A_d = |top d of one ∩ top d of the other| / d, and RBO weighs
    the depths geometrically, the top most (``p`` = 0.9: the first 10 depths carry 86%).

    Form: RBO_ext, the extrapolated RBO of the paper's eq. (32) for two lists of equal
    length n = the number of systems (both rank all of them, so A_n = 1):
    RBO = (1 - p) / p * sum_{d=1..n} A_d p^d + A_n p^n. Symmetric. Identical leaderboards
    give 1; ``[A, B, C]`` vs ``[B, A, C]`` at p = 0.9 gives exactly 0.9.

    Ties: the tie-aware RBO^a of Corsi and Urbano, "The treatment of ties in rank-biased
    overlap", SIGIR 2024: the expected RBO over all orders of the tied systems (a tied
    system counts in the top d with the probability that a random order of its group puts
    it there), so a tie is neither agreement nor disagreement. Without ties it is RBO_ext.
    Defined even when everything ties (then the overlap expected by chance).

    Returns None with fewer than 2 systems. Raises ValueError for ``p`` outside (0, 1),
    different system sets or a score that is not finite.
    """
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0 < p < 1:
        raise ValueError(f"the persistence p must be strictly between 0 and 1, got {p!r}")
    systems = _systems(reference, other)
    n = len(systems)
    if n < 2:
        return None
    ref, oth = _depth_shares(reference, systems), _depth_shares(other, systems)
    agreement = [math.fsum(ref[s][d] * oth[s][d] for s in systems) / (d + 1) for d in range(n)]
    weighted = math.fsum(a * p ** (d + 1) for d, a in enumerate(agreement))
    return (1 - p) / p * weighted + agreement[-1] * p**n


# --------------------------------------------------------------------------- agreement


@dataclass(frozen=True, slots=True)
class RankingAgreement:
    """How far two leaderboards of the same ``n`` systems agree: ``kendall_tau_b`` and its
    two-sided ``kendall_p`` (:func:`kendall_tau_b`), ``tauap_b`` (:func:`tau_ap`, variant
    "b"), ``kendall_at_k`` over the reference's top ``k`` (``k_n`` systems kept;
    :func:`kendall_at_k`) and ``rbo`` at persistence ``rbo_p`` (:func:`rbo`). None where
    undefined (fewer than 2 systems, a constant side)."""

    n: int
    kendall_tau_b: float | None
    kendall_p: float | None
    tauap_b: float | None
    kendall_at_k: float | None
    rbo: float | None
    k: int = TOP_K
    k_n: int = 0
    rbo_p: float = RBO_P


def ranking_agreement(
    reference: Leaderboard, other: Leaderboard, *, k: int = TOP_K, rbo_p: float = RBO_P
) -> RankingAgreement:
    """Every agreement measure of this module between ``reference`` (the original
    leaderboard) and ``other`` (the refined one), as a :class:`RankingAgreement`. Raises
    ValueError as the measures do."""
    tau, tau_p = kendall_tau_b(reference, other)
    return RankingAgreement(
        n=len(reference),
        kendall_tau_b=tau,
        kendall_p=tau_p,
        tauap_b=tau_ap(reference, other),
        kendall_at_k=kendall_at_k(reference, other, k),
        rbo=rbo(reference, other, rbo_p),
        k=k,
        k_n=min(k, len(reference)),
        rbo_p=rbo_p,
    )


# --------------------------------------------------------------------------- RBP


@dataclass(frozen=True, slots=True)
class RbpScore:
    """Rank-biased precision at persistence ``p``: ``base``, what the judged documents give,
    and ``residual``, how much more unjudged documents and the unranked tail could add (the
    true RBP lies in [base, base + residual])."""

    p: float
    base: float
    residual: float


def _rbp_one(docs: Sequence[str], judged: Mapping[str, int], p: float, rel: int) -> RbpScore:
    base = residual = 0.0
    for rank, doc_id in enumerate(docs):
        weight = (1 - p) * p**rank
        grade = judged.get(doc_id)
        if grade is None:
            residual += weight
        elif grade >= rel:
            base += weight
    return RbpScore(p, base, residual + p ** len(docs))


def rbp(
    run_ranking: Mapping[str, Sequence[str]],
    qrels: Qrels,
    p: float = RBP_P,
    *,
    rel_level: int = 1,
    queries: Iterable[str] | None = None,
) -> tuple[RbpScore, dict[str, RbpScore]]:
    """Rank-biased precision with its residual. Moffat and Zobel, "Rank-biased precision for
    measurement of retrieval effectiveness", ACM TOIS 27(1), 2008. ir_measures' ``RBP(p=)``
    gives the base alone; rbp_eval (Webber's tool) gives both.

    ``run_ranking``: ``{query_id: [doc_id, ...]}`` in rank order (one ranking per query, no
    document twice: ties already broken, e.g. by ``assess.evaluation.metrics.rank_run``).
    ``qrels``: ``{query_id: {doc_id: grade}}``. Per query, with depth = the ranking's length:

    - base = (1 - p) * sum over ranks i of judged relevant documents of p^(i - 1);
    - residual = (1 - p) * sum over ranks i of unjudged documents of p^(i - 1) + p^depth
      (the tail below the ranking, as if every further document might be relevant).

    Relevance is binary: grade >= ``rel_level`` (default 1) is relevant, a lower grade judged
    not relevant (the level R@k, P@k and Hole@10 use; rbp_eval would weigh a document by its
    grade instead, for grades scaled to [0, 1]). Example at p = 0.8: d1 relevant, d2
    unjudged, d3 judged 0 → base 0.2, residual 0.2 * 0.8 + 0.8^3 = 0.672.

    ``queries`` defaults to the queries with at least one judgment; a listed query with no
    ranking has base 0 and residual 1 (nothing seen). Returns ``(mean, {query_id: score})``,
    means unweighted over queries; with no query, base 0 and residual 1. Raises ValueError
    for ``p`` outside (0, 1), a ``rel_level`` below 1 or a document ranked twice.
    """
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0 < p < 1:
        raise ValueError(f"the persistence p must be strictly between 0 and 1, got {p!r}")
    relevance_level_check(rel_level)
    if queries is None:
        queries = [q for q, judged in qrels.items() if judged]
    per_query: dict[str, RbpScore] = {}
    for query_id in sorted(queries):
        docs = run_ranking.get(query_id, ())
        if len(set(docs)) < len(docs):
            raise ValueError(f"query {query_id!r} ranks a document twice")
        per_query[query_id] = _rbp_one(docs, qrels.get(query_id, {}), p, rel_level)
    if not per_query:
        return RbpScore(p, 0.0, 1.0), per_query
    scores = per_query.values()
    mean = RbpScore(
        p,
        math.fsum(s.base for s in scores) / len(per_query),
        math.fsum(s.residual for s in scores) / len(per_query),
    )
    return mean, per_query


def shown_ranks(scores: Mapping[str, float], *, decimals: int = TIE_DECIMALS) -> dict[str, str]:
    """Each system's rank as the rank plot and the rank-change table label it: 1 + the
    systems scoring more (competition ranking), prefixed "=" when another system has the
    same score (``=2``, as leaderboards print a tie). Scores equal to ``decimals`` places
    tie: by default the four the re-benchmark's tables print
    (:func:`assess.evaluation.tables.number`), so that two systems the leaderboard shows as
    0.3097 and 0.3097 are not shown as 2nd and 3rd."""
    rounded = {s: round(float(v), decimals) for s, v in scores.items()}
    count = Counter(rounded.values())
    return {
        s: ("=" if count[v] > 1 else "") + str(1 + sum(1 for w in rounded.values() if w > v))
        for s, v in rounded.items()
    }
