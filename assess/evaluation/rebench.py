"""Re-benchmarking from the database: every run of a dataset on the original and a refined
qrel set, through the pure evaluation core (:func:`assess.evaluation.metrics.rebenchmark`).

Qrel sets and finished runs never change once written (a run is replaced only under a new
id), so a result is cached (Django's cache, 10 minutes) per (original set, refined set,
runs) for the pages, whose tables and three plots would otherwise compute it four times.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.cache import cache

from corpora.identical import skip_identical
from corpora.models import Dataset, Qrel, QrelSet, Run
from corpora.services import qrels_rows, run_rows

from . import metrics
from .effects import Effects, effects_compute, effects_table, qrels_split
from .tables import Table

CACHE_SECONDS = 600
# Part of every cache key: bumped when a cached result gains fields or changes values (2: the
# ranking measures, 3: the effects of corrections apart from holes, 4: the refined intervals'
# simulated labels, 5: the intervals' query counts, the LLM-only nDCG binary at the
# relevance level and Wilcoxon's p on the changed queries, 6: the intervals' second-order
# term, 7: a run no audited pair reaches gets its whole range, 8: a stratum with one human
# label joins its same-label sibling, a value the sample gives no variance gets its whole
# range, and a set refined before inclusions were stored weighs each job's stratum by the
# share drawn, 9: a system difference the sample gives no variance spans its range unless
# the unaudited pairs cannot move it, 10: the intervals' original scores of every interval
# measure, which the Δ intervals subtract, 11: n_b beside every interval, the whole range
# below 5 and Student t above, strata merged by the binary label, pairs beyond a pool's
# budget counted apart, 12: the budget planner asks a value on fewer than 5 labels'
# effective size only for the share that gives it 5, 13: the refined intervals carry each
# run's plain refined scores, 14: the note that the planner's figure is a first step for a
# run on fewer than 5 labels), so that a result cached by the code before (e.g. in Redis
# across a restart) is not read.
CACHE_VERSION = 14


class RebenchError(ValueError):
    """A re-benchmark that cannot run (unknown qrel set or run, no finished run...)."""


@dataclass
class RebenchReport:
    """A re-benchmark: names, the pure result and the holes filled per query
    (:func:`assess.evaluation.metrics.holes_per_query`, over the refined set's queries)."""

    dataset: str
    original: str
    refined: str
    runs: list[str]
    result: metrics.RebenchResult
    holes_per_query: dict[str, int]
    # Run entries left out because they rank the query's own document (dataset excludes
    # identical ids), per run name; empty when the dataset keeps them.
    self_entries_skipped: dict[str, int] = field(default_factory=dict)
    # The leaderboards on the original with its corrections only, with its filled holes
    # only, and both (assess.evaluation.effects); None when the refined set corrects no
    # original grade (its effect is then the holes' alone).
    effects: Effects | None = None

    def effects_tables(self) -> list[Table]:
        """The table of :func:`assess.evaluation.effects.effects_table` when the refined set
        corrects original grades, else none: shown after the re-benchmark's tables."""
        return [effects_table(self.effects)] if self.effects is not None else []

    def self_entries_note(self) -> str:
        """One line naming the skipped self entries per run, or "" when none were."""
        return self_entries_note(self.self_entries_skipped)


def self_entries_note(skipped: dict[str, int]) -> str:
    """``identical ids excluded: N run entries ranking the query's own document skipped
    (run: n, ...)``, or "" when there are none."""
    total = sum(skipped.values())
    if not total:
        return ""
    per_run = ", ".join(f"{name}: {n:,}" for name, n in sorted(skipped.items()))
    return (
        f"identical ids excluded: {total:,} run entries ranking the query's own document "
        f"skipped ({per_run})"
    )


def qrels_dict(*, qrel_set: QrelSet) -> dict[str, dict[str, int]]:
    """A qrel set as ``{query_id: {doc_id: grade}}`` (the evaluation core's shape)."""
    return metrics.to_ir_measures_qrels(qrels_rows(qrel_set=qrel_set))


def rebench_qrel_set(*, dataset: Dataset, name: str) -> QrelSet:
    """The dataset's qrel set ``name``. Raises :class:`RebenchError` listing known names."""
    try:
        return QrelSet.objects.get(dataset=dataset, name=name)
    except QrelSet.DoesNotExist:
        known = ", ".join(dataset.qrel_sets.order_by("name").values_list("name", flat=True))
        raise RebenchError(
            f"no qrel set {name!r} in {dataset.slug!r} (known: {known or 'none'})"
        ) from None


def rebench_refined_from(*, refined: QrelSet) -> list[QrelSet]:
    """The qrel sets ``refined`` was refined from, nearest first: its refinement's original,
    that set's own original when it was refined too, and so on (empty: not refined)."""
    chain: list[QrelSet] = []
    made_from = getattr(refined, "refinement", None)
    while made_from is not None and all(q.pk != made_from.original_id for q in chain):
        chain.append(made_from.original)
        made_from = getattr(made_from.original, "refinement", None)
    return chain


def rebench_original_check(*, original: QrelSet, refined: QrelSet) -> None:
    """Refuse an original side of a re-benchmark (``rebenchmark --original``, the page's
    "Original qrels") that ``refined`` is no refinement of. The original side is the
    benchmark as it was imported, the qrels a refined set is compared against: an imported
    set is accepted when ``refined`` was refined from it (directly or through refined sets)
    or was not refined at all (two imported sets, when they judge some query in common); a
    refined set only as the set ``refined`` was itself refined from (a pool built on a
    refined set). Scored against other qrels, a refinement of a subset of the judgments
    reads as one that lowers every score. Raises :class:`RebenchError` naming the sets."""
    if original.origin != QrelSet.Origin.REFINED:
        origins = rebench_refined_from(refined=refined)
        if origins and all(q.pk != original.pk for q in origins):
            raise RebenchError(
                f"qrel set {refined.name!r} was refined from {origins[0].name!r}, not from "
                f"{original.name!r}: compare it with {origins[0].name!r}, the qrels it was "
                "refined from"
            )
        if not origins and not _judge_a_query_in_common(original, refined):
            # Two imported splits (test and train): every score on one side would be 0,
            # read as a refinement that lowered them all.
            raise RebenchError(
                f"qrel sets {original.name!r} and {refined.name!r} judge no query in common: "
                "a re-benchmark compares two sets of judgments of the same queries (another "
                "split?)"
            )
        return
    made_from = getattr(refined, "refinement", None)
    if made_from is not None and made_from.original_id == original.pk:
        return
    source = getattr(original, "refinement", None)
    origin = f" from {source.original.name!r}" if source is not None else ""
    imported = original.dataset.qrel_sets.filter(origin=QrelSet.Origin.IMPORTED)
    names = ", ".join(repr(n) for n in imported.order_by("name").values_list("name", flat=True))
    raise RebenchError(
        f"qrel set {original.name!r} is a refined set (refined{origin}): an original qrels "
        f"set is expected (imported: {names or 'none'})"
    )


def _judge_a_query_in_common(a: QrelSet, b: QrelSet) -> bool:
    if a.pk == b.pk:
        return True
    queries = Qrel.objects.filter(qrel_set=a).values("query_id")
    return Qrel.objects.filter(qrel_set=b, query_id__in=queries).exists()


def rebench_runs(*, dataset: Dataset, names: Sequence[str] | None = None) -> list[Run]:
    """The runs to score: ``names`` (in name order), or every finished run of the dataset,
    built-in and imported. Raises :class:`RebenchError` for an unknown or unfinished run, or
    when there is none."""
    done = {r.name: r for r in dataset.runs.filter(status=Run.Status.DONE).order_by("name")}
    if not names:
        if not done:
            raise RebenchError(f"dataset {dataset.slug!r} has no finished run to score")
        return list(done.values())
    missing = sorted(set(names) - set(done))
    if missing:
        raise RebenchError(
            f"no finished run {', '.join(map(repr, missing))} in {dataset.slug!r} "
            f"(finished: {', '.join(done) or 'none'})"
        )
    return [done[n] for n in sorted(set(names))]


def _cache_key(
    original: QrelSet,
    refined: QrelSet,
    runs: Sequence[Run],
    rel_level: int,
    exp_gain: bool,
    exclude_self: bool = False,
) -> str:
    # Ids alone could repeat after a rolled-back transaction (SQLite reuses them); with the
    # creation times they name one content for good.
    parts = [f"{q.pk}@{q.created.isoformat()}" for q in (original, refined)]
    parts.append(f"exclude_identical_ids={exclude_self}")
    parts += sorted(f"{r.pk}@{r.created.isoformat()}" for r in runs)
    parts.append(f"rel={rel_level};exp={int(exp_gain)};v={CACHE_VERSION}")
    return "assess:rebench:" + hashlib.sha256("|".join(parts).encode()).hexdigest()


def rebench_compute(
    *,
    dataset: Dataset,
    original: QrelSet,
    refined: QrelSet,
    runs: Sequence[Run] | None = None,
    use_cache: bool = True,
    rel_level: int = 1,
    exp_gain: bool = False,
) -> RebenchReport:
    """Score ``runs`` (default: every finished run) on ``original`` and ``refined`` with the
    measures of :func:`assess.evaluation.metrics.measures_at` (ir_measures) plus Hole@10
    and the labelled paper nDCG@10 variant; see :func:`assess.evaluation.metrics.rebenchmark`.

    ``rel_level`` is the lowest grade the binary measures (R@k, P@k, Success@k) and Hole@10
    count as relevant (default 1: any grade > 0); ``exp_gain`` adds nDCG@10 with gains
    2^grade - 1. Evaluation queries are those judged in ``original``. When the dataset
    excludes identical ids, run entries ranking a query's own document are skipped first
    (BEIR's ``ignore_identical_ids``), counted per run in ``self_entries_skipped``. When the
    refined set corrects original grades, ``effects`` ranks the runs on the corrections
    only and the filled holes only too (:mod:`assess.evaluation.effects`). Raises
    :class:`RebenchError` when a qrel set or run belongs to another dataset, there is no
    run, or ``rel_level`` is outside 1..127.
    """
    try:
        metrics.check_rel_level(rel_level)
    except ValueError as exc:
        raise RebenchError(str(exc)) from None
    for qrel_set in (original, refined):
        if qrel_set.dataset_id != dataset.pk:
            raise RebenchError(f"qrel set {qrel_set} is not in dataset {dataset.slug!r}")
    runs = list(runs) if runs else rebench_runs(dataset=dataset)
    for run in runs:
        if run.dataset_id != dataset.pk:
            raise RebenchError(f"run {run} is not in dataset {dataset.slug!r}")
    exclude_self = dataset.exclude_identical_ids
    key = _cache_key(original, refined, runs, rel_level, exp_gain, exclude_self)
    if use_cache:
        cached = cache.get(key)
        if cached is not None:
            return cached
    original_qrels = qrels_dict(qrel_set=original)
    refined_qrels = qrels_dict(qrel_set=refined)
    rows, skipped = {}, {}
    for run in runs:
        rows[run.name], skipped[run.name] = skip_identical(run_rows(run=run), enabled=exclude_self)
    result = metrics.rebenchmark(
        original_qrels, refined_qrels, rows, rel_level=rel_level, exp_gain=exp_gain
    )
    effects = None
    if qrels_split(original_qrels, refined_qrels).corrections:  # else: the holes' effect alone
        effects = effects_compute(original_qrels, refined_qrels, rows)
    report = RebenchReport(
        dataset=dataset.slug,
        original=original.name,
        refined=refined.name,
        runs=sorted(run.name for run in runs),
        result=result,
        holes_per_query=metrics.holes_per_query(original_qrels, refined_qrels, rel_level=rel_level),
        self_entries_skipped=skipped if exclude_self else {},
        effects=effects,
    )
    if use_cache:
        cache.set(key, report, CACHE_SECONDS)
    return report
