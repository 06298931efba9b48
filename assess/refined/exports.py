"""Exports of qrel sets, labels with provenance, debate transcripts, disagreements and
benchmark zips.

Six kinds (:class:`~assess.models.ExportFile.Kind`):

- ``trec`` / ``beir``: any qrel set, in the canonical form of ``export_qrels``
  (:func:`corpora.services.qrels_rows` and :mod:`corpora.formats`);
- ``labels``: JSONL, one line per judged pair of a qrel set (a refined set's original rows
  have source "original"), with its provenance;
- ``transcripts``: JSONL, one line per turn of every debate of a pool's jobs;
- ``disagreements``: CSV for people: the escalated, overridden, unresolved and
  contradicting pairs of a refined set, formula cells neutralised;
- ``benchmark``: a refined set as a deterministic ``.zip`` in BEIR layout (corpus, queries,
  refined qrels) with a datasheet README (:mod:`assess.refined.benchmark_zip`).

Large exports run as a Celery job (:func:`export_request` → :func:`assess.refined.tasks.
export_write_task` → :func:`export_write`) writing a file under ``settings.VAR_DIR /
"exports"``. Same input, same bytes: rows are sorted by code point and JSON keys sorted, and
the file's sha256 is recorded. A request for an export whose file is pending, running, or
done and still current returns that ExportFile instead of starting another job.

This module holds the jobs (request, key, write, file); the rows of each kind are read in
:mod:`assess.refined.export_rows` and written in the formats of
:mod:`assess.refined.export_formats`.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.text import slugify

from corpora import formats
from corpora.models import Pool, QrelSet
from corpora.services import qrels_rows
from corpora.simulated import qrel_set_simulated_counts, simulated_filename
from debates.llm.config import SIMULATED_MODEL_PREFIX
from debates.models import Debate, DebateJob, Turn
from debates.prices import llm_prices, prices_stamp

from ..models import ExportFile, Refinement
from ..models.simulated import agents_simulated, no_simulated_labels
from . import export_formats
from .benchmark_zip import benchmark_stamp, benchmark_zip_write
from .export_rows import ExportError, disagreement_rows, labels_write, transcripts_records

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

log = logging.getLogger(__name__)

# Bump when an export's layout changes: old files then no longer count as current.
FORMAT_VERSION = 6
KINDS = tuple(ExportFile.Kind.values)
QREL_KINDS = ("trec", "beir", "labels", "disagreements", "benchmark")
# Kinds only a refined set has, and what the refusal calls them.
REFINED_ONLY = {"disagreements": "disagreements", "benchmark": "a benchmark zip"}
SUFFIX = {
    "trec": ".qrels",
    "beir": ".tsv",
    "labels": ".labels.jsonl",
    "transcripts": ".transcripts.jsonl",
    "disagreements": ".disagreements.csv",
    "benchmark": ".benchmark.zip",
}
CONTENT_TYPE = {
    "trec": "text/plain; charset=utf-8",
    "beir": "text/tab-separated-values; charset=utf-8",
    "labels": "application/x-ndjson; charset=utf-8",
    "transcripts": "application/x-ndjson; charset=utf-8",
    "disagreements": "text/csv; charset=utf-8",
    "benchmark": "application/zip",
}


def exports_dir() -> Path:
    """Where export files live: ``settings.VAR_DIR / "exports"`` (created on demand)."""
    path = Path(settings.VAR_DIR) / "exports"
    path.mkdir(parents=True, exist_ok=True)
    return path


# ---------------------------------------------------------------------------------------------
# Writing


def export_stream(
    *,
    kind: str,
    out: SupportsWrite[str],
    qrel_set: QrelSet | None = None,
    pool: Pool | None = None,
) -> int:
    """Write export ``kind`` of ``qrel_set`` (trec, beir, labels, disagreements) or ``pool``
    (transcripts) to the text stream ``out``; return the rows written.

    Raises :class:`ExportError` for an unknown kind or a missing/wrong source, and for a
    benchmark, which is a binary zip: :func:`export_file_write` writes it to a file.
    """
    _check_source(kind, qrel_set, pool)
    if kind == "benchmark":
        raise ExportError("a benchmark export is a zip file: write it to a file, not a stream")
    if kind == "transcripts":
        assert pool is not None  # checked by _check_source
        return export_formats.write_jsonl(transcripts_records(pool=pool), out)
    assert qrel_set is not None  # every other kind reads a qrel set (_check_source)
    if kind in ("trec", "beir"):
        return formats.write_qrels(qrels_rows(qrel_set=qrel_set), out, kind)
    if kind == "labels":
        return labels_write(qrel_set=qrel_set, out=out)
    return export_formats.write_csv(
        export_formats.DISAGREEMENT_HEADER, disagreement_rows(qrel_set=qrel_set), out
    )


def _check_source(kind: str, qrel_set: QrelSet | None, pool: Pool | None) -> None:
    if kind not in KINDS:
        raise ExportError(f"unknown export kind {kind!r} (expected one of {', '.join(KINDS)})")
    if kind in QREL_KINDS and qrel_set is None:
        raise ExportError(f"a {kind} export needs a qrel set")
    if kind == "transcripts" and pool is None:
        raise ExportError("a transcripts export needs a pool")
    if (
        kind in REFINED_ONLY
        and qrel_set is not None  # checked above
        and not Refinement.objects.filter(qrel_set=qrel_set).exists()
    ):
        raise ExportError(
            f"qrel set {qrel_set.name!r} was not refined: only a refined set has "
            f"{REFINED_ONLY[kind]}"
        )


def export_file_write(
    *, kind: str, path: Path, qrel_set: QrelSet | None = None, pool: Pool | None = None
) -> tuple[int, int, str]:
    """Write export ``kind`` to ``path`` (via a temporary file renamed into place, so a
    reader never sees half a file); return ``(rows, bytes, sha256 hex)``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    try:
        if kind == "benchmark":
            _check_source(kind, qrel_set, pool)
            assert qrel_set is not None  # checked by _check_source
            rows, size, digest = benchmark_zip_write(qrel_set=qrel_set, path=partial)
        else:
            with open(partial, "wb") as raw:
                writer = export_formats.HashingWriter(raw)
                rows = export_stream(kind=kind, out=writer, qrel_set=qrel_set, pool=pool)
                digest = writer.hexdigest()
                writer.flush()
            size = writer.bytes
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return rows, size, digest


