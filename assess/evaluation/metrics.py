"""Retrieval metrics and re-benchmarking on original vs refined qrels. Pure, no database.

Data shapes (plain Python, so the database layer and the tests share them):

- qrels: ``{query_id: {doc_id: grade}}``, grades are integers; a pair present with any grade
  (including 0 and negative) is *judged*; a grade > 0 is *relevant*.
- run: ``{query_id: {doc_id: score}}`` or rows ``(query_id, doc_id, rank, score)``.

Rank order everywhere is score descending, then ``doc_id`` ascending (code-point order), the
project's convention (``corpora.runs.rank_order``). trec_eval and ir_measures break ties
differently, so every run is handed to ir_measures with score ``-rank``: strictly decreasing,
hence the ranking they evaluate is exactly ours (:func:`to_ir_measures_run`).

Evaluation queries: by default the queries with at least one judgment in the qrels (what
ir_measures/trec_eval average over). A query with no ranked document scores 0 on every
measure (trec_eval ``-c``), so a system cannot gain by skipping hard queries. Means are
unweighted over queries (macro average).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import ir_measures
from ir_measures import Judged, P, R, Success, nDCG

from corpora.formats import relevance_level_check

from . import ranking
from .paired import SCORE_DECIMALS, PairedTest, paired_test
from .ranking import RankingAgreement, RbpScore

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]
RunRows = Iterable[tuple[str, str, int, float]]
RunInput = Run | RunRows
Ranked = dict[str, list[str]]  # query_id -> doc_ids in rank order

NDCG10 = "nDCG@10"
NDCG10_EXP = "nDCG@10 (exp. gain)"
PAPER_NDCG10 = "nDCG@10 (DREAM paper variant, ideal over all gold)"
HOLE10 = "Hole@10"


def check_rel_level(rel_level: int) -> int:
    """``rel_level`` if it is a whole number from 1 to 127 (booleans excluded); ValueError
    otherwise, in the words of :func:`corpora.formats.relevance_level_check`."""
    return relevance_level_check(rel_level)


def exp_gains(grades: Iterable[int]) -> dict[int, int]:
    """The exponential gain of each grade: 2^g - 1 for g > 0, 0 otherwise (grade 1 -> 1,
    2 -> 3, 3 -> 7, 4 -> 15). Source: Burges et al., "Learning to rank using gradient
    descent", ICML 2005 (the gain of most learning-to-rank nDCG); trec_eval's default is the
    linear gain g."""
    return {int(g): (2 ** int(g) - 1 if g > 0 else 0) for g in sorted(set(grades))}


def measures_at(*, rel_level: int = 1, exp_gain_grades: Collection[int] = ()) -> dict[str, Any]:
    """The default measures (:data:`DEFAULT_MEASURES`, same labels and order) with the binary
    measures R@10, R@100, P@10 and Success@10 counting grade >= ``rel_level`` as relevant
    (ir_measures' ``rel=``; e.g. 2 for TREC Deep Learning, whose binary measures count grade
    >= 2). nDCG@10 keeps the grades as gains (trec_eval's linear gain) and Judged@10 any
    judged grade. With ``exp_gain_grades`` (the grades found in the qrels) the labelled
    :data:`NDCG10_EXP` is added: nDCG@10 with gains 2^g - 1 (:func:`exp_gains`, through
    ir_measures' ``nDCG(gains=...)``). Raises ValueError for a ``rel_level`` outside 1..127.
    """
    rel = check_rel_level(rel_level)
    measures: dict[str, Any] = {
        NDCG10: nDCG @ 10,
        "R@10": R(rel=rel) @ 10,
        "R@100": R(rel=rel) @ 100,
        "P@10": P(rel=rel) @ 10,
        "Success@10": Success(rel=rel) @ 10,
        "Judged@10": Judged @ 10,
    }
    if exp_gain_grades:
        measures[NDCG10_EXP] = nDCG(gains=exp_gains(exp_gain_grades)) @ 10
    return measures


# Labels are the names shown on pages; values are ir_measures measures. ``rel=1`` makes a
# grade >= 1 (i.e. > 0 for integer grades) count as relevant for the binary measures; nDCG
# uses the graded gains, and Judged counts any judged grade.
DEFAULT_MEASURES: Mapping[str, Any] = MappingProxyType(measures_at())


# --------------------------------------------------------------------------- converters


def to_ir_measures_qrels(rows: Iterable[tuple[str, str, int]]) -> dict[str, dict[str, int]]:
    """``(query_id, doc_id, grade)`` rows as qrels ``{query_id: {doc_id: grade}}``.

    Raises ValueError naming the query and document of a pair given twice (imports already
    refuse duplicates, so a second row here is a caller bug, not something to resolve).
    """
    qrels: dict[str, dict[str, int]] = {}
    for query_id, doc_id, grade in rows:
        judged = qrels.setdefault(query_id, {})
        if doc_id in judged:
            raise ValueError(f"qrels pair given twice: query {query_id!r} document {doc_id!r}")
        judged[doc_id] = int(grade)
    return qrels


def rank_run(run: RunInput) -> Ranked:
    """A run as ``{query_id: [doc_id, ...]}`` in rank order (score desc, then doc_id asc).

    Rows ``(query_id, doc_id, rank, score)`` are ordered by score, not by their rank column
    (the project's convention; stored ranks are derived from scores the same way). Raises
    ValueError naming the pair when a document appears twice for one query, or when a score
    is not a finite number.
    """
    if isinstance(run, Mapping):
        scored = {q: list(docs.items()) for q, docs in run.items()}
    else:
        scored = {}
        seen: set[tuple[str, str]] = set()
        for query_id, doc_id, _rank, score in run:
            if (query_id, doc_id) in seen:
                raise ValueError(f"run lists query {query_id!r} document {doc_id!r} twice")
            seen.add((query_id, doc_id))
            scored.setdefault(query_id, []).append((doc_id, score))
    ranked: Ranked = {}
    for query_id, entries in scored.items():
        for doc_id, score in entries:
            if not math.isfinite(score):
                raise ValueError(
                    f"run score {score!r} for query {query_id!r} document {doc_id!r} "
                    "is not a finite number"
                )
        ranked[query_id] = [d for d, _ in sorted(entries, key=lambda e: (-e[1], e[0]))]
    return ranked


def to_ir_measures_run(run: RunInput) -> dict[str, dict[str, float]]:
    """A run as ``{query_id: {doc_id: -rank}}``, the form handed to ir_measures.

    Scores become ``-rank`` (rank from 1 in the project's order), so they strictly decrease
    and trec_eval's own tie-breaking never applies. Raises as :func:`rank_run`.
    """
    return _ir_run(rank_run(run))


def _ir_run(ranked: Ranked) -> dict[str, dict[str, float]]:
    return {
        q: {doc_id: float(-rank) for rank, doc_id in enumerate(docs, start=1)}
        for q, docs in ranked.items()
        if docs
    }


def _judged_queries(qrels: Qrels) -> list[str]:
    return sorted(q for q, judged in qrels.items() if judged)


# --------------------------------------------------------------------------- our own measures


def _hole_one(
    original: Mapping[str, int], refined: Mapping[str, int], top: list[str], k: int, rel: int = 1
) -> float:
    holes = sum(1 for d in top if d not in original and refined.get(d, 0) >= rel)
    return holes / k


def hole_at_k(
    original_qrels: Qrels,
    refined_qrels: Qrels,
    run: RunInput,
    k: int = 10,
    *,
    queries: Collection[str] | None = None,
    rel_level: int = 1,
) -> tuple[float, dict[str, float]]:
    """Hole@k: the share of a run's top k that was a hole the refinement filled.

    Per query: |top-k ∩ {d : d unjudged in the original qrels and grade >= ``rel_level``
    (default 1) in the refined}|
    divided by ``k`` (always ``k``, even when fewer than k documents are ranked; Judged@10 of
    ir_measures divides by the number ranked instead). Source: DREAM paper (Ban et al.,
    ICLR 2026, arXiv 2602.06526), Hole@10, reported ~17% on average; the definition follows
    the project's method note (METHOD.md).

    Returns ``(mean, {query_id: value})``, the mean over ``queries`` (default: the queries
    with at least one ranked document; a query listed but not ranked scores 0). Returns
    ``(0.0, {})`` when there is no query. Raises ValueError if ``k < 1`` or as :func:`rank_run`.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    ranked = rank_run(run)
    if queries is None:
        queries = [q for q, docs in ranked.items() if docs]
    rel = check_rel_level(rel_level)
    return _hole_ranked(original_qrels, refined_qrels, ranked, k, queries, rel)


def _hole_ranked(
    original_qrels: Qrels,
    refined_qrels: Qrels,
    ranked: Ranked,
    k: int,
    queries: Iterable[str],
    rel: int = 1,
) -> tuple[float, dict[str, float]]:
    empty: dict[str, int] = {}
    per_query = {
        q: _hole_one(
            original_qrels.get(q, empty),
            refined_qrels.get(q, empty),
            ranked.get(q, [])[:k],
            k,
            rel,
        )
        for q in sorted(queries)
    }
    return _mean(per_query.values()), per_query


def _dcg(gains: Iterable[float]) -> float:
    # Same gain (the grade) and discount (log2(rank + 1)) as trec_eval's ndcg_cut.
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, start=1))


def _paper_ndcg_one(judged: Mapping[str, int], top: list[str]) -> float:
    ideal = _dcg(sorted((g for g in judged.values() if g > 0), reverse=True))
    if ideal == 0:
        return 0.0
    return _dcg(max(judged.get(d, 0), 0) for d in top) / ideal


def ndcg_paper_variant(
    qrels: Qrels,
    run: RunInput,
    k: int = 10,
    *,
    queries: Collection[str] | None = None,
) -> tuple[float, dict[str, float]]:
    """The measure labelled "nDCG@10 (DREAM paper variant, ideal over all gold)".

    DCG@k as in standard nDCG@k (gain = grade, grades <= 0 gain nothing; discount
    log2(rank + 1)), but the ideal DCG sums over ALL relevant documents of the query, not
    only the best min(k, |relevant|). So a query with more than k relevant documents can
    never reach 1, and the value is below standard nDCG@k for it. Source: the DREAM paper's
    evaluation (Ban et al., ICLR 2026, arXiv 2602.06526), as noted in the project's method
    note (METHOD.md); we report standard nDCG@10 as the main measure and this one labelled
    :data:`PAPER_NDCG10`.

    Returns ``(mean, {query_id: value})`` over ``queries`` (default: queries with at least
    one judgment; a query with no relevant document scores 0). Raises ValueError if ``k < 1``.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    ranked = rank_run(run)
    if queries is None:
        queries = _judged_queries(qrels)
    per_query = _paper_ndcg_ranked(qrels, ranked, k, queries)
    return _mean(per_query.values()), per_query


def _paper_ndcg_ranked(
    qrels: Qrels, ranked: Ranked, k: int, queries: Iterable[str]
) -> dict[str, float]:
    empty: dict[str, int] = {}
    return {q: _paper_ndcg_one(qrels.get(q, empty), ranked.get(q, [])[:k]) for q in queries}


def holes_per_query(
    original_qrels: Qrels, refined_qrels: Qrels, *, rel_level: int = 1
) -> dict[str, int]:
    """Per query of the refined qrels: how many holes the refinement filled, i.e. documents
    unjudged in the original qrels and relevant (grade >= ``rel_level``, default 1) in the
    refined ones.

    Every refined query is listed (0 when none), sorted by query id. Shown as the
    distribution of holes per query (DREAM paper: 6,976 → 36,800 gold chunks in BRIDGE).
    """
    empty: dict[str, int] = {}
    return {
        q: sum(
            1
            for d, g in refined_qrels[q].items()
            if g >= rel_level and d not in original_qrels.get(q, empty)
        )
        for q in sorted(refined_qrels)
    }


def hit_at_k(
    qrels: Qrels,
    run: RunInput,
    k: int = 10,
    *,
    queries: Collection[str] | None = None,
) -> dict[str, bool]:
    """Per query: is a relevant document (grade > 0) in the run's top k? (Success@k per query.)

    ``queries`` defaults to the queries with at least one ranked document; a listed query
    without a ranking is False. Used by RAGAlign@k (``assess.evaluation.rag.rag_align``).
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    ranked = rank_run(run)
    if queries is None:
        queries = [q for q, docs in ranked.items() if docs]
    empty: dict[str, int] = {}
    return {
        q: any(qrels.get(q, empty).get(d, 0) > 0 for d in ranked.get(q, [])[:k])
        for q in sorted(queries)
    }


# --------------------------------------------------------------------------- ir_measures


def evaluate_run(
    qrels: Qrels,
    run: RunInput,
    *,
    measures: Mapping[str, Any] = DEFAULT_MEASURES,
    queries: Collection[str] | None = None,
    paper_variant: bool = True,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Score one run with ir_measures (Macdonald & Tonellotto, 2022; trec_eval semantics).

    ``measures`` maps display labels to ir_measures measures (default: nDCG@10, R@10, R@100,
    P@10, Success@10 with relevance = grade > 0, and Judged@10 = share of the top 10 with any
    judgment, divided by min(10, number ranked) as ir_measures does). With ``paper_variant``
    the :data:`PAPER_NDCG10` measure is added.

    ``queries`` defaults to the queries with at least one judgment; judgments for other
    queries are ignored, and a listed query without a ranking scores 0.

    Returns ``(aggregate, per_query)``: ``{label: mean over queries}`` and
    ``{query_id: {label: value}}``; all values in [0, 1]. An empty query set gives zeros.
    Raises ValueError as :func:`rank_run`.
    """
    ranked = rank_run(run)
    if queries is None:
        queries = _judged_queries(qrels)
    evaluator = _Evaluator(qrels, measures, queries)
    return evaluator.evaluate(ranked, _ir_run(ranked), paper_variant=paper_variant)


class _Evaluator:
    """One qrels set prepared once and applied to many runs (the pytrec_eval index is reused)."""

    def __init__(self, qrels: Qrels, measures: Mapping[str, Any], queries: Collection[str]):
        self.queries = sorted(queries)
        wanted = set(self.queries)
        self.qrels = {q: dict(j) for q, j in qrels.items() if q in wanted and j}
        self.measures = dict(measures)
        self.label_of = {m: label for label, m in self.measures.items()}
        # ir_measures hands back the very measure objects it was given; looking them up by
        # identity skips Measure.__hash__ (a repr), which dominated the re-benchmark's time.
        self.label_by_id = {id(m): label for label, m in self.measures.items()}
        # A measure with custom gains gets an evaluator of its own: ir_measures 0.4.3 mixes
        # up nDCG with and without gains in one pytrec_eval call when Success is asked too
        # (nDCG@10 came back with the exponential gains, the gained one as 0).
        plain = [m for m in self.measures.values() if not _has_gains(m)]
        groups = [plain] + [[m] for m in self.measures.values() if _has_gains(m)]
        self.evaluators = (
            [ir_measures.evaluator(group, self.qrels) for group in groups if group]
            if self.qrels
            else []
        )

    def evaluate(
        self, ranked: Ranked, ir_run: Mapping[str, Mapping[str, float]], *, paper_variant: bool
    ) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
        labels = list(self.measures)
        per_query = {q: dict.fromkeys(labels, 0.0) for q in self.queries}
        run = {q: docs for q, docs in ir_run.items() if q in per_query}
        for evaluator in self.evaluators if run else ():
            for metric in evaluator.iter_calc(run):
                scores = per_query.get(metric.query_id)
                if scores is not None:
                    label = self.label_by_id.get(id(metric.measure))
                    if label is None:
                        label = self.label_of[metric.measure]
                    scores[label] = float(metric.value)
        if paper_variant:
            labels.append(PAPER_NDCG10)
            for q, value in _paper_ndcg_ranked(self.qrels, ranked, 10, self.queries).items():
                per_query[q][PAPER_NDCG10] = value
        aggregate = {label: _mean(per_query[q][label] for q in self.queries) for label in labels}
        return aggregate, per_query


def _has_gains(measure: Any) -> bool:
    return bool(getattr(measure, "params", {}).get("gains"))


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return math.fsum(values) / len(values) if values else 0.0


# --------------------------------------------------------------------------- re-benchmarking


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One system on a leaderboard: ``rank`` from 1, ``scores`` ``{label: mean}``."""

    rank: int
    system: str
    scores: dict[str, float]


@dataclass(frozen=True, slots=True)
class RankChange:
    """A system's rank before and after; ``change`` = before - after (positive: moved up)."""

    before: int
    after: int
    change: int


@dataclass(frozen=True, slots=True)
class RebenchResult:
    """Everything the re-benchmark pages show.

    - ``measures``: labels in column order; ``queries``: the evaluation queries (those
      judged in the original qrels), sorted.
    - ``before`` / ``after``: leaderboards on the original / refined qrels, sorted by
      nDCG@10 descending, then system name.
    - ``rank_changes``: ``{system: RankChange}`` (ranks on nDCG@10).
    - ``kendall_tau`` / ``kendall_p``: Kendall's tau-b between the systems' nDCG@10 before
      and after (None with fewer than 2 systems or when a side is constant).
    - ``per_query_before`` / ``per_query_after`` / ``deltas``:
      ``{system: {query_id: {label: value}}}``, deltas = after - before.
    - ``holes`` / ``holes_per_query``: Hole@10 mean and per query per system.
    - ``significance``: ``{system: PairedTest}`` on per-query nDCG@10.
    - ``refined_only_queries``: queries judged only in the refined qrels (not evaluated).
    - ``rel_level``: the lowest grade the binary measures and Hole@10 count as relevant.
    - ``agreement``: the two nDCG@10 leaderboards compared (tau-b, tau_AP,b, top-10 tau,
      RBO p = 0.9: :func:`assess.evaluation.ranking.ranking_agreement`).
    - ``rbp_before`` / ``rbp_after``: ``{system: RbpScore}``, RBP (p = 0.8) and its residual
      on the original / refined qrels, means over the evaluation queries, relevance at
      ``rel_level`` (:func:`assess.evaluation.ranking.rbp`).
    - ``top_grade``: the highest grade in either qrel set (None: neither holds a judgment),
      so that a ``rel_level`` above it can be said in words, not only shown as zeros.
    """

    measures: tuple[str, ...]
    queries: tuple[str, ...]
    before: list[LeaderboardRow]
    after: list[LeaderboardRow]
    rank_changes: dict[str, RankChange]
    kendall_tau: float | None
    kendall_p: float | None
    per_query_before: dict[str, dict[str, dict[str, float]]]
    per_query_after: dict[str, dict[str, dict[str, float]]]
    deltas: dict[str, dict[str, dict[str, float]]]
    holes: dict[str, float]
    holes_per_query: dict[str, dict[str, float]]
    significance: dict[str, PairedTest]
    refined_only_queries: tuple[str, ...]
    rel_level: int = 1
    agreement: RankingAgreement | None = None
    rbp_before: dict[str, RbpScore] = field(default_factory=dict)
    rbp_after: dict[str, RbpScore] = field(default_factory=dict)
    top_grade: int | None = None


def leaderboard(scores: Mapping[str, Mapping[str, float]]) -> list[LeaderboardRow]:
    """``{system: {label: mean}}`` as rows sorted by nDCG@10 descending, then system name.

    Ranks are 1, 2, 3, ... (a tie on nDCG@10 is broken by name, so every rank is unique).
    Raises KeyError if a system has no nDCG@10.
    """
    ordered = sorted(scores, key=lambda s: (-scores[s][NDCG10], s))
    return [LeaderboardRow(i, s, dict(scores[s])) for i, s in enumerate(ordered, start=1)]


def kendall_tau(
    before: Mapping[str, float], after: Mapping[str, float]
) -> tuple[float | None, float | None]:
    """Kendall's tau-b between two scorings of the same systems, as
    :func:`assess.evaluation.ranking.kendall_tau_b` (scipy.stats.kendalltau).

    Computed on the scores, not on the name-tie-broken ranks, so two systems tied on a side
    count as tied (tau-b's correction) instead of as ordered by name; each score is first
    rounded to :data:`SCORE_DECIMALS`, as the paired tests round theirs, so two systems tied
    up to float rounding (0.1 + 0.2 against 0.3) are tied, not ordered. Returns
    ``(tau, two-sided p)``, or ``(None, None)`` with fewer than 2 systems or when one side
    is constant (tau undefined). Raises ValueError if the system sets differ.
    """
    if set(before) != set(after):
        raise ValueError("kendall_tau needs the same systems before and after")
    return ranking.kendall_tau_b(
        {s: round(v, SCORE_DECIMALS) for s, v in before.items()},
        {s: round(v, SCORE_DECIMALS) for s, v in after.items()},
    )


def _rebench_measures(
    measures: Mapping[str, Any] | None,
    original_qrels: Qrels,
    refined_qrels: Qrels,
    *,
    rel_level: int,
    exp_gain: bool,
) -> Mapping[str, Any]:
    """The measures of :func:`rebenchmark`: ``measures``, or by default :func:`measures_at`
    with ``rel_level`` and, with ``exp_gain``, the exponential-gain nDCG@10 over the grades
    of both qrel sets. Raises ValueError when they do not include nDCG@10."""
    if measures is None:
        grades = (
            {
                g
                for qrels in (original_qrels, refined_qrels)
                for j in qrels.values()
                for g in j.values()
            }
            if exp_gain
            else ()
        )
        measures = measures_at(rel_level=rel_level, exp_gain_grades=grades)
    if NDCG10 not in measures:
        raise ValueError(f"measures must include {NDCG10!r}")
    return measures


def _rank_changes(before: list[Any], after: list[Any]) -> dict[str, RankChange]:
    """Each system's rank on the original (``before``) and the refined leaderboard
    (``after``, rows of :func:`leaderboard`) and how many places it rose, by system name."""
    rank_before = {row.system: row.rank for row in before}
    rank_after = {row.system: row.rank for row in after}
    return {
        s: RankChange(rank_before[s], rank_after[s], rank_before[s] - rank_after[s])
        for s in sorted(rank_before)
    }


def _deltas(
    before: dict[str, dict[str, float]], after: dict[str, dict[str, float]]
) -> dict[str, dict[str, float]]:
    """Per query and measure, ``after`` - ``before`` (``{query_id: {label: value}}``)."""
    return {q: {m: after[q][m] - v for m, v in by.items()} for q, by in before.items()}


def _rbp(ranked: Ranked, qrels: Qrels, queries: Sequence[str], rel_level: int) -> RbpScore:
    """The mean RBP (p = 0.8) and residual of one ranked run over ``queries``."""
    return ranking.rbp(ranked, qrels, queries=queries, rel_level=rel_level)[0]


def _top_grade(*qrels: Qrels) -> int | None:
    """The highest grade in any of ``qrels`` (None when they hold no judgment)."""
    return max((g for q in qrels for by_doc in q.values() for g in by_doc.values()), default=None)


def rebenchmark(
    original_qrels: Qrels,
    refined_qrels: Qrels,
    runs: Mapping[str, RunInput],
    *,
    measures: Mapping[str, Any] | None = None,
    rel_level: int = 1,
    exp_gain: bool = False,
) -> RebenchResult:
    """Score every run on the original and the refined qrels and compare (DREAM paper, §5).

    Both sides are evaluated over the same queries, those judged in the original qrels, so
    per-query scores pair up; refined judgments of other queries are ignored and listed in
    ``refined_only_queries``. ``runs`` maps system names to runs (either run form).
    ``measures`` defaults to :func:`measures_at` with ``rel_level`` (the lowest grade the
    binary measures count as relevant; Hole@10 counts the same) and, with ``exp_gain``, the
    exponential-gain nDCG@10 over the grades of both qrel sets.
    Raises ValueError for an empty ``runs`` or a bad run (as :func:`rank_run`), a
    ``rel_level`` outside 1..127; ``measures`` must include nDCG@10."""
    if not runs:
        raise ValueError("rebenchmark needs at least one run")
    rel_level = check_rel_level(rel_level)
    measures = _rebench_measures(
        measures, original_qrels, refined_qrels, rel_level=rel_level, exp_gain=exp_gain
    )
    queries = _judged_queries(original_qrels)
    refined_only = tuple(sorted(set(_judged_queries(refined_qrels)) - set(queries)))
    before_eval = _Evaluator(original_qrels, measures, queries)
    after_eval = _Evaluator(refined_qrels, measures, queries)

    agg_before, agg_after = {}, {}
    pq_before, pq_after, deltas = {}, {}, {}
    holes, holes_pq, significance, rbp_before, rbp_after = {}, {}, {}, {}, {}
    for system in sorted(runs):
        ranked = rank_run(runs[system])
        ir_run = _ir_run(ranked)
        agg_before[system], pq_before[system] = before_eval.evaluate(
            ranked, ir_run, paper_variant=True
        )
        agg_after[system], pq_after[system] = after_eval.evaluate(
            ranked, ir_run, paper_variant=True
        )
        deltas[system] = _deltas(pq_before[system], pq_after[system])
        holes[system], holes_pq[system] = _hole_ranked(
            original_qrels, refined_qrels, ranked, 10, queries, rel_level
        )
        significance[system] = paired_test(
            [pq_before[system][q][NDCG10] for q in queries],
            [pq_after[system][q][NDCG10] for q in queries],
        )
        rbp_before[system] = _rbp(ranked, original_qrels, queries, rel_level)
        rbp_after[system] = _rbp(ranked, refined_qrels, queries, rel_level)

    before, after = leaderboard(agg_before), leaderboard(agg_after)
    agreement = ranking.ranking_agreement(
        {s: a[NDCG10] for s, a in agg_before.items()},
        {s: a[NDCG10] for s, a in agg_after.items()},
    )
    return RebenchResult(
        measures=(*measures, PAPER_NDCG10),
        queries=tuple(queries),
        before=before,
        after=after,
        rank_changes=_rank_changes(before, after),
        kendall_tau=agreement.kendall_tau_b,
        kendall_p=agreement.kendall_p,
        per_query_before=pq_before,
        per_query_after=pq_after,
        deltas=deltas,
        holes=holes,
        holes_per_query=holes_pq,
        significance=significance,
        refined_only_queries=refined_only,
        rel_level=rel_level,
        agreement=agreement,
        rbp_before=rbp_before,
        rbp_after=rbp_after,
        top_grade=_top_grade(original_qrels, refined_qrels),
    )
