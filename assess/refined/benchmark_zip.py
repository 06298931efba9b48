"""The benchmark export of a refined qrel set: one ``.zip`` in BEIR layout with a datasheet.

::

    <dataset slug>/README.md          the datasheet (assess.refined.datasheet)
    <dataset slug>/corpus.jsonl       every document: {"_id", "text", "title"}
    <dataset slug>/queries.jsonl      every query: {"_id", "metadata", "text"}
    <dataset slug>/qrels/<split>.tsv  the refined qrels, as the ``beir`` export writes them

``<split>`` is the name of the original qrel set the refinement started from (e.g. ``test``),
so ``GenericDataLoader(data_folder=slug).load(split=split)`` reads it. Both path parts are
reduced to letters, digits, ``.``, ``_`` and ``-`` (:func:`zip_path_part`).

Same input, same bytes: entries in a fixed order, each with a fixed timestamp (1980-01-01,
the earliest ZIP can store), fixed Unix permissions and deflate at zlib's default level;
lines in code-point order and JSON keys sorted. Documents and queries are streamed from the
database in batches (:data:`BATCH_SIZE`) straight into the compressor, never all in memory.

What the README says can change after the refined set was made (a licence edited in the
admin, more audits judged, other prices, an audit share raised, which moves the intervals):
:func:`benchmark_stamp` hashes the rendered README into the export key
(:func:`assess.refined.exports.export_key`), so an export whose README would differ is
written anew. Documents, queries' text and metadata, and the refined qrels
never change once imported or written.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.db.models import Count

from core.version import software
from corpora.models import Dataset, Document, Pool, QrelSet, Query
from corpora.ordering import code_point
from corpora.services import qrels_export
from corpora.simulated import simulated_filename
from debates.llm.config import AgentConfig, backend_and_model, model_shown
from debates.models import Debate, DebateJob

from ..models import LabelProvenance, Refinement
from ..models.bundled import jobs_bundled_warning, refined_jobs
from ..models.simulated import (
    qrel_set_simulated_rows,
    simulated_rows_counts,
    simulated_rows_sentence,
)
from ..review.calibration import job_calibration
from ..review.selectors import job_agreement, job_audit
from ..review.simulated_marks import simulated_judgments_count
from .cost import format_costs
from .datasheet import (
    AgentSheet,
    AgreementSheet,
    AuditSheet,
    CalibrationSheet,
    Datasheet,
    IntervalsSheet,
    JobSheet,
    RunSheet,
    datasheet_render,
)
from .export_formats import label_source, write_jsonl
from .export_rows import ExportError
from .refine import refinement_budget_get
from .selectors import refined_costs

BATCH_SIZE = 5000
# Bump when the zip's layout changes: the export key changes with it (benchmark_stamp).
LAYOUT_VERSION = 1
# The earliest time a ZIP entry can carry: no clock reaches the bytes.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_UNSAFE_PATH = re.compile(r"[^A-Za-z0-9._-]+")

#: Who computes a refined set's intervals for its datasheet: ``provider(refinement) ->
#: IntervalsSheet``. The estimators are evaluation's, which this package may not import
#: (assess/refined/__init__.py), so ``assess.apps`` registers one that may.
INTERVALS_PROVIDERS: list[Callable[[Refinement], IntervalsSheet]] = []


def benchmark_intervals_register(provider: Callable[[Refinement], IntervalsSheet]) -> None:
    """Make ``provider(refinement) -> IntervalsSheet`` the one that fills the datasheet's
    intervals section (idempotent; a later registration replaces an earlier one)."""
    INTERVALS_PROVIDERS[:] = [provider]


def _intervals_sheet(refinement: Refinement) -> IntervalsSheet | None:
    """The registered provider's sheet, or None when none is registered."""
    return INTERVALS_PROVIDERS[0](refinement) if INTERVALS_PROVIDERS else None


def zip_path_part(value: str, *, fallback: str) -> str:
    """``value`` as one safe path part of a zip entry: runs of anything but letters,
    digits, ``.``, ``_`` and ``-`` become ``-``, leading and trailing dots and dashes go
    (no ``..``, no hidden file); ``fallback`` when nothing is left."""
    return _UNSAFE_PATH.sub("-", value).strip(".-") or fallback


