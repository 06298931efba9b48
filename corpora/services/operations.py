"""Long steps started from the browser or the API, run in the background: an uploaded BEIR
benchmark, qrels file or TREC run imported; a pool built; and the steps other apps register
(:func:`operation_step_register`: ``assess`` refines a pool). Each is an :class:`Operation`
row, the one truth about it (pages and the API poll it).

:func:`operation_create` checks the options, streams the uploaded files to a folder of their
own under ``DREAM_VAR_DIR/uploads/`` (never whole in memory: Django spools uploads to disk
beyond ``FILE_UPLOAD_MAX_MEMORY_SIZE``), creates the row and starts the step once the
transaction commits (:func:`core.broker.background_after_commit`: a Celery task with a
broker, a thread without). :func:`operation_run` (the task's one service) claims the row
with a conditional UPDATE, so a second delivery does nothing, then calls the same service
the equivalent command calls (``import_beir``, ``import_qrels``, ``import_run``,
``build_pool``), so the validation and the errors are the commands' own (an upload's files
are first held to ``DREAM_UPLOAD_MAX_UNPACKED_BYTES`` decompressed and to a line length,
:func:`corpora.uploads.upload_read_check`, which the commands' files are not): on an error
nothing is imported, the row is ``failed`` with the message, its paths named as inside the
upload (``scifact/qrels/test.tsv:3: ...``); so is an error no step words for itself
(:func:`unexpected_error_shown`). The upload folder is removed when the step ends.
"""

from __future__ import annotations

import logging
import re
import shutil
import uuid
from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.broker import background_after_commit, task_named
from core.fixes import OptionFix, error_fix, error_worded

from ..formats import FormatError
from ..models import Dataset, Operation, Pool, QrelSet, Run
from ..uploads import (
    UploadError,
    archive_extract,
    beir_files_read,
    beir_folder_find,
    error_relative,
    upload_read_check,
)
from .datasets import dataset_import_beir, qrel_set_get, qrels_import
from .pools import PoolBuildReport, PoolError, pool_build
from .runs import RunError, run_get, run_import

log = logging.getLogger(__name__)
#: The registered name of :func:`corpora.tasks.operation_task` (run one operation).
OPERATION_TASK = "corpora.operation"

# Which uploaded files each kind takes (form and API field names), and which it requires.
UPLOAD_FIELDS: dict[str, tuple[str, ...]] = {
    Operation.Kind.IMPORT_BEIR: ("archive", "corpus", "queries", "qrels"),
    Operation.Kind.IMPORT_QRELS: ("qrels",),
    Operation.Kind.IMPORT_RUN: ("run",),
    Operation.Kind.BUILD_POOL: (),
}
# What a failed step's message starts with: the equivalent command's words (registered steps
# give their own, see operation_step_register).
FAILED_PREFIX: dict[str, str] = {
    Operation.Kind.IMPORT_BEIR: "import failed, nothing imported: ",
    Operation.Kind.IMPORT_QRELS: "import failed, nothing imported: ",
    Operation.Kind.IMPORT_RUN: "import failed, nothing imported: ",
    Operation.Kind.BUILD_POOL: "",
}
STALE_AFTER = timedelta(hours=6)  # a step still "running" after this lost its worker


class OperationError(ValueError):
    """Options or files an operation cannot start with (nothing was created)."""


def upload_max_bytes() -> int:
    """The largest upload accepted, in bytes (``DREAM_UPLOAD_MAX_BYTES``)."""
    return int(settings.DREAM_UPLOAD_MAX_BYTES)


def _unpacked_max_bytes() -> int:
    """The most an upload may come to unpacked and decompressed, in bytes
    (``DREAM_UPLOAD_MAX_UNPACKED_BYTES``)."""
    return int(settings.DREAM_UPLOAD_MAX_UNPACKED_BYTES)


def _files_read_check(operation: Operation, paths: list[Path]) -> None:
    """Refuse, before anything is imported, uploaded files that decompress past
    ``DREAM_UPLOAD_MAX_UNPACKED_BYTES`` or hold an over-long line
    (:func:`corpora.uploads.upload_read_check`; UploadError naming the file)."""
    _stage(operation, "checking the files' sizes")
    upload_read_check(paths=paths, max_bytes=_unpacked_max_bytes())