def export_key(*, kind: str, qrel_set: QrelSet | None = None, pool: Pool | None = None) -> str:
    """What an export's bytes depend on. Qrel sets (imported or refined) are never changed
    after they are written (no code path updates their rows, and the Django admin shows them
    read-only: :class:`corpora.admin.WholeSetRowsAdmin`), so their id names their content;
    the disagreements CSV reads only turns stored before the refinement
    (:func:`disagreement_rows`). A pool's transcripts grow as debates run, so their key also
    holds the turn count, the last turn and the debates' status counts and last finish
    time. The labels JSONL states money at ``DREAM_LLM_PRICES``, so its key also holds
    :func:`debates.prices.prices_stamp` of the prices. A benchmark zip's README says more
    than the refined set (dataset fields, audits, prices), so its key also holds
    :func:`assess.refined.benchmark_zip.benchmark_stamp`."""
    _check_source(kind, qrel_set, pool)
    if kind == "benchmark":
        assert qrel_set is not None  # checked by _check_source
        return (
            f"v{FORMAT_VERSION}:benchmark:qrels:{qrel_set.pk}:{benchmark_stamp(qrel_set=qrel_set)}"
        )
    if kind in QREL_KINDS:
        assert qrel_set is not None  # checked by _check_source
        if kind == "labels":
            # Its llm_money is at the configured prices: a changed price, a new file.
            stamp = prices_stamp(llm_prices())
            return f"v{FORMAT_VERSION}:{kind}:qrels:{qrel_set.pk}:prices-{stamp}"
        return f"v{FORMAT_VERSION}:{kind}:qrels:{qrel_set.pk}"
    assert pool is not None  # the transcripts kind, checked by _check_source
    turns = Turn.objects.filter(debate__pair__pool=pool).aggregate(n=Count("pk"), last=Max("pk"))
    debates = Debate.objects.filter(pair__pool=pool)
    statuses = ",".join(
        f"{s}{n}"
        for s, n in debates.values_list("status")
        .annotate(n=Count("pk"))
        .order_by("status")
        .values_list("status", "n")
    )
    finished = debates.aggregate(last=Max("finished"))["last"]
    stamp = finished.strftime("%Y%m%d%H%M%S%f") if finished else "-"
    return (
        f"v{FORMAT_VERSION}:transcripts:pool:{pool.pk}:{turns['n']}:{turns['last'] or 0}:"
        f"{statuses}:{stamp}"
    )[:200]


