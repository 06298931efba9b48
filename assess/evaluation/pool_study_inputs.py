"""What a pool study replays, read from the database: a dataset's runs as rankings and a
qrel set as qrels (:func:`assess.evaluation.pool_study.pool_replay` is the pure part)."""

from __future__ import annotations

from collections.abc import Sequence

from corpora.identical import skip_identical
from corpora.models import Dataset
from corpora.services import run_rows

from .rebench import RebenchError, qrels_dict, rebench_qrel_set, rebench_runs


def pool_study_inputs(
    *, dataset: Dataset, qrels: str, runs: Sequence[str] | None, depth: int
) -> tuple[dict[str, dict[str, list[str]]], dict[str, dict[str, int]]]:
    """``(rankings, qrels)``: each run's top ``max(depth, 10)`` documents per query (run
    name → query id → doc ids in rank order; a query's own document left out when the
    dataset excludes identical ids) and qrel set ``qrels`` as ``{query: {doc: grade}}``.
    ``runs`` names the runs (default: every finished run). Raises :class:`RebenchError` for
    an unknown qrel set or run, a run named twice, or a dataset without a finished run
    (saying how to make one).
    """
    if twice := sorted({n for n in runs or () if list(runs or ()).count(n) > 1}):
        # One run twice would silently become one system of the leaderboards.
        raise RebenchError(f"run {twice[0]!r} is named twice; name each run once")
    qrel_set = rebench_qrel_set(dataset=dataset, name=qrels)
    try:
        chosen = rebench_runs(dataset=dataset, names=runs or None)
    except RebenchError as exc:
        if "no finished run" not in str(exc):
            raise
        raise RebenchError(
            f"{exc}; build runs with `retrieve`, `study_systems` or `import_run` first"
        ) from None
    keep = max(depth, 10)
    rankings: dict[str, dict[str, list[str]]] = {}
    for run in chosen:
        rows, _ = skip_identical(run_rows(run=run), enabled=dataset.exclude_identical_ids)
        per_query: dict[str, list[str]] = {}
        for query, doc, _rank, _score in rows:
            docs = per_query.setdefault(query, [])
            if len(docs) < keep:
                docs.append(doc)
        rankings[run.name] = per_query
    return rankings, qrels_dict(qrel_set=qrel_set)