def _files_check(kind: str, files: Mapping[str, UploadedFile]) -> None:
    unknown = sorted(set(files) - set(UPLOAD_FIELDS[kind]))
    if unknown:
        raise OperationError(f"{unknown[0]}: not a file this step takes")
    if kind == Operation.Kind.IMPORT_BEIR:
        separate = {"corpus", "queries", "qrels"} & set(files)
        if "archive" in files and separate:
            raise OperationError("archive: upload one archive, or corpus, queries and qrels")
        if "archive" not in files and separate != {"corpus", "queries", "qrels"}:
            missing = sorted({"corpus", "queries", "qrels"} - separate)
            raise OperationError(
                f"{missing[0]}: missing; upload a BEIR archive, or corpus, queries and qrels"
            )
    elif UPLOAD_FIELDS[kind] and not files:
        raise OperationError(f"{UPLOAD_FIELDS[kind][0]}: no file uploaded")
    total = sum(f.size or 0 for f in files.values())
    if total > upload_max_bytes():
        raise OperationError(f"upload: {total:,} bytes is over the limit of {upload_max_bytes():,}")


def _file_name(field: str, upload: UploadedFile, split: str) -> str:
    """Where an uploaded file goes in the upload folder: separate BEIR files are laid out as
    a BEIR folder (the name's .gz kept), others keep a safe version of their name."""
    gz = ".gz" if (upload.name or "").endswith(".gz") else ""
    if field == "corpus":
        return f"beir/corpus.jsonl{gz}"
    if field == "queries":
        return f"beir/queries.jsonl{gz}"
    if field == "qrels" and split:
        return f"beir/qrels/{split}.tsv{gz}"
    base = Path(upload.name or field).name.replace("\\", "_") or field
    return f"{field}/{base}"


def _files_save(folder: Path, files: Mapping[str, UploadedFile], split: str) -> int:
    total = 0
    for field, upload in files.items():
        target = folder / _file_name(field, upload, split)
        # Names come from the request: never write outside the upload folder.
        if not target.resolve().is_relative_to(folder.resolve()):
            raise OperationError(f"{field}: the file name would be written outside its folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("wb") as out:
            for chunk in upload.chunks():
                total += len(chunk)
                out.write(chunk)
    return total


def operation_create(
    *,
    kind: str,
    params: dict[str, Any],
    files: Mapping[str, UploadedFile] | None = None,
    dataset: Dataset | None = None,
    created_by: Any = None,
) -> Operation:
    """Create an operation of ``kind`` with ``params`` (the options of the equivalent
    command, already checked by a form or an API schema) and the uploaded ``files`` (field
    name → file), and start it after commit. Returns the row (status "queued").

    Raises :class:`OperationError` naming the field for files this kind does not take or
    lacks, or an upload over ``DREAM_UPLOAD_MAX_BYTES``; nothing is created or kept then.
    """
    files = dict(files or {})
    if kind not in UPLOAD_FIELDS:
        raise OperationError(f"kind: unknown step {kind!r}")
    split = str(params.get("split") or "")
    if split and not re.fullmatch(r"[-a-zA-Z0-9_]+", split):
        raise OperationError(f"split: letters, digits, '-' and '_' only, got {split!r}")
    if kind != Operation.Kind.IMPORT_BEIR and dataset is None:
        raise OperationError("dataset: required")
    _files_check(kind, files)
    folder = Path(settings.VAR_DIR) / "uploads" / uuid.uuid4().hex
    saved = 0
    if files:
        folder.mkdir(parents=True)
        split = str(params.get("split") or "test") if kind == Operation.Kind.IMPORT_BEIR else ""
        try:
            saved = _files_save(folder, files, split)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
    with transaction.atomic():
        operation = Operation.objects.create(
            kind=kind,
            params=params,
            dataset=dataset,
            upload_dir=str(folder) if files else "",
            upload_bytes=saved,
            created_by=created_by,
            stage="queued",
        )
        task = task_named(OPERATION_TASK)
        background_after_commit(task, operation.pk, name=f"operation-{operation.pk}")
    return operation


def operation_run(*, operation_id: int) -> Operation:
    """Run operation ``operation_id`` if it is queued (idempotent: a second delivery, or a
    finished step, does nothing); return the row as stored after. Never raises for the step's
    own errors: they are stored on the row (``failed``, ``error``)."""
    claimed = Operation.objects.filter(pk=operation_id, status=Operation.Status.QUEUED).update(
        status=Operation.Status.RUNNING, started=timezone.now(), stage="starting"
    )
    operation = Operation.objects.select_related("dataset").get(pk=operation_id)
    if not claimed:
        return operation
    root = Path(operation.upload_dir) if operation.upload_dir else None
    try:
        result = STEPS[operation.kind](operation, root)
    except (FormatError, UploadError, OperationError, RunError, PoolError, ValueError) as exc:
        # Stored without the option that would get past it: the page and the API word that
        # for themselves (a form's label, a JSON field) from ``result["fix"]``.
        message = server_paths_hidden(error_worded(exc, "plain"), root)
        message = FAILED_PREFIX.get(operation.kind, "") + message  # the commands' words
        _operation_end(operation, error=message, result=_fixes_stored(exc))
    except Exception as exc:  # anything else is stored too: the row must not stay running
        log.exception("operation %s failed", operation_id)  # the full paths: the server's log
        _operation_end(operation, error=unexpected_error_shown(exc, root))
    else:
        _operation_end(operation, result=result)
    finally:
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)
    operation.refresh_from_db()
    return operation