# ---------------------------------------------------------------------------------------------
# The datasheet's facts


def _agent_sheets(job: DebateJob) -> tuple[AgentSheet, ...]:
    out = []
    for name, stance, raw in (("A", "relevant", job.agent_a), ("B", "irrelevant", job.agent_b)):
        try:
            config = AgentConfig.stored(raw)
        except ValueError:  # a config this code no longer reads: name what it stored
            backend, model = backend_and_model(raw)
            out.append(AgentSheet(name, stance, model_shown(model) or backend, backend))
            continue
        options = config.generation_options()
        reasoning = json.dumps(options, sort_keys=True, ensure_ascii=False) if options else ""
        out.append(AgentSheet(name, stance, config.label, config.describe(), reasoning))
    return tuple(out)


def _job_sheet(job: DebateJob) -> JobSheet:
    """One job's settings, with its audit and agreement as the job page shows them
    (:func:`assess.review.selectors.job_audit`, :func:`~assess.review.selectors.
    job_agreement`), minus the annotators' names."""
    audit = job_audit(job=job)
    agreement = job_agreement(job=job)
    calibration = job_calibration(job=job)
    return JobSheet(
        job=job.pk,
        status=job.status,
        agents=_agent_sheets(job),
        prompt_version=job.prompt_version,
        rounds=job.rounds,
        scale=job.scale,
        max_grade=job.max_grade,
        consensus=job.consensus,
        temperature=job.temperature,
        max_tokens=job.max_tokens,
        max_tokens_cap=job.max_tokens_cap_applied,
        max_tokens_cap_default=job.max_tokens_cap is None,
        audit=AuditSheet(
            share=audit.share,
            sampled=audit.sampled,
            error=audit.error,
            agreement=audit.agreement,
            kappa=audit.kappa,
            side_error=audit.side_error,
            kappa_weighted=audit.kappa_weighted,
            # The population the audit drew from (assess.review.audit: agreed, labelled).
            agreed=job.debates.filter(
                status=Debate.Status.AGREED, final_label__isnull=False
            ).count(),
            allocation=job.audit_allocation,
        ),
        agreement=AgreementSheet(
            pairs=agreement.pairs,
            annotators=agreement.annotators,
            kappa=agreement.kappa,
            kappa_items=agreement.kappa_pair.items if agreement.kappa_pair else 0,
            alpha=agreement.alpha,
            disagreements=agreement.disagreements,
            graded=agreement.graded,
            alpha_ordinal=agreement.alpha_ordinal,
            kappa_weighted=agreement.kappa_weighted,
        ),
        calibration=tuple(
            CalibrationSheet(
                agent=c.agent,
                n=c.figures.n if c.figures else 0,
                labelled=c.labelled,
                ece=c.figures.ece if c.figures else None,
                brier=c.figures.brier if c.figures else None,
                missing=c.missing,
            )
            for c in calibration.agents
        ),
        calibration_missing=calibration.missing,
    )


def _human_sources(refinement: Refinement) -> dict[str, int]:
    """The refinement's human labels counted by :func:`export_formats.label_source`."""
    counts: dict[str, int] = {}
    rows = LabelProvenance.objects.filter(
        refinement=refinement, source=LabelProvenance.Source.HUMAN
    ).values_list("judgments", flat=True)
    for judgments in rows.iterator(chunk_size=5000):
        kind = label_source("human", [j["label"] for j in judgments or []])
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def _escalations(qrel_set: QrelSet) -> dict[str, int]:
    """{escalation reason: pairs} over the refined set's provenance: the pairs whose
    deciding debate escalated, as they stood at refinement."""
    rows = (
        LabelProvenance.objects.filter(qrel_set=qrel_set, debate_status=Debate.Status.ESCALATED)
        .values("escalation_reason")
        .annotate(n=Count("pk"))
        .order_by("escalation_reason")
        .values_list("escalation_reason", "n")
    )
    return dict(rows)


