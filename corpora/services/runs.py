"""Runs: create, execute (built-in BM25 and dense retrievers), import, export, evaluate.

A built-in run is created pending and filled by :func:`run_retrieve`, on a Celery worker
(:func:`run_enqueue`, :mod:`corpora.tasks`) or in process; its execution holds a PostgreSQL
advisory lock (:func:`_run_claim`), so it runs at most once at a time, and a run whose
execution died is found and marked failed (:func:`run_fail_stale`). Imported TREC runs and
exports keep the project's rank order (:mod:`corpora.runs`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import numpy as np
from django.db import DatabaseError, connection, transaction
from django.db.models import F

from core.broker import background_after_commit, task_named
from core.fixes import FixableError, OptionFix
from core.names import NameRefused, name_problem, text_clean
from core.text import plural

from .. import retrieval
from .. import runs as run_files
from ..file_problems import FileProblems, Problem, duplicate_entries, unknown_entries
from ..formats import FormatError
from ..identical import skip_identical
from ..models import Dataset, DocumentEmbedding, ImportRecord, QrelSet, Query, Run, RunEntry
from ..ordering import code_point
from .datasets import BATCH_SIZE, copy_rows, progress_bar, qrel_set_get, qrels_rows
from .embeddings import (
    embeddings_ensure,
    embeddings_seed_bundled,
    embeddings_windows_ensure,
    run_documents,
    truncated_document_count,
)
from .file_ids import (
    UNKNOWN_IDS_FIX,
    check_unknown_ids,
    id_maps,
    unknown_id_rows,
    unknown_ids_problem,
)
from .run_settings import run_settings

RETRIEVERS = ("bm25", "dense")
#: The registered name of :func:`corpora.tasks.retrieve_task` (execute one built-in run).
RETRIEVE_TASK = "corpora.tasks.retrieve_task"
QUERIES_ALL = "all"


#: The option that names an imported run itself (its file's tag cannot).
NAME_FIX = OptionFix("name", None, "")


class RunError(FixableError):
    """A run action that is refused (name taken, unknown qrel set, run still in use...);
    ``fix`` the option that would get past it, when there is one (:mod:`core.fixes`)."""


class RunBusy(RunError):
    """The run is being executed right now by another worker or process."""


# The PostgreSQL advisory lock held while a run executes has the key
# (_RUN_LOCK_CLASS << 32) | run id; the class is "RUN" in ASCII, so it names runs only.
_RUN_LOCK_CLASS = 0x52554E
# How long a new execution waits for the lock before reporting the run busy: long enough to
# outlast run_fail_stale's momentary check, far shorter than any real execution.
RUN_CLAIM_WAIT_SECONDS = 2.0
RUN_WORKER_LOST = (
    "worker lost: the task or command executing this run stopped without finishing "
    "(killed, out of memory, past its hard time limit, or interrupted); retrieve it again "
    "to resume (stored document vectors are kept)"
)


@contextmanager
def _run_claim(run_id: int, *, wait: float = 0.0) -> Iterator[bool]:
    """Hold the execution lock of run ``run_id`` for the block; yield whether it was free
    (retrying for up to ``wait`` seconds).

    On PostgreSQL this is a session-level advisory lock. It is released when the block ends
    and, as it belongs to the database connection, also when the process holding it dies
    (hard time limit, killed worker, Ctrl-C), with no expiry to wait for: it is the lease of
    debates.services, kept by the database instead of a timestamp. So a run whose status is
    ``running`` but whose lock is free has no live execution (:func:`run_fail_stale`), and a
    second execution of a run being executed is refused (:class:`RunBusy`). Other databases
    (SQLite: one process, tasks in-process) cannot tell, and always yield True.
    """
    if connection.vendor != "postgresql":
        yield True
        return
    key = (_RUN_LOCK_CLASS << 32) | (run_id & 0xFFFFFFFF)
    deadline = time.monotonic() + wait
    while True:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s::bigint)", [key])
            claimed = bool(cursor.fetchone()[0])
        if claimed or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    try:
        yield claimed
    finally:
        if claimed:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s::bigint)", [key])
            except DatabaseError:
                # Inside a transaction the block's own error aborted, the unlock cannot run;
                # closing the session frees the lock (and the block's error is the one raised).
                connection.close()


def _error_text(exc: BaseException) -> str:
    message = str(exc)
    return f"{type(exc).__name__}: {message}"[:2000] if message else type(exc).__name__


def run_name_check(name: str) -> str:
    """``name`` if it can name a run (:mod:`core.names`; also its rows' TREC tag), else
    RunError saying why."""
    if problem := name_problem(name or "", field="run name"):
        raise RunError(problem)
    return name


def _judged_queries(qrel_set: QrelSet):
    return Query.objects.filter(pk__in=qrel_set.qrels.values("query_id"))


def run_queries(*, dataset: Dataset, queries: str | None) -> list[tuple[int, str, str]]:
    """The queries a run covers as ``(pk, query_id, text)``, sorted by query id (code point).

    ``queries`` is the name of a qrel set (its judged queries: ``"test"`` means the queries
    judged in qrel set ``test``) or ``"all"``/None for every query of the dataset.
    Raises :class:`RunError` for an unknown qrel set.
    """
    qs = Query.objects.filter(dataset=dataset)
    if queries is not None and queries != QUERIES_ALL:
        try:
            qrel_set = qrel_set_get(dataset=dataset, name=queries)
        except QrelSet.DoesNotExist:
            names = ", ".join(dataset.qrel_sets.values_list("name", flat=True)) or "none"
            raise RunError(
                f"no qrel set {queries!r} in {dataset.slug!r} to take queries from "
                f"(known: {names}; or 'all')"
            ) from None
        qs = qs.filter(pk__in=qrel_set.qrels.values("query_id"))
    rows = list(qs.values_list("pk", "query_id", "text"))
    rows.sort(key=lambda r: r[1])
    return rows


def run_create(
    *,
    dataset: Dataset,
    retriever: str,
    k: int = 100,
    queries: str | None = "test",
    name: str | None = None,
    replace: bool = False,
    backend: str | None = None,
    windows: bool = False,
    k1: float | None = None,
    b: float | None = None,
) -> Run:
    """Create a pending built-in Run (no entries yet); :func:`run_retrieve` fills it.

    ``retriever`` is ``"bm25"`` or ``"dense"``; ``k`` the documents kept per query;
    ``queries`` a qrel set name or ``"all"`` (see :func:`run_queries`); ``name`` defaults to
    the retriever. ``backend`` (BM25 only) is ``"rank_bm25"`` or ``"bm25s"`` (default:
    bm25s), ``k1`` in [0, 10] and ``b`` in [0, 1] (BM25 only; default 0.9 and 0.4, BEIR's);
    all are recorded in the run's ``parameters`` and ``system``
    (:func:`corpora.services.run_settings.run_settings`). ``windows`` (dense only) encodes
    each document as overlapping windows the model reads whole and scores it by its best
    window (MaxP; :data:`corpora.services.run_settings.DENSE_WINDOWS`); off by default.
    When the dataset excludes identical ids, the run records ``exclude_identical_ids`` and
    never returns a query's own document (k + 1 asked, the query's id dropped, k kept).

    An existing run of that name that is not done (pending, failed, or running after its
    task died) and has exactly these settings is returned as it is, so asking for the same run
    again resumes it (:func:`run_retrieve` reuses the document vectors already stored). Any
    other existing run of that name is refused unless ``replace``; a run that a pool uses as
    provenance, or one being executed right now (:class:`RunBusy`), is never replaced.
    Raises :class:`RunError`.
    """
    if retriever not in RETRIEVERS:
        raise RunError(f"unknown retriever {retriever!r} (expected {' or '.join(RETRIEVERS)})")
    if k < 1:
        raise RunError(f"k must be at least 1, got {k}")
    name = run_name_check(name or retriever)
    if windows and retriever != "dense":
        raise RunError("--windows applies to dense only")
    try:
        system, parameters = run_settings(retriever, backend=backend, windows=windows, k1=k1, b=b)
    except ValueError as exc:
        raise RunError(str(exc)) from None
    parameters.update({"k": k, "queries": queries or QUERIES_ALL})
    if dataset.exclude_identical_ids:
        parameters["exclude_identical_ids"] = True
    with transaction.atomic():
        run_queries(dataset=dataset, queries=queries)  # refuses an unknown qrel set early
        existing = Run.objects.select_for_update().filter(dataset=dataset, name=name).first()
        if existing is not None:
            resumed = run_existing_settle(
                existing=existing,
                name=name,
                dataset=dataset,
                parameters=parameters,
                replace=replace,
            )
            if resumed is not None:
                return resumed
        return Run.objects.create(
            dataset=dataset,
            name=name,
            system=system,
            parameters=parameters,
            source=Run.Source.BUILTIN,
            status=Run.Status.PENDING,
        )


def run_existing_settle(
    *, existing: Run, name: str, dataset: Dataset, parameters: dict, replace: bool
) -> Run | None:
    """What :func:`run_create` (and :func:`corpora.services.fusion.run_fuse`) does with the
    run of the same name, locked in the caller's transaction: return it to resume (not done,
    built-in, the same ``parameters``, and ``replace`` not given), or delete it for
    ``replace`` and return None. Raises :class:`RunError` when it exists and ``replace`` is
    not given, or a pool uses it as provenance; :class:`RunBusy` when it is being executed
    right now."""
    resumable = (
        existing.status != Run.Status.DONE
        and existing.source == Run.Source.BUILTIN
        and existing.parameters == parameters
    )
    if resumable and not replace:
        if existing.status == Run.Status.RUNNING:
            with _run_claim(existing.pk) as free:
                if not free:
                    raise RunBusy(
                        f"run {name!r} is being executed right now; wait for it to "
                        "finish (its status shows on the dataset page)"
                    )
        return existing
    if not replace:
        raise RunError(
            f"run {name!r} already exists in {dataset.slug!r} (status {existing.status}); "
            "give another name to keep both",
            # Only the command line can replace a run (the pages and the API keep it).
            OptionFix("replace", True, "to rebuild it"),
        )
    pools = list(existing.pools.values_list("name", flat=True))
    if pools or existing.pair_sources.exists():
        raise RunError(
            f"run {name!r} is pooled in {', '.join(pools) or 'a pool'}: its ranks are "
            "that pool's provenance, so it cannot be replaced; use another --name"
        )
    with _run_claim(existing.pk) as free:
        if not free:
            raise RunBusy(
                f"run {name!r} is being executed right now, so it cannot be replaced; "
                "wait for it to finish or use another --name"
            )
        existing.delete()
    return None


def run_enqueue(*, run: Run) -> None:
    """Queue :func:`corpora.tasks.retrieve_task` for ``run`` once the transaction commits."""
    run_id = run.pk
    transaction.on_commit(lambda: task_named(RETRIEVE_TASK).delay(run_id))


def run_start_background(*, run: Run) -> None:
    """Execute a built-in ``run`` in the background once the transaction commits: on the
    workers with a broker, else in a thread of this process, so a page or an API request
    answers at once (:func:`core.broker.background_after_commit`); its status tells the rest."""
    background_after_commit(task_named(RETRIEVE_TASK), run.pk, name=f"retrieve-{run.pk}")


def run_retrieve(*, run: Run, progress: bool = False, cache_dir: Path | None = None) -> Run:
    """Execute a built-in run: rank the run's queries and store its top k entries.

    Idempotent and resumable. A run already ``done`` is returned as it is. Otherwise the
    execution holds the run's lock (:func:`_run_claim`) from start to end, so a second
    delivery of the task, or a second command, raises :class:`RunBusy` instead of computing
    the run twice. Status goes pending (or failed, or running with no live execution: its
    task died) → running → done (entries written in one transaction), or failed with
    ``error`` = the exception's type and message, re-raised (also for KeyboardInterrupt and
    Celery's SoftTimeLimitExceeded). Document vectors are committed as they are encoded
    (:func:`embeddings_ensure`), so running a failed or interrupted dense run again encodes
    only the documents that have none yet. ``seconds`` adds up the wall time of every
    execution. ``cache_dir`` is passed to :func:`embeddings_ensure` for dense runs.
    Raises :class:`RunError` for an imported run, :class:`RunBusy`, ``Run.DoesNotExist`` for
    a run deleted meanwhile.
    """
    run = Run.objects.select_related("dataset").get(pk=run.pk)
    if run.status == Run.Status.DONE:
        return run
    if run.source != Run.Source.BUILTIN:
        raise RunError(f"run {run.name!r} was imported; there is nothing to retrieve")
    with _run_claim(run.pk, wait=RUN_CLAIM_WAIT_SECONDS) as claimed:
        if not claimed:
            raise RunBusy(
                f"run {run.name!r} is being executed by another worker or process; wait for "
                "it to finish (its status shows on the dataset page)"
            )
        # Read again under the lock: another execution may have finished (or the run been
        # deleted) while this one waited.
        run = Run.objects.select_related("dataset").get(pk=run.pk)
        if run.status == Run.Status.DONE:
            return run
        return _run_execute(run, progress=progress, cache_dir=cache_dir)


def _document_vectors(
    run: Run, documents: list[tuple[int, str, str]], *, progress: bool, cache_dir: Path | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """A dense run's document vectors and, with windows, each document's first window
    (:func:`retrieval.cosine_search`'s ``window_starts``; None without windows)."""
    params = run.parameters
    windows = params.get("windows")
    if windows:
        return embeddings_windows_ensure(
            dataset=run.dataset,
            documents=documents,
            model_name=params["model"],
            max_length=windows["max_length"],
            stride=windows["stride"],
            progress=progress,
            cache_dir=cache_dir,
        )
    # The bundled corpus's vectors, when this dataset is it: no encoding.
    embeddings_seed_bundled(dataset=run.dataset, model_name=params["model"])
    vectors = embeddings_ensure(
        dataset=run.dataset,
        documents=documents,
        model_name=params["model"],
        progress=progress,
        cache_dir=cache_dir,
    )
    return vectors, None


def _run_execute(run: Run, *, progress: bool, cache_dir: Path | None) -> Run:
    """The body of :func:`run_retrieve`, called with the run's lock held."""
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, error="")
    started = time.monotonic()
    params = run.parameters
    try:
        queries = run_queries(dataset=run.dataset, queries=params.get("queries"))
        documents = run_documents(run.dataset)
        doc_ids = [d[1] for d in documents]
        bar = progress_bar(progress, desc=run.name, unit=" queries")
        # One more document per query, so that k remain once the query's own is dropped.
        exclude_self = bool(params.get("exclude_identical_ids"))
        depth = params["k"] + 1 if exclude_self else params["k"]
        if params["retriever"] == "bm25":
            tokens = [retrieval.tokenize(d[2]) for d in documents]
            index = retrieval.bm25_index(
                tokens, backend=params["backend"], k1=params["k1"], b=params["b"]
            )
            rankings = retrieval.bm25_search(
                index, [q[2] for q in queries], doc_ids=doc_ids, k=depth, progress=bar
            )
        else:
            truncated = truncated_document_count(documents)
            Run.objects.filter(pk=run.pk).update(truncated_documents=truncated)
            doc_vectors, starts = _document_vectors(
                run, documents, progress=progress, cache_dir=cache_dir
            )
            model = retrieval.load_encoder()
            query_vectors = retrieval.encode(model, [q[2] for q in queries])
            rankings = retrieval.cosine_search(
                query_vectors, doc_vectors, doc_ids=doc_ids, k=depth, window_starts=starts
            )
        if exclude_self:
            rankings = retrieval.drop_query_ids(
                rankings, [q[1] for q in queries], doc_ids=doc_ids, k=params["k"]
            )
        with transaction.atomic():
            locked = Run.objects.select_for_update().get(pk=run.pk)
            if locked.status == Run.Status.DONE:  # SQLite has no run lock: another finished
                return locked
            RunEntry.objects.filter(run=locked).delete()
            copy_rows(
                "corpora_runentry",
                ["run_id", "query_id", "document_id", "rank", "score"],
                (
                    (locked.pk, query[0], documents[index][0], rank, score)
                    for query, ranking in zip(queries, rankings, strict=True)
                    for rank, (index, score) in enumerate(ranking, start=1)
                ),
            )
            locked.status = Run.Status.DONE
            locked.seconds += time.monotonic() - started
            locked.save(update_fields=["status", "seconds"])
    except BaseException as exc:
        # BaseException: an interrupted command (KeyboardInterrupt) or a task stopped at its
        # soft time limit must not leave the run "running" with nobody executing it.
        Run.objects.filter(pk=run.pk).update(
            status=Run.Status.FAILED,
            error=_error_text(exc),
            seconds=F("seconds") + (time.monotonic() - started),
        )
        raise
    return locked