def unexpected_error_shown(exc: BaseException, root: Path | None) -> str:
    """An error no step words for itself, as the operation stores it for the page and the API
    (researchers read them): ``"TypeName: message"`` with the server's folders taken out as
    for the steps' own errors (:func:`server_paths_hidden`), e.g.
    ``"OSError: [Errno 28] No space left on device: 'DREAM_VAR_DIR/indexes/3.bin'"``."""
    return server_paths_hidden(f"{type(exc).__name__}: {exc}", root)


def server_paths_hidden(text: str, root: Path | None) -> str:
    """An operation's error ``text`` as the page and the API show it (researchers read it):
    the upload folder ``root`` taken out (:func:`corpora.uploads.error_relative`:
    ``corpus.jsonl:3: ...``), then every other server folder the app knows named, not
    given: a path inside ``DREAM_VAR_DIR`` (as set, or with its links followed) from the
    setting (``DREAM_VAR_DIR/indexes/3.bin``), one inside the code's folder as "the app's
    folder". A folder is replaced only as a whole name (``/srv/app`` leaves ``/srv/apple``)."""
    if root is not None:
        text = error_relative(text, root)
    var = Path(settings.VAR_DIR)
    folders = {str(var): "DREAM_VAR_DIR", str(var.resolve()): "DREAM_VAR_DIR"}
    folders.setdefault(str(settings.BASE_DIR), "the app's folder")
    for folder, name in folders.items():
        folder = folder.rstrip("/")
        if folder:
            text = re.sub(re.escape(folder) + r"(?![\w.-])", name, text)
    return text


def _fixes_stored(exc: BaseException) -> dict | None:
    """What a failed step stores of the options that get past ``exc``: ``{"fix": ...}``, and
    ``"more_fixes": [...]`` for a file refused for several kinds of problem (each as
    :meth:`OptionFix.as_dict`); None without one."""
    fix = error_fix(exc)
    if fix is None:
        return None
    more = [f.as_dict() for f in getattr(exc, "more_fixes", ()) if isinstance(f, OptionFix)]
    return {"fix": fix.as_dict(), **({"more_fixes": more} if more else {})}


def operation_fix(*, operation: Operation) -> OptionFix | None:
    """The option that would have got a failed operation past its error (stored by
    :func:`operation_run` in ``result["fix"]``), for the page or the API to word; or None."""
    return OptionFix.from_dict((operation.result or {}).get("fix")) if operation.error else None


def operation_fixes(*, operation: Operation) -> list[OptionFix]:
    """Every option that would get a failed operation past a part of its error: the one of
    :func:`operation_fix`, then those of the file's other kinds of problem
    (``result["more_fixes"]``, :mod:`corpora.file_problems`); [] without one."""
    first = operation_fix(operation=operation)
    if first is None:
        return []
    more = [OptionFix.from_dict(d) for d in (operation.result or {}).get("more_fixes") or ()]
    return [first, *(f for f in more if f is not None)]


def _operation_end(
    operation: Operation, *, result: dict[str, Any] | None = None, error: str = ""
) -> None:
    Operation.objects.filter(pk=operation.pk, status=Operation.Status.RUNNING).update(
        status=Operation.Status.FAILED if error else Operation.Status.DONE,
        result=result or {},
        error=error,
        stage="failed" if error else "done",
        finished=timezone.now(),
        dataset=operation.dataset if error else (operation.dataset or _made_dataset(result)),
    )