def benchmark_datasheet(*, refinement: Refinement) -> Datasheet:
    """The facts of the README of ``refinement``'s benchmark zip (a selector: reads only).

    Counts of labels by source and unresolved reason come from the refinement; escalations
    from its provenance; each debate job it considered (``Refinement.jobs``, in id order;
    a job deleted since is left out) gives its agents, settings, audit and agreement; the
    cost lines are :func:`assess.refined.cost.format_costs` of :func:`assess.refined.
    selectors.refined_costs`; the intervals come from the provider registered with
    :func:`benchmark_intervals_register` (none registered: not computed).
    """
    qrel_set = refinement.qrel_set
    dataset: Dataset = qrel_set.dataset
    pool = refinement.pool
    counts = refinement.counts or {}
    # The jobs behind every row the set copied, walked once: two facts below read them.
    chain = refined_jobs(qrel_set)
    jobs = DebateJob.objects.filter(pk__in=list(refinement.jobs or [])).order_by("pk")
    by_source, by_reason = _pool_counts(refinement)
    # The budget the set was refined under, not the pool's now (it may have changed since).
    budget = refinement_budget_get(refinement=refinement)
    simulated_rows = qrel_set_simulated_rows(qrel_set=qrel_set)
    simulated = simulated_rows_counts(simulated_rows)
    # The qrels file's name carries the mark too: its split is what a loader names.
    split = simulated_filename(zip_path_part(refinement.original.name, fallback="test"), simulated)
    return Datasheet(
        folder=zip_path_part(dataset.slug, fallback="dataset"),
        split=split,
        dataset_name=dataset.name,
        dataset_source=dataset.source_shown,
        dataset_licence=dataset.licence,
        exclude_identical_ids=dataset.exclude_identical_ids,
        documents=Document.objects.filter(dataset=dataset).count(),
        queries=Query.objects.filter(dataset=dataset).count(),
        refined_name=qrel_set.name,
        created=refinement.created,
        original_name=refinement.original.name,
        original_rows=refinement.original_rows,
        qrels_rows=sum(qrel_set.grade_counts.values()),
        grades=qrel_set.grades_text,
        relevant_grade=refinement.relevant_grade,
        new_relevant=refinement.new_relevant,
        new_nonrelevant=refinement.new_nonrelevant,
        pool_name=pool.name,
        pool_depth=pool.depth,
        pool_include_judged=pool.include_judged,
        pool_runs=tuple(RunSheet(r.name, r.system) for r in pool.runs.order_by("name")),
        pool_queries=tuple(str(q) for q in pool.query_ids or []),
        # Depth-k is the canonical order the pool line already says: no line of its own.
        pool_strategy="" if pool.strategy == Pool.Strategy.DEPTH else pool.get_strategy_display(),
        pool_budget=budget.budget,
        pool_pairs=budget.pool_pairs,
        beyond_budget=budget.beyond,
        budget_recorded=budget.recorded,
        pairs=refinement.pairs,
        by_source=by_source,
        by_reason=by_reason,
        escalations=_escalations(qrel_set),
        overrides_consensus=int(counts.get("overrides_consensus") or 0),
        jobs=tuple(_job_sheet(job) for job in jobs),
        costs=tuple(line.strip() for line in format_costs(refined_costs(qrel_set=qrel_set))),
        human_sources=_human_sources(refinement),
        excluded_annotators=tuple(refinement.excluded_annotators or ()),
        intervals=_intervals_sheet(refinement),
        simulated_judgments=simulated_judgments_count(jobs=chain),
        embedded_warning=jobs_bundled_warning(chain),
        corrections=int(counts.get("corrections") or 0),
        simulated_labels=simulated_rows_sentence(
            simulated_rows, name=qrel_set.name, scope="in this set's final labels"
        ),
        software=software(),
    )


def _pool_counts(refinement: Refinement) -> tuple[dict[str, int], dict[str, int]]:
    """``(by_source, by_reason)``: the refinement's counts of its pairs (those within its
    pool's budget: labelled + unresolved); the pairs beyond the budget are counted apart
    (:func:`assess.refined.refine.refinement_budget_get`)."""
    counts = refinement.counts or {}
    return dict(counts.get("by_source") or {}), dict(counts.get("by_reason") or {})