def run_vectors_stored(*, run: Run) -> int:
    """How many documents of the run's dataset have a stored vector of the run's dense model
    (0 for a run without one, e.g. BM25): the progress a dense run keeps across executions."""
    model_name = (run.parameters or {}).get("model")
    if not model_name:
        return 0
    windows = run.windows
    windowing = f"{windows['max_length']}/{windows['stride']}" if windows else ""
    # window 0: a document's windows are stored together, so this counts documents.
    return DocumentEmbedding.objects.filter(
        dataset_id=run.dataset_id, model_name=model_name, windowing=windowing, window=0
    ).count()


def run_suspend(*, run: Run, vectors_before: int, seconds: float) -> bool:
    """Decide what happens to ``run`` after its task reached its soft time limit of
    ``seconds`` (:func:`run_retrieve` has marked it failed).

    If this task stored document vectors beyond ``vectors_before`` (see
    :func:`run_vectors_stored`), the run goes back to pending and True is returned: the caller
    queues it again and the next task goes on from the stored vectors, so a corpus of any
    size is encoded over several time slices. Otherwise another slice would not get further:
    the run stays failed with that reason, and False is returned.
    """
    if run_vectors_stored(run=run) > vectors_before:
        Run.objects.filter(pk=run.pk, status=Run.Status.FAILED).update(
            status=Run.Status.PENDING, error=""
        )
        return True
    Run.objects.filter(pk=run.pk, status=Run.Status.FAILED).update(
        error=(
            f"stopped at the task's time limit ({seconds:.0f} s) without storing a new document "
            "vector, so another task would not get further; raise DREAM_RETRIEVE_TIME_LIMIT "
            "(below CELERY_VISIBILITY_TIMEOUT) or run `retrieve` without --background"
        )
    )
    return False