def _made_dataset(result: dict[str, Any] | None) -> Dataset | None:
    slug = (result or {}).get("dataset")
    return Dataset.objects.filter(slug=slug).first() if slug else None


def _stage(operation: Operation, text: str) -> None:
    Operation.objects.filter(pk=operation.pk).update(stage=text[:200])


def _import_beir(operation: Operation, root: Path | None) -> dict[str, Any]:
    assert root is not None  # an import has files (checked at creation)
    params = operation.params
    archives = sorted((root / "archive").glob("*")) if (root / "archive").is_dir() else []
    if archives:
        _stage(operation, "unpacking the archive")
        unpacked = archive_extract(
            path=archives[0],
            dest=root / "unpacked",
            name=archives[0].name,
            max_bytes=_unpacked_max_bytes(),
        )
        folder = beir_folder_find(unpacked)
    else:
        folder = root / "beir"
    _files_read_check(operation, beir_files_read(folder))
    _stage(operation, "importing corpus, queries and qrels")
    dataset = dataset_import_beir(
        path=folder,
        name=params["name"],
        slug=params.get("slug") or None,
        # Without a source given, say how it came (the upload folder is gone after import).
        source=params.get("source") or _upload_names(root),
        licence=params.get("licence", ""),
        on_duplicate=params.get("on_duplicate") or None,
        unknown_ids=params.get("unknown_ids", "reject"),
        identical_ids=params.get("identical_ids") or None,
    )
    # Over-long texts are said at once, as the command says them (the import still succeeds).
    long_texts = dataset.imports.latest("pk").summary.get("long_texts")
    return {"dataset": dataset.slug, "name": dataset.name, "long_texts": long_texts}


def _upload_names(root: Path) -> str:
    """ "uploaded NAME[, NAME...]": the files as they were uploaded (their folder is temporary)."""
    names = sorted(p.name for p in root.glob("archive/*")) or sorted(
        p.name for p in (root / "beir").rglob("*") if p.is_file()
    )
    return "uploaded " + ", ".join(names)


def _single_upload(root: Path | None, field: str) -> Path:
    files = sorted((root / field).glob("*")) if root is not None else []
    if not files:
        raise OperationError(f"{field}: no file uploaded")
    return files[0]


def _import_qrels(operation: Operation, root: Path | None) -> dict[str, Any]:
    params = operation.params
    assert operation.dataset is not None
    path = _single_upload(root, "qrels")
    _files_read_check(operation, [path])
    _stage(operation, "importing the qrels")
    qrel_set = qrels_import(
        dataset=operation.dataset,
        path=path,
        name=params["name"],
        fmt=params.get("fmt", "trec"),
        on_duplicate=params.get("on_duplicate") or None,
        unknown_ids=params.get("unknown_ids", "reject"),
    )
    return {"qrel_set": qrel_set.pk, "name": qrel_set.name, "qrels": qrel_set.qrels.count()}


def _import_run(operation: Operation, root: Path | None) -> dict[str, Any]:
    params = operation.params
    assert operation.dataset is not None
    path = _single_upload(root, "run")
    _files_read_check(operation, [path])
    _stage(operation, "importing the run")
    run = run_import(
        dataset=operation.dataset,
        path=path,
        name=params.get("name") or None,
        system=params.get("system", ""),
        unknown_ids=params.get("unknown_ids", "reject"),
    )
    return {"run": run.pk, "name": run.name}