def export_key_change(*, kind: str, built_key: str, current_key: str) -> str:
    """Why an export built under ``built_key`` no longer matches ``current_key`` (both
    :func:`export_key` of ``kind`` for one source), in words; pure. The key says what
    changed: its format version, a transcripts key's turn count, a labels key's price stamp,
    a benchmark key's README hash (which cannot say which line changed)."""
    built, current = built_key.split(":"), current_key.split(":")
    if built[0] != current[0]:
        return f"the export format changed since ({built[0]} then, {current[0]} now)"
    if kind == "transcripts":
        turns = (built[4], current[4]) if len(built) > 4 and len(current) > 4 else None
        if turns is not None and turns[0] != turns[1]:
            return f"the pool has debates or turns since ({turns[0]} turns then, {turns[1]} now)"
        return "the pool's debates changed since (a status or finish time; no new turns)"
    if kind == "labels":
        return "the LLM prices (DREAM_LLM_PRICES) changed since, and the file states money at them"
    if kind == "benchmark":
        return (
            "its datasheet README would read differently now (a dataset field, the audit's "
            "labels, a job or the prices changed since)"
        )
    return "what it is made from changed since"


def export_outdated_find(
    *, kind: str, key: str, qrel_set: QrelSet | None = None, pool: Pool | None = None
) -> tuple[ExportFile, str] | None:
    """``(export, why)``: the newest pending, running or done export of ``kind`` of the same
    source (``qrel_set``, or ``pool`` for transcripts) whose key is not ``key``, the current
    one, with :func:`export_key_change` saying why; None when there is none or the newest
    one is current. A selector: reads only."""
    newest = (
        ExportFile.objects.filter(
            kind=kind,
            qrel_set=qrel_set,
            pool=pool,
            status__in=["pending", "running", "done"],
        )
        .order_by("-created", "-pk")
        .first()
    )
    if newest is None or newest.key == key:
        return None
    return newest, export_key_change(kind=kind, built_key=newest.key, current_key=key)


def _filename(kind: str, qrel_set: QrelSet | None, pool: Pool | None) -> str:
    if kind == "transcripts":
        assert pool is not None  # checked by _check_source
        base = f"{pool.dataset.slug}-{slugify(pool.name) or 'pool'}"
        # Turns of simulated debaters say so in the name, as a set's simulated labels do.
        base = simulated_filename(base, pool_simulated_counts(pool=pool))
    else:
        assert qrel_set is not None  # checked by _check_source
        base = f"{qrel_set.dataset.slug}-{slugify(qrel_set.name) or 'qrels'}"
        # A set with simulated labels says so in every file name (corpora.simulated).
        base = simulated_filename(base, qrel_set_simulated_counts(qrel_set=qrel_set))
    return base + SUFFIX[kind]