def run_fail_stale(*, runs: Iterable[Run] | None = None) -> int:
    """Mark ``failed`` every running built-in run (among ``runs``, default all) that no live
    execution holds (see :func:`_run_claim`): its task or command died (hard time limit,
    killed worker, Ctrl-C), and the error says so (:data:`RUN_WORKER_LOST`). Such a run is
    resumed by retrieving it again (the task, or ``retrieve`` with the same settings).
    Returns how many were marked. Run periodically (Celery beat,
    :func:`corpora.tasks.fail_stale_runs`) and before a pool is built from runs; on
    databases without advisory locks (SQLite) nothing can be told apart and it returns 0.
    """
    if connection.vendor != "postgresql":
        return 0
    running = Run.objects.filter(status=Run.Status.RUNNING, source=Run.Source.BUILTIN)
    if runs is not None:
        running = running.filter(pk__in=[r.pk for r in runs])
    marked = 0
    for pk in running.values_list("pk", flat=True):
        with _run_claim(pk) as free:
            if free:
                marked += Run.objects.filter(pk=pk, status=Run.Status.RUNNING).update(
                    status=Run.Status.FAILED, error=RUN_WORKER_LOST
                )
    return marked


def run_get(*, dataset: Dataset, name: str) -> Run:
    """The dataset's Run of this name. Raises ``Run.DoesNotExist``."""
    return Run.objects.get(dataset=dataset, name=name)