def _build_pool(operation: Operation, root: Path | None) -> dict[str, Any]:
    params = operation.params
    dataset = operation.dataset
    assert dataset is not None
    try:
        qrel_set = qrel_set_get(dataset=dataset, name=params["qrels"])
    except QrelSet.DoesNotExist:
        known = ", ".join(dataset.qrel_sets.values_list("name", flat=True)) or "none"
        raise OperationError(f"qrels: no qrel set {params['qrels']!r} (known: {known})") from None
    runs = []
    for name in params["runs"]:
        try:
            runs.append(run_get(dataset=dataset, name=name))
        except Run.DoesNotExist:
            # As build_pool says it: the caller sees which names would do.
            known = ", ".join(dataset.runs.order_by("name").values_list("name", flat=True))
            raise OperationError(f"runs: no run {name!r} (known: {known or 'none'})") from None
    _stage(operation, f"pooling {len(runs)} run(s) at depth {params['depth']}")
    report = pool_build(
        dataset=dataset,
        qrel_set=qrel_set,
        runs=runs,
        depth=int(params["depth"]),
        include_judged=bool(params.get("include_judged", False)),
        name=params.get("name") or None,
        queries=params.get("queries") or None,
        strategy=params.get("strategy") or Pool.Strategy.DEPTH,
        budget=params.get("budget"),
    )
    pool = report.pool
    result: dict[str, Any] = {
        "pool": pool.pk,
        "name": pool.name,
        "pairs": pool.pairs.count(),
        "runs": sorted(report.run_names.values()),
        "created_pairs": report.created_pairs,
        "created_sources": report.created_sources,
        "existed": bool(report.runs_before),
        "built": _pool_built_words(report, result_pairs=pool.pairs.count()),
    }
    if pool.budget is not None:
        result["budget"] = pool.budget
    if report.budget_note:
        result["note"] = report.budget_note
    return result


def _pool_built_words(report: PoolBuildReport, *, result_pairs: int) -> str:
    """What a pool build did, in words, as ``build_pool`` prints it: a new pool, or one of
    that name extended with runs it did not hold (a build with the same name adds runs to the
    pool; pairs are never removed), or nothing new at all."""
    pool, before = report.pool, report.runs_before
    made = f"{report.created_pairs:,} new pairs and {report.created_sources:,} provenance rows"
    if not before:
        return f"pool {pool.name!r} built: {result_pairs:,} pairs"
    added = sorted(set(report.run_names.values()) - set(before))
    held = f"pool {pool.name!r} existed already with runs {', '.join(before)}"
    if not added and not report.created_pairs:
        return (
            f'{held}: nothing was built (the same runs again); send another "name" for a new pool'
        )
    if not added:
        return f"{held}: this build created {made}"
    return (
        f"{held}; this build added runs {', '.join(added)} to it ({made}; now "
        f'{result_pairs:,} pairs); send another "name" for a pool of its own'
    )


#: A step: the operation and its upload folder (None without files) -> the result to store.
Step = Callable[[Operation, Path | None], dict[str, Any]]

STEPS: dict[str, Step] = {
    Operation.Kind.IMPORT_BEIR: _import_beir,
    Operation.Kind.IMPORT_QRELS: _import_qrels,
    Operation.Kind.IMPORT_RUN: _import_run,
    Operation.Kind.BUILD_POOL: _build_pool,
}


def operation_step_register(*, kind: str, step: Step, failed_prefix: str = "") -> None:
    """Make ``step`` run the operations of ``kind`` (one of :class:`Operation.Kind`), a step
    of an app that corpora cannot import (``assess`` refining a pool registers it in its
    ``AppConfig.ready``, so web processes and workers both know it). The step takes no files;
    ``step(operation, None)`` returns the result to store; a ``ValueError`` it raises (a
    :class:`core.fixes.FixableError` with the option that gets past it) fails the operation
    with ``failed_prefix`` + its message, and must leave nothing written. Registering a kind
    again replaces its step (``ready`` may run more than once in tests)."""
    if kind not in Operation.Kind.values:
        raise ValueError(f"kind: not an operation kind: {kind!r}")
    UPLOAD_FIELDS[kind] = ()
    FAILED_PREFIX[kind] = failed_prefix
    STEPS[kind] = step


def operation_fail_stale(*, now: Any = None) -> int:
    """Mark failed the operations still running :data:`STALE_AFTER` after they started (their
    worker died; an import is one transaction, so nothing of it was kept), or still queued
    that long after they were made; their uploads are removed. Returns how many."""
    now = now or timezone.now()
    # Running too long (its worker died), or still queued that long (its message or thread
    # was lost before it started): either way nothing was imported, and the upload goes.
    stale = Operation.objects.filter(
        Q(status=Operation.Status.RUNNING, started__lt=now - STALE_AFTER)
        | Q(status=Operation.Status.QUEUED, created__lt=now - STALE_AFTER)
    )
    folders = list(stale.exclude(upload_dir="").values_list("upload_dir", flat=True))
    count = stale.update(
        status=Operation.Status.FAILED,
        error="worker lost: the step had not ended 6 hours on (killed, restarted, or its "
        "message lost); nothing was imported",
        stage="failed",
        finished=now,
    )
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    return count
