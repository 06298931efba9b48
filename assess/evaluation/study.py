"""The simulated study from the database's side: read the truth file, check its ids against
the dataset, load (or make) the runs, and hand everything to the pure
:func:`assess.evaluation.simulation.study_run`. Nothing is written but the runs it makes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from corpora.formats import FormatError, is_qrels_header, parse_beir_qrels, parse_trec_qrels
from corpora.models import Dataset, Document, Query, Run
from corpora.services import run_create, run_retrieve, run_rows

from . import metrics
from .simulation import StudyDesign, StudyResult, study_run

BUILT_IN = ("bm25", "dense")


class StudyError(ValueError):
    """A study that cannot run; the message names the file and line or the run."""


def truth_qrels_read(*, dataset: Dataset, path: str | Path) -> dict[str, dict[str, int]]:
    """A TREC (``qid iter docid rel``) or BEIR (``query-id corpus-id score``, header optional)
    qrels file as ``{query_id: {doc_id: grade}}``, the format told by the first data line's
    field count. Raises StudyError naming the file and line of a malformed row, of a query or
    document id the dataset does not have, or of a pair given twice."""
    path = Path(path)
    try:
        with path.open(encoding="utf-8") as handle:
            first = next((line.split() for line in handle if line.strip()), [])
    except OSError as exc:
        raise StudyError(f"{path}: cannot read the truth file ({exc.strerror})") from None
    beir = len(first) == 3 or is_qrels_header(first)
    try:
        records = list((parse_beir_qrels if beir else parse_trec_qrels)(path))
    except FormatError as exc:
        raise StudyError(str(exc)) from None
    queries = set(Query.objects.filter(dataset=dataset).values_list("query_id", flat=True))
    docs = set(
        Document.objects.filter(
            dataset=dataset, doc_id__in={r.doc_id for r in records}
        ).values_list("doc_id", flat=True)
    )
    truth: dict[str, dict[str, int]] = {}
    for record in records:
        where = f"{path}:{record.line}"
        if record.query_id not in queries:
            raise StudyError(f"{where}: query {record.query_id!r} is not in {dataset.slug}")
        if record.doc_id not in docs:
            raise StudyError(f"{where}: document {record.doc_id!r} is not in {dataset.slug}")
        judged = truth.setdefault(record.query_id, {})
        if record.doc_id in judged:
            raise StudyError(
                f"{where}: query {record.query_id!r} document {record.doc_id!r} given twice"
            )
        judged[record.doc_id] = record.relevance
    return truth


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
    out: dict[str, dict[str, list[str]]] = {}
    for name in names:
        run = Run.objects.filter(dataset=dataset, name=name).first()
        if run is None and name in BUILT_IN:
            echo(f"making run {name} with the built-in retriever (top 100 per query)")
            run = run_retrieve(run=run_create(dataset=dataset, retriever=name, queries=queries))
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
    try:
        return study_run(truth=truth, runs=ranked, design=design)
    except ValueError as exc:
        raise StudyError(str(exc)) from None