def run_import(
    *,
    dataset: Dataset,
    path: str | Path,
    name: str | None = None,
    system: str = "",
    unknown_ids: str = "reject",
) -> Run:
    """Import a TREC run file (``qid Q0 docid rank score tag``) as a new Run.

    Ranks are recomputed in the project's rank order (score descending, doc id ascending), as
    trec_eval reads a run; raw scores are stored as they are. ``name`` defaults to the file's
    tag. One transaction; rejects, changing nothing, with file and line: a malformed line, a
    non-numeric score, a document listed twice for a query, unknown query or document ids
    (all of these found in one reading and refused once, :mod:`corpora.file_problems`),
    then several tags without ``name``, a name already taken. With
    ``unknown_ids="drop"`` the rows naming unknown ids are skipped instead, counted in the
    run's ``parameters["unknown_ids_dropped"]`` and listed (``file:line: unknown ... id``) in
    the ImportRecord's ``summary["unknown_ids_dropped_rows"]``.
    Raises :class:`FormatError`.
    """
    started = time.monotonic()
    path = Path(path)
    check_unknown_ids(unknown_ids, path)
    try:
        system = text_clean(system, field="system", max_length=500)
    except NameRefused as exc:
        raise FormatError(path, None, str(exc)) from None
    with transaction.atomic():
        records, tags, query_pk, doc_pk, unknown = _run_file_read(dataset, path, unknown_ids)
        name = _run_import_name(name, tags, records, path)
        if Run.objects.filter(dataset=dataset, name=name).exists():
            raise FormatError(path, None, f"run {name!r} already exists in {dataset.slug!r}")
        rows, queries, reordered = _run_import_rows(records, query_pk, doc_pk)
        run = Run.objects.create(
            dataset=dataset,
            name=name,
            system=system or f"imported from {path.name}",
            parameters={"file": str(path), "tags": tags, "unknown_ids_dropped": len(unknown)},
            source=Run.Source.IMPORTED,
            status=Run.Status.DONE,
        )
        copy_rows(
            "corpora_runentry",
            ["run_id", "query_id", "document_id", "rank", "score"],
            ((run.pk, *row) for row in rows),
        )
        run.seconds = time.monotonic() - started
        run.save(update_fields=["seconds"])
        ImportRecord.objects.create(
            dataset=dataset,
            kind=ImportRecord.Kind.RUN,
            path=str(path),
            summary={
                "run": name,
                "queries": queries,
                "entries": len(rows),
                "queries_reordered_by_score": reordered,
                "unknown_ids_dropped": len(unknown),
                "unknown_ids_dropped_rows": unknown,
            },
            seconds=run.seconds,
        )
    return run