def pool_simulated_counts(*, pool: Pool, last_turn: int | None = None) -> dict[str, int]:
    """``{"debate": n, "human": 0, "stage0": 0}``: ``n`` = the debates of ``pool`` with
    turns whose debaters are simulated (a job with a simulated agent, or a turn's model named
    ``simulated:...``: the ``simulated`` backend), i.e. the debates whose transcripts are
    simulated; a transcript holds no human label, nor a stage-0 one (no turn). With
    ``last_turn`` (a turn id), only the turns up to it count: those a transcripts file
    written then holds."""
    jobs = DebateJob.objects.filter(pool=pool).only("agent_a", "agent_b")
    simulated_jobs = [job.pk for job in jobs if agents_simulated(job.agent_a, job.agent_b)]
    turns = Q() if last_turn is None else Q(turns__pk__lte=last_turn)
    simulated = Debate.objects.filter(turns, pair__pool=pool, turns__isnull=False).filter(
        Q(job_id__in=simulated_jobs) | Q(turns__model__startswith=SIMULATED_MODEL_PREFIX)
    )
    return {**no_simulated_labels(), "debate": simulated.values("pk").distinct().count()}


def _key_last_turn(key: str) -> int | None:
    """The last turn id a transcripts export's key (:func:`export_key`) records, None when
    the key does not have one."""
    parts = key.split(":")
    return (
        int(parts[5])
        if len(parts) > 5 and parts[1] == "transcripts" and parts[5].isdigit()
        else None
    )


def export_simulated_counts(*, export: ExportFile) -> dict[str, int]:
    """``{"debate": n, "human": m, "stage0": k}``: the simulated labels of an export's qrel
    set (:func:`corpora.simulated.qrel_set_simulated_counts`), or the simulated debates of
    a pool's transcripts (:func:`pool_simulated_counts`), for the header its download
    carries (:func:`corpora.simulated.simulated_response_mark`)."""
    if export.qrel_set is None:
        if export.pool is None:
            return no_simulated_labels()
        # The file's own turns, as its key froze them: a debate of a simulated job that ran
        # on the pool after the file was written is not in it.
        return pool_simulated_counts(pool=export.pool, last_turn=_key_last_turn(export.key))
    return qrel_set_simulated_counts(qrel_set=export.qrel_set)


def _stale_running(export: ExportFile) -> bool:
    # A job running longer than the task time limit was killed with its worker.
    limit = timedelta(seconds=int(getattr(settings, "CELERY_TASK_TIME_LIMIT", 1800) or 1800))
    return export.started is not None and export.started < timezone.now() - limit


#: The name of :func:`assess.refined.tasks.export_write_task`, which imports this module:
#: looked up by name (``assess.apps`` registers the tasks) so that this one need not import it.
EXPORT_WRITE_TASK = "assess.export_write"


def export_enqueue(*, export: ExportFile) -> None:
    """Queue :func:`assess.refined.tasks.export_write_task` once the transaction commits
    (run at once in this process without a broker: ``CELERY_TASK_ALWAYS_EAGER``)."""
    export_id = export.pk
    transaction.on_commit(lambda: current_app.tasks[EXPORT_WRITE_TASK].delay(export_id))


def exports_current(*, refinement: Refinement, kinds: Iterable[str]) -> dict[str, ExportFile]:
    """``{kind: ExportFile}``: the newest export of each of ``kinds`` that is still current
    for a refined set (its key matches: transcripts are of the refinement's pool and go out
    of date as its debates go on; the other kinds are of the refined set)."""
    found: dict[str, ExportFile] = {}
    for kind in kinds:
        if kind == "transcripts":
            key = export_key(kind=kind, pool=refinement.pool)
        else:
            key = export_key(kind=kind, qrel_set=refinement.qrel_set)
        export = ExportFile.objects.filter(key=key).order_by("-created").first()
        if export is not None:
            found[kind] = export
    return found


def export_refinement(*, export: ExportFile) -> Refinement | None:
    """The refinement an export belongs to: its refined set's, or for a pool's transcripts
    the pool's newest refinement; None when there is none."""
    if export.qrel_set_id:
        return Refinement.objects.filter(qrel_set_id=export.qrel_set_id).first()
    if export.pool_id:
        return Refinement.objects.filter(pool_id=export.pool_id).order_by("-created").first()
    return None


