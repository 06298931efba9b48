"""The simulated study from the database's side: read the truth file, check its ids against
the dataset, load (or make) the runs, and hand everything to the pure
:func:`assess.evaluation.simulation.study_run`. Nothing is written but the runs it makes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from corpora.models import Dataset, Run
from corpora.services import run_create, run_retrieve, run_rows
from debates.simulated_client import truth_file_load

from . import metrics
from .simulation import StudyDesign, StudyResult, study_run

BUILT_IN = ("bm25", "dense")


class StudyError(ValueError):
    """A study that cannot run; the message names the file and line or the run."""


def truth_qrels_read(*, dataset: Dataset, path: str | Path) -> dict[str, dict[str, int]]:
    """A TREC (``qid iter docid rel``) or BEIR (``query-id corpus-id score``, header optional)
    qrels file as ``{query_id: {doc_id: grade}}``, read and checked by the simulated backend's
    :func:`debates.simulated_client.truth_file_load`. Raises StudyError naming the file and
    line of a malformed row, of a query or document id the dataset does not have, or of a
    pair given twice."""
    try:
        return truth_file_load(path=path, dataset=dataset.slug)
    except ValueError as exc:
        raise StudyError(str(exc)) from None


def study_builtin_runs_make(
    *,
    dataset: Dataset,
    names: Sequence[str],
    queries: str = "test",
    echo: Callable[[str], None] = lambda _: None,
) -> None:
    """Make each of ``names`` that names a built-in retriever (``bm25``, ``dense``) and is no
    run of the dataset yet, with that retriever (top 100 of each query of the qrel set
    ``queries``), saying so through ``echo``; other names are left to the caller to find.
    A study on a fresh import thus needs no ``retrieve`` first."""
    for name in names:
        if name in BUILT_IN and not Run.objects.filter(dataset=dataset, name=name).exists():
            echo(f"making run {name} with the built-in retriever (top 100 per query)")
            run_retrieve(run=run_create(dataset=dataset, retriever=name, queries=queries))


def study_runs_load(
    *,
    dataset: Dataset,
    names: Sequence[str],
    queries: str = "test",
    echo: Callable[[str], None] = lambda _: None,
) -> dict[str, dict[str, list[str]]]:
    """``{run name: {query_id: [doc_id in rank order]}}`` for each named run of the dataset.
    A finished run is used as it is; a missing ``bm25`` or ``dense`` is made with the
    built-in retriever (top 100 of the ``queries`` split) first. Raises StudyError for
    another missing or unfinished run."""
    study_builtin_runs_make(dataset=dataset, names=names, queries=queries, echo=echo)
    out: dict[str, dict[str, list[str]]] = {}
    for name in names:
        run = Run.objects.filter(dataset=dataset, name=name).first()
        if run is None or run.status != Run.Status.DONE:
            known = ", ".join(
                Run.objects.filter(dataset=dataset, status=Run.Status.DONE).values_list(
                    "name", flat=True
                )
            )
            state = "does not exist" if run is None else f"is {run.status}"
            raise StudyError(f"run {name!r} {state} (finished runs: {known or 'none'})")
        out[name] = metrics.rank_run(run_rows(run=run))
    return out


def study_simulate(
    *,
    dataset: Dataset,
    truth_path: str | Path,
    runs: Sequence[str],
    design: StudyDesign,
    echo: Callable[[str], None] = lambda _: None,
) -> StudyResult:
    """Run the simulated study (:func:`assess.evaluation.simulation.study_run`) on the
    dataset's runs with the truth file's labels. Raises StudyError as the two readers do."""
    if not runs:
        raise StudyError("--runs: name at least one run (e.g. bm25,dense)")
    truth = truth_qrels_read(dataset=dataset, path=truth_path)
    ranked = study_runs_load(dataset=dataset, names=runs, echo=echo)
    _runs_cover_check(dataset=dataset, truth=truth, ranked=ranked)
    try:
        return study_run(truth=truth, runs=ranked, design=design)
    except ValueError as exc:
        raise StudyError(str(exc)) from None


def _runs_cover_check(
    *,
    dataset: Dataset,
    truth: Mapping[str, Mapping[str, int]],
    ranked: Mapping[str, Mapping[str, Sequence[str]]],
) -> None:
    """Refuse a run that ranks nothing for more than a tenth of the truth's queries (made
    over another split, e.g. the test queries against a train + test truth): those queries
    would score 0 for it whatever the labels, and the study would measure that, not the
    intervals. A few queries a run leaves out (as a TREC run may) pass."""
    queries = [q for q, judged in truth.items() if judged]
    for name, run in ranked.items():
        missing = sum(1 for q in queries if not run.get(q))
        if missing * 10 > len(queries):
            raise StudyError(
                f"run {name!r} ranks no document for {missing:,} of the truth file's "
                f"{len(queries):,} queries (made over another split?): make a run over them, "
                f"e.g. `retrieve {dataset.slug} --retriever bm25 --queries all --name "
                f"{name}-all`, and name it in --runs"
            )