def _run_import_name(
    name: str | None, tags: list[str], records: list[run_files.RunRecord], path: Path
) -> str:
    """The imported run's name: ``name``, else the file's one tag. Raises
    :class:`FormatError` for several tags without ``name`` or a name a run cannot have."""
    if name is None:
        if len(tags) > 1:
            line = next(r.line for r in records if r.tag != tags[0])
            raise FormatError(
                path, line, f"the file has {len(tags)} tags ({', '.join(tags[:5])})", fix=NAME_FIX
            )
        name = tags[0]
    try:
        run_name_check(name)
    except RunError as exc:
        raise FormatError(path, None, str(exc), fix=NAME_FIX) from None
    return name


def _run_import_rows(
    records: list[run_files.RunRecord], query_pk: dict[str, int], doc_pk: dict[str, int]
) -> tuple[list[tuple[int, int, int, float]], int, int]:
    """The run entries ``(query pk, doc pk, rank, score)`` of ``records`` (all ids known),
    by query id, ranks recomputed in the project's rank order (score descending, doc id
    ascending). Returns (rows, queries, queries whose file ranks differ from that order)."""
    by_query: dict[str, list[run_files.RunRecord]] = {}
    for record in records:
        by_query.setdefault(record.query_id, []).append(record)
    rows: list[tuple[int, int, int, float]] = []
    reordered = 0
    for query_id in sorted(by_query):
        group = by_query[query_id]
        ranked = run_files.rank_order((r.doc_id, r.score) for r in group)
        if [d for d, _, _ in ranked] != [r.doc_id for r in sorted(group, key=lambda r: r.rank)]:
            reordered += 1
        rows.extend((query_pk[query_id], doc_pk[d], rank, score) for d, rank, score in ranked)
    return rows, len(by_query), reordered