def export_request(
    *,
    kind: str,
    qrel_set: QrelSet | None = None,
    pool: Pool | None = None,
    requested_by=None,
) -> tuple[ExportFile, bool]:
    """The ExportFile for this export, reusing a pending, running or current done one (a
    second click reuses the first job); otherwise a new pending one with its job enqueued
    after commit. A done export whose file vanished, or a job stuck past the task time limit,
    is marked failed and replaced. Returns ``(export, created)``.
    Raises :class:`ExportError` for a bad kind/source.
    """
    key = export_key(kind=kind, qrel_set=qrel_set, pool=pool)
    with transaction.atomic():
        live = (
            ExportFile.objects.select_for_update()
            .filter(key=key, status__in=["pending", "running", "done"])
            .first()
        )
        if live is not None:
            gone = live.status == ExportFile.Status.DONE and not export_path(export=live).is_file()
            if gone or (live.status == ExportFile.Status.RUNNING and _stale_running(live)):
                live.status = ExportFile.Status.FAILED
                live.error = "file missing" if gone else "the job stopped (worker lost)"
                live.save(update_fields=["status", "error"])
            else:
                return live, False
        try:
            with transaction.atomic():
                export = ExportFile.objects.create(
                    kind=kind,
                    qrel_set=qrel_set,
                    pool=pool,
                    key=key,
                    filename=_filename(kind, qrel_set, pool),
                    requested_by=requested_by,
                )
        except IntegrityError:
            # Another request created it between our read and our insert: reuse theirs.
            return ExportFile.objects.get(key=key, status__in=["pending", "running", "done"]), False
        export_enqueue(export=export)
    return export, True


def export_path(*, export: ExportFile) -> Path:
    """Absolute path of an export's file (may not exist yet): under :func:`exports_dir`."""
    return exports_dir() / (export.path or f"{export.pk}-{export.filename}")


def export_write(*, export: ExportFile) -> ExportFile:
    """Write one requested export to its file; idempotent (the task's body).

    Claims the export (pending → running, a conditional update, so a second delivery of the
    task finds nothing to do); writes the file, then records rows, bytes, sha256 and seconds
    (done), or the error (failed). Errors are recorded, never raised. Returns the row as
    stored after.
    """
    claimed = ExportFile.objects.filter(pk=export.pk, status=ExportFile.Status.PENDING).update(
        status=ExportFile.Status.RUNNING, started=timezone.now()
    )
    if not claimed:
        return ExportFile.objects.get(pk=export.pk)
    export = ExportFile.objects.select_related("qrel_set__dataset", "pool__dataset").get(
        pk=export.pk
    )
    relative = f"{export.pk}-{export.filename}"
    started = time.monotonic()
    try:
        rows, size, digest = export_file_write(
            kind=export.kind,
            path=exports_dir() / relative,
            qrel_set=export.qrel_set,
            pool=export.pool,
        )
    except Exception as exc:  # recorded on the row for the page; the job itself is done
        log.exception("export %s failed", export.pk)
        ExportFile.objects.filter(pk=export.pk).update(
            status=ExportFile.Status.FAILED,
            error=f"{type(exc).__name__}: {exc}"[:4000],
            finished=timezone.now(),
            seconds=time.monotonic() - started,
        )
        return ExportFile.objects.get(pk=export.pk)
    ExportFile.objects.filter(pk=export.pk).update(
        status=ExportFile.Status.DONE,
        path=relative,
        rows=rows,
        bytes=size,
        sha256=digest,
        seconds=time.monotonic() - started,
        finished=timezone.now(),
    )
    return ExportFile.objects.get(pk=export.pk)


def export_get(*, pk: int) -> ExportFile:
    """The ExportFile with this id. Raises ``ExportFile.DoesNotExist``."""
    return ExportFile.objects.select_related("qrel_set__dataset", "pool__dataset").get(pk=pk)