def _refinement(qrel_set: QrelSet) -> Refinement:
    refinement = (
        Refinement.objects.select_related("qrel_set__dataset", "pool", "original")
        .filter(qrel_set=qrel_set)
        .first()
    )
    if refinement is None:
        raise ExportError(f"qrel set {qrel_set.name!r} was not refined: no benchmark to make")
    return refinement


def benchmark_stamp(*, qrel_set: QrelSet) -> str:
    """16 hex digits naming what a benchmark zip of ``qrel_set`` holds beyond the refined set
    itself: the layout version and the README as it would be written now.
    Raises :class:`ExportError` for a set that was not refined."""
    readme = datasheet_render(sheet=benchmark_datasheet(refinement=_refinement(qrel_set)))
    return hashlib.sha256(f"{LAYOUT_VERSION}\n{readme}".encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------
# The zip


def _corpus_records(dataset: Dataset) -> Iterator[dict[str, Any]]:
    """Every document of ``dataset`` by doc id (code point), streamed in batches."""
    rows = (
        Document.objects.filter(dataset=dataset)
        .order_by(code_point("doc_id"))
        .values_list("doc_id", "title", "text")
    )
    for doc_id, title, text in rows.iterator(chunk_size=BATCH_SIZE):
        yield {"_id": doc_id, "title": title, "text": text}


def _query_records(dataset: Dataset) -> Iterator[dict[str, Any]]:
    """Every query of ``dataset`` by query id (code point), with its imported metadata (BEIR's
    ``metadata``, ``{}`` when none); reference answers are not part of BEIR's layout."""
    rows = (
        Query.objects.filter(dataset=dataset)
        .order_by(code_point("query_id"))
        .values_list("query_id", "text", "metadata")
    )
    for query_id, text, metadata in rows.iterator(chunk_size=BATCH_SIZE):
        yield {"_id": query_id, "text": text, "metadata": metadata or {}}


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED  # at zlib's default level (ZipInfo's None)
    info.create_system = 3  # Unix on every platform: the attributes below are a Unix mode
    info.external_attr = 0o100644 << 16  # a regular file, rw-r--r--
    return info


def _entry_write(
    archive: zipfile.ZipFile, name: str, write: Callable[[io.TextIOWrapper], int]
) -> int:
    """Stream one text entry: ``write(out)`` writes UTF-8 text to it and returns its rows.
    ZIP64 always, since a corpus can pass 2 GiB and the size is not known beforehand."""
    with archive.open(_entry(name), mode="w", force_zip64=True) as raw:
        out = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        rows = write(out)
        out.flush()
        out.detach()  # the ``with`` closes the entry
    return rows


def _file_digest(path: Path) -> tuple[int, str]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def benchmark_zip_write(*, qrel_set: QrelSet, path: Path) -> tuple[int, int, str]:
    """Write the benchmark zip of refined set ``qrel_set`` to ``path`` (a new file; the
    caller renames it into place); return ``(qrels rows, bytes, sha256 hex)``.

    Entries, in this order: README.md, corpus.jsonl, queries.jsonl, qrels/<split>.tsv (the
    module docstring). The qrels are :func:`corpora.services.qrels_export` in ``beir``
    format, byte for byte the ``beir`` export. Raises :class:`ExportError` for a set that
    was not refined.
    """
    refinement = _refinement(qrel_set)
    sheet = benchmark_datasheet(refinement=refinement)
    dataset = refinement.qrel_set.dataset
    folder = sheet.folder
    with open(path, "wb") as raw, zipfile.ZipFile(raw, mode="w") as archive:
        archive.writestr(_entry(f"{folder}/README.md"), datasheet_render(sheet=sheet))
        _entry_write(
            archive,
            f"{folder}/corpus.jsonl",
            lambda out: write_jsonl(_corpus_records(dataset), out),
        )
        _entry_write(
            archive,
            f"{folder}/queries.jsonl",
            lambda out: write_jsonl(_query_records(dataset), out),
        )
        rows = _entry_write(
            archive,
            f"{folder}/qrels/{sheet.split}.tsv",
            lambda out: qrels_export(qrel_set=refinement.qrel_set, out=out, fmt="beir"),
        )
    size, digest = _file_digest(path)
    return rows, size, digest