def _run_file_read(
    dataset: Dataset, path: Path, unknown_ids: str
) -> tuple[list[run_files.RunRecord], list[str], dict[str, int], dict[str, int], list[str]]:
    """Read the run file ``path`` whole and check it: bad lines, a document twice for a
    query, and (with ``unknown_ids="reject"``) unknown query or document ids, refused at once
    (:class:`corpora.file_problems.FileProblems`). Returns ``(records kept, the file's tags
    in order, query_pk, doc_pk, rows dropped for unknown ids as path:line: unknown ... id)``."""
    records, bad_lines = run_files.read_trec_run(path)
    tags = list(dict.fromkeys(r.tag for r in records))
    problems = FileProblems(path)
    problems.add_bad_lines(bad_lines)
    if lines := run_files.duplicate_lines(records):
        problems.add(
            Problem(
                error=run_files.duplicates_error(lines, path),
                entries=duplicate_entries(lines),
                count=len(lines),
                counted=plural(len(lines), "document listed twice", "documents listed twice"),
            )
        )
    query_pk, doc_pk = id_maps(dataset, records)
    unknown = unknown_id_rows(records, query_pk, doc_pk, path)
    if unknown and unknown_ids == "drop":
        records = [r for r in records if r.query_id in query_pk and r.doc_id in doc_pk]
    elif unknown:
        problems.add(_unknown_run_ids(dataset, records, query_pk, doc_pk, path))
        unknown = []
    problems.raise_if_any()
    return records, tags, query_pk, doc_pk, unknown


def _unknown_run_ids(
    dataset: Dataset,
    records: list[run_files.RunRecord],
    query_pk: dict[str, int],
    doc_pk: dict[str, int],
    path: Path,
) -> Problem:
    """The rows of a run naming ids absent from ``dataset``, as one kind of its problems;
    alone, refused as ``run names Q unknown query id(s) and D unknown document id(s)``,
    a ``line L: unknown ... id`` for each row."""
    entries = unknown_entries(records, query_pk, doc_pk)
    missing_q = len({r.query_id for r in records if r.query_id not in query_pk})
    missing_d = len({r.doc_id for r in records if r.doc_id not in doc_pk})
    error = FormatError(
        path,
        entries[0][0],
        f"run names {missing_q} unknown query id(s) and {missing_d} unknown document "
        f"id(s) in dataset {dataset.slug!r}",
        [f"line {line}: {text}" for line, text in entries],
        fix=UNKNOWN_IDS_FIX,
    )
    return unknown_ids_problem(error, entries)


def run_rows(*, run: Run) -> Iterator[tuple[str, str, int, float]]:
    """Yield ``(query_id, doc_id, rank, score)`` by query id (code point), then rank, with
    the raw stored scores, streaming from the database."""
    qs = (
        RunEntry.objects.filter(run=run)
        .order_by(code_point("query__query_id"), "rank")
        .values_list("query__query_id", "document__doc_id", "rank", "score")
    )
    yield from qs.iterator(chunk_size=BATCH_SIZE)


def run_export(*, run: Run, out: IO[str]) -> int:
    """Write ``run`` as a TREC run file (tag = run name) with strictly decreasing scores per
    query (see :func:`corpora.runs.strictly_decreasing`); return lines written.

    The scores are checked first (a second streaming pass over the run), so a run that cannot
    be written, e.g. a score beyond the 32-bit float range stored before imports refused
    those, raises :class:`RunError` naming the query before anything is written to ``out``.
    """
    try:
        run_files.check_trec_run(run_rows(run=run))
    except ValueError as exc:
        raise RunError(f"run {run.name!r} cannot be exported as a TREC run: {exc}") from None
    return run_files.write_trec_run(run_rows(run=run), out, run.name)


def run_evaluate(
    *, run: Run, qrel_set: QrelSet, measures: Sequence[str] = ("nDCG@10",)
) -> dict[str, float]:
    """Mean of each measure over the run's queries that ``qrel_set`` judges, computed with
    ir_measures (MacAvaney et al., ECIR 2022; pytrec_eval/trec_eval underneath).

    ``measures`` are ir_measures names, e.g. ``"nDCG@10"``, ``"Judged@10"``. The run is
    evaluated in its stored rank order (strictly decreasing exported scores). Returns
    ``{measure name: value}``; queries the run does not cover are not averaged, as in trec_eval.
    When the run's dataset excludes identical ids, entries ranking the query's own document
    are skipped first (BEIR's ``ignore_identical_ids``).
    """
    import ir_measures

    parsed = [ir_measures.parse_measure(m) for m in measures]
    qrels = run_files.ir_measures_qrels(qrels_rows(qrel_set=qrel_set))
    # A query's own document is skipped when the dataset excludes identical ids.
    rows, _ = skip_identical(run_rows(run=run), enabled=run.dataset.exclude_identical_ids)
    run_dict = run_files.ir_measures_run(rows)
    run_dict = {q: docs for q, docs in run_dict.items() if q in qrels}
    result = ir_measures.calc_aggregate(parsed, qrels, run_dict)
    return {str(m): float(result.get(m, 0.0)) for m in parsed}
