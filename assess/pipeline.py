"""The main job, end to end: runs → pool → DREAM debates → refined qrels → re-benchmark.

``pipeline_run`` chains the services of every app on one imported dataset. Each step is
idempotent, so running the pipeline again reuses finished runs, the pool, the debate job (a
stopped job is resumed; no LLM call for a stored turn is repeated) and the refined qrel set.
With no broker configured the debates run in this process; with ``CELERY_BROKER_URL`` set
they are queued for ``celery -A config worker`` processes and this function follows their
progress in the database.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import Count, F
from tqdm import tqdm

from core.broker import tasks_run_in_process
from core.text import plural
from corpora.formats import relevance_level_check
from corpora.models import Dataset, Pool, QrelSet, Run
from corpora.services import (
    PoolError,
    pool_build,
    qrel_set_get,
    qrels_export,
    run_create,
    run_retrieve,
)
from corpora.simulated import simulated_filename
from debates.audit_design import allocation_describe
from debates.llm.config import AgentConfig
from debates.models import Debate, DebateJob
from debates.services import (
    DebateJobError,
    JobSpec,
    agent_config_validate,
    debate_job_launch,
    debate_job_progress,
    debate_job_resume_launch,
    debate_job_wait,
    job_agents_describe,
    job_scale_describe,
    tokens_describe,
)
from debates.services.human import (
    debate_job_audit_share_set,
    debate_job_budget_set,
    debate_job_gold_share_set,
)
from debates.services.launch import JobOptions
from debates.services.progress import JobProgress
from debates.services.stage0_route import debate_job_stage0_prepare, stage0_waiting
from debates.services.worker_wait import worker_warning_watch

from .evaluation.rebench import RebenchError, rebench_compute
from .evaluation.refined_intervals import interval_tables, refined_simulated, report_intervals
from .evaluation.tables import format_text, rebench_tables, relevance_note
from .models.bundled import refined_bundled_warning
from .models.simulated import (
    JOB_SIMULATED_SCOPE,
    SIMULATED_KINDS,
    SIMULATED_SOURCES,
    SimulatedRow,
    qrel_set_simulated_rows,
    simulated_rows_counts,
    simulated_sentence,
    simulated_tag,
)
from .refined.cost import SIMULATED_COST_NOTE, format_costs
from .refined.refine import (
    qrels_refine,
    refinement_budget_get,
    refinement_get,
    relevant_grade_check,
)
from .refined.selectors import refined_costs
from .review.next_step import next_step_lines
from .review.services import review_items_sync
from .review.simulated_marks import job_simulated, job_simulated_labels

Echo = Callable[[str], None]


@dataclass
class PipelineReport:
    """What one pipeline run produced (ids and counts; the tables were echoed)."""

    dataset: str
    runs: list[str]
    pool: str
    query_ids: list[str]
    pairs: int
    job_id: int
    counts: dict[str, int]
    refined: str
    refined_file: Path
    refined_rows: int
    # Pairs still due (no final label yet); a budgeted pool's pairs beyond its budget, left
    # unjudged by design, are counted apart in beyond_budget.
    pending: int
    beyond_budget: int = 0
    seconds: dict[str, float] = field(default_factory=dict)


# The human side of a job: a reused job keeps its own values unless the run gives one.
HUMAN_OPTIONS = frozenset({"audit_share", "gold_share", "human_budget"})


@dataclass(frozen=True, kw_only=True)
class PipelineSpec:
    """What one pipeline run does: the debate job's options (``job``; its ``agent_a`` is
    both agents' config, None the embedded model; its ``note`` is "pipeline") and the
    pipeline's own.

    ``retrievers`` are built-in retrievers (``bm25``, ``dense``) whose runs (top ``k`` for the
    queries judged in ``qrels``) are created or reused; ``depth`` is the pool depth;
    ``queries`` bounds the pool to the first N judged query ids (code-point order; None: all).
    Consensus grades go into the refined set as they are, a binary label 1 as
    ``relevant_grade``. The re-benchmark counts grade >= ``rel_level`` as relevant and, with
    ``exp_gain``, adds nDCG@10 with gains 2^grade - 1. A batch-mode job's batches are polled
    every ``batch_poll_seconds``. With ``next_step``, the run ends with what people are to do
    when escalated or audit items wait (:func:`assess.review.next_step.next_step_lines`;
    the demo says its own). The refined qrel set (default name
    ``<qrels>-dream-<pool>``) is written as TREC qrels to ``out_dir`` (default
    ``var/exports``). ``human_given``: the options of :data:`HUMAN_OPTIONS` the run sets on
    a reused job (the others keep the job's values; a new job takes ``job``'s).
    """

    job: JobOptions = field(default_factory=JobOptions)
    human_given: frozenset[str] = frozenset()
    retrievers: Sequence[str] = ("bm25", "dense")
    depth: int = 10
    queries: int | None = None
    qrels: str = "test"
    k: int = 100
    refined_name: str | None = None
    out_dir: Path | None = None
    relevant_grade: int = 1
    rel_level: int = 1
    exp_gain: bool = False
    batch_poll_seconds: float = 30.0
    next_step: bool = True

    @classmethod
    def of(cls, *, agent: AgentConfig | None = None, **options: Any) -> PipelineSpec:
        """A spec from keywords: ``agent`` (both agents), any :class:`PipelineSpec` field and
        any job option (:class:`~debates.services.launch.JobOptions`); the human-side options
        given are ``human_given``. Raises TypeError for a name that is neither."""
        own = {f.name for f in fields(cls)} - {"job", "human_given"}
        job = {name: value for name, value in options.items() if name not in own}
        given = HUMAN_OPTIONS & {name for name, value in job.items() if value is not None}
        job = {name: value for name, value in job.items() if value is not None}
        return cls(
            job=JobOptions(agent_a=agent, **job),
            human_given=frozenset(given),
            **{name: value for name, value in options.items() if name in own},
        )


def _run_ensure(*, dataset: Dataset, retriever: str, qrels: str, k: int, echo: Echo) -> Run:
    run = Run.objects.filter(dataset=dataset, name=retriever).first()
    if run is None or run.status != Run.Status.DONE:
        if run is None:
            run = run_create(dataset=dataset, retriever=retriever, k=k, queries=qrels)
        echo(f"retrieving with {retriever} (top {k} per query)")
        run = run_retrieve(run=run, progress=True)
    else:
        echo(f"run {retriever}: already done, reused")
    return run


def _first_queries(qrel_set: QrelSet, limit: int | None) -> list[str]:
    ids = sorted(set(qrel_set.qrels.values_list("query__query_id", flat=True)))
    return ids[:limit] if limit else []


def _job_ensure(*, pool: Pool, pairs: int, spec: PipelineSpec, echo: Echo) -> DebateJob:
    """The pool's debate job: the existing one when it debates the same pairs with the same
    agents, R, scale and consensus rule (and ``prompt_version``, when one is asked: ""
    reuses the job's, e.g. a dream-v1 job made before dream-v2), else a new one (""
    takes this code's default version). Raises DebateJobError when the pool was debated with
    other agents, another R, scale, rule or asked prompt version, or has grown since (another
    retriever): final labels are per pool, so a second job's labels would mix with the
    first's."""
    options = spec.job
    agent = agent_config_validate(options.agent_a)
    job = (
        DebateJob.objects.filter(pool=pool)
        .exclude(status=DebateJob.Status.CANCELLED)
        .order_by("-created")
        .first()
    )
    if job is None:
        job = debate_job_launch(
            spec=JobSpec.of(
                pool=pool, options=options, agent_a=agent, agent_b=agent, note="pipeline"
            )
        )
        budget = options.human_budget
        echo(
            f"debate job {job.pk}: {job.debates.count()} pairs, R = {options.rounds}"
            f"{job_scale_describe(job)}, "
            f"audit share {job.audit_share:.0%} of agreed labels, "
            f"{allocation_describe(job.audit_allocation, job.audit_share)}"
            + (
                f", human budget {budget:,} pair{'' if budget == 1 else 's'}"
                if budget is not None
                else ""
            )
        )
        return job
    config = agent.dump()
    consensus = options.consensus if options.scale == "graded" else job.consensus
    asked = (config, config, options.rounds, options.scale, consensus, options.stage0)
    _job_reuse_check(job, asked=asked, pairs=pairs, prompt_version=options.prompt_version)
    echo(f"debate job {job.pk}: reused ({job.status})")
    _human_side_set(job, spec, echo)
    if job.status in (DebateJob.Status.PAUSED, DebateJob.Status.RUNNING):
        # A running job records its start if it was never started; with a broker, what is
        # pending is enqueued (again).
        debate_job_resume_launch(job=job, interrupted=True)
    return job


def _human_side_set(job: DebateJob, spec: PipelineSpec, echo: Echo) -> None:
    """Set the human-side options the run gives (``spec.human_given``) on a reused job."""
    options, given = spec.job, spec.human_given
    if "audit_share" in given and options.audit_share != job.audit_share:
        # The audit draw is monotone in the share: raising it only adds audits.
        debate_job_audit_share_set(job=job, share=options.audit_share)
        echo(f"  audit share set to {options.audit_share:.0%} of agreed labels")
    if "gold_share" in given and options.gold_share != job.gold_share:
        debate_job_gold_share_set(job=job, share=options.gold_share)
    budget = options.human_budget
    if "human_budget" in given and budget is not None and budget != job.human_budget:
        debate_job_budget_set(job=job, budget=budget)
        echo(f"  human budget set to {budget:,} pair{'' if budget == 1 else 's'}")


def _job_reuse_check(
    job: DebateJob, *, asked: tuple[Any, ...], pairs: int, prompt_version: str
) -> None:
    """Raise DebateJobError unless ``job`` has the ``asked`` (agent A, agent B, R, scale,
    consensus), the asked prompt version ("" takes any) and ``pairs`` pairs."""
    debated = job.debates.count()
    have = (job.agent_a, job.agent_b, job.rounds, job.scale, job.consensus, job.stage0)
    if have == asked and debated == pairs and prompt_version in ("", job.prompt_version):
        return
    config, _, rounds, scale, consensus, stage0 = asked
    version = f", prompts {prompt_version}" if prompt_version else ""
    raise DebateJobError(
        f"pool {job.pool.name!r} was already debated by job {job.pk} "
        f"({job_agents_describe(job, full_path=True)}, "
        f"R = {job.rounds}{job_scale_describe(job)}, "
        f"{debated} of its {pairs} pairs, prompts {job.prompt_version}); "
        f"this run asks for {agent_config_validate(config).describe(full_path=True)}, "
        f"R = {rounds}"
        f"{f', graded (consensus {consensus})' if scale == 'graded' else ''}{version}"
        f"{', stage 0 first' if stage0 else ''}"
        f"{' (the job has stage 0)' if job.stage0 and not stage0 else ''}. "
        "Labels are per pool and would mix: use a "
        "fresh database (e.g. DREAM_VAR_DIR=/tmp/dream-2 ./dream demo ...) or the same "
        "settings"
    )


def _new_grades(refinement) -> str:
    # The grades the refinement wrote (applied labels), e.g. "0: 12, 1: 3, 2: 1".
    counts = (
        refinement.provenance.filter(applied=True, original_relevance__isnull=True)
        .values_list("grade")
        .annotate(n=Count("pk"))
        .order_by("grade")
        .values_list("grade", "n")
    )
    return ", ".join(f"grade {g}: {n}" for g, n in counts) or "none"


def _debates_run(
    job: DebateJob,
    *,
    concurrency: int | None = None,
    echo: Echo = print,
    batch_poll_seconds: float = 30.0,
) -> JobProgress:
    """Run the job's debates here (no broker) or follow the workers, with a progress bar; a
    batch-mode job goes round by round through its server's Batch API instead
    (:func:`debates.services.batch_api.batch_submit_wait`), each step echoed."""
    if job.batch:
        from debates.services.batch_api import batch_submit_wait

        batch_submit_wait(
            job=job, poll_seconds=batch_poll_seconds, on_step=lambda line: echo(f"  {line}")
        )
        return debate_job_progress(job=job)
    said: list[str] = []
    if stage0_waiting(job) and tasks_run_in_process():
        # Stage 0 runs here before the debates (with a broker a worker runs it): its steps
        # (training a judge, the band, what it settled) are echoed as they happen.
        def step(line: str) -> None:
            said.append(line)
            echo(f"  stage 0: {line}")

        debate_job_stage0_prepare(job=job, progress=step)
    progress = debate_job_progress(job=job)
    bar = tqdm(
        total=progress.total, initial=progress.done, desc="debates", unit=" pairs", file=sys.stderr
    )
    watch = worker_warning_watch(job=job, say=lambda text: tqdm.write(text, file=sys.stderr))

    def moved(now: JobProgress) -> None:
        watch(now)
        bar.update(now.done - bar.n)

    try:
        progress = debate_job_wait(
            job=job, concurrency=concurrency, poll_seconds=2.0, on_progress=moved
        )
    finally:
        bar.close()
    _stage0_note_echo(job, said=said, echo=echo)
    return progress


def _stage0_note_echo(job: DebateJob, *, said: list[str], echo: Echo) -> None:
    """Echo the job's stored stage-0 note ("  stage 0: ..."), unless this process ran the
    step and its last echoed line (``said``) was that note. A worker ran it when there is a
    broker, an earlier run when the job is reused: the stored note is then all this run can
    say of what stage 0 did and what the user can do next."""
    job.refresh_from_db(fields=["stage0", "stage0_note"])
    if job.stage0 and job.stage0_note and said[-1:] != [job.stage0_note]:
        echo(f"  stage 0: {job.stage0_note}")


def pipeline_run(*, dataset: Dataset, spec: PipelineSpec, echo: Echo = print) -> PipelineReport:
    """Run the main job on ``dataset`` as ``spec`` says (:class:`PipelineSpec`) and echo each
    step's summary.

    Runs, the pool, the debate job and the refined qrel set are created or reused; the refined
    set takes consensus and human labels, with unresolved pairs listed as pending
    (``allow_partial``). Raises the services' errors (RunError, PoolError, DebateJobError,
    RefineError, RebenchError): PoolError also for an unknown ``qrels`` name or ``queries``
    < 1, DebateJobError when the pool was debated before with other agents, another R,
    another asked prompt version or fewer pairs.
    """
    steps = _Stopwatch()
    qrel_set = _options_check(
        dataset=dataset,
        qrels=spec.qrels,
        queries=spec.queries,
        relevant_grade=spec.relevant_grade,
        rel_level=spec.rel_level,
    )
    runs = [
        _run_ensure(dataset=dataset, retriever=r, qrels=spec.qrels, k=spec.k, echo=echo)
        for r in spec.retrievers
    ]
    steps.lap("retrieval")
    pool, subset = _pool_ensure(
        dataset=dataset,
        qrel_set=qrel_set,
        runs=runs,
        depth=spec.depth,
        queries=spec.queries,
        echo=echo,
    )
    pairs = pool.pairs.count()
    steps.lap("pool")
    job = _job_ensure(pool=pool, pairs=pairs, spec=spec, echo=echo)
    progress = _debates_run(
        job,
        concurrency=spec.job.concurrency,
        echo=echo,
        batch_poll_seconds=spec.batch_poll_seconds,
    )
    counts = _debates_report(job, progress, echo)
    steps.lap("debates")
    name = spec.refined_name or f"{spec.qrels}-dream-{pool.name}"
    refined, path, rows, (pending, beyond) = _refined_ensure(
        pool=pool,
        qrel_set=qrel_set,
        name=name,
        relevant_grade=spec.relevant_grade,
        out_dir=Path(spec.out_dir or Path(settings.VAR_DIR) / "exports"),
        echo=echo,
    )
    steps.lap("refine")
    _rebench_report(
        refined=refined, runs=runs, rel_level=spec.rel_level, exp_gain=spec.exp_gain, echo=echo
    )
    steps.lap("rebenchmark")
    if spec.next_step:
        _next_step_echo(job, pool=f"{dataset.slug}/{pool.name}", echo=echo)
    return PipelineReport(
        dataset=dataset.slug,
        runs=[r.name for r in runs],
        pool=pool.name,
        query_ids=subset,
        pairs=pairs,
        job_id=job.pk,
        counts=counts,
        refined=name,
        refined_file=path,
        refined_rows=rows,
        pending=pending,
        beyond_budget=beyond,
        seconds=steps.total(),
    )


def _next_step_echo(job: DebateJob, *, pool: str, echo: Echo) -> None:
    """Echo what people are to do next when items of ``job`` wait in the review queue, after
    a sync: items are made as debates end, and the sync also draws a Neyman audit's second
    phase once its pilot is in (a reused job's may be)."""
    review_items_sync(job=job)
    lines = next_step_lines(job=job, pool=pool)
    if lines:
        echo("")
    for line in lines:
        echo(line)


class _Stopwatch:
    """Seconds per pipeline step (``lap`` ends one) and in all (``total``)."""

    def __init__(self) -> None:
        self.started = self.mark = time.monotonic()
        self.seconds: dict[str, float] = {}

    def lap(self, step: str) -> None:
        now = time.monotonic()
        self.seconds[step], self.mark = now - self.mark, now

    def total(self) -> dict[str, float]:
        return {**self.seconds, "total": time.monotonic() - self.started}


def _options_check(
    *, dataset: Dataset, qrels: str, queries: int | None, relevant_grade: int, rel_level: int
) -> QrelSet:
    """The qrel set named ``qrels``, after checking every option that could otherwise refuse
    the run after its debates (and waste them)."""
    if queries is not None and queries < 1:
        raise PoolError(f"queries must be at least 1 (or None for all), got {queries}")
    try:
        qrel_set = qrel_set_get(dataset=dataset, name=qrels)
    except QrelSet.DoesNotExist:
        names = ", ".join(dataset.qrel_sets.order_by("name").values_list("name", flat=True))
        raise PoolError(
            f"dataset {dataset.slug!r} has no qrel set {qrels!r} (it has: {names or 'none'})"
        ) from None
    relevant_grade_check(original=qrel_set, relevant_grade=relevant_grade)
    try:
        relevance_level_check(rel_level)
    except ValueError as exc:
        raise RebenchError(str(exc)) from None
    return qrel_set


def _pool_ensure(
    *,
    dataset: Dataset,
    qrel_set: QrelSet,
    runs: list[Run],
    depth: int,
    queries: int | None,
    echo: Echo,
) -> tuple[Pool, list[str]]:
    """The pool of ``runs`` at ``depth`` over the first ``queries`` judged queries (built or
    reused), echoed; returns it with the query subset ([] for all)."""
    subset = _first_queries(qrel_set, queries)
    pool_name = f"{qrel_set.name}-d{depth}" + (f"-q{len(subset)}" if subset else "")
    report = pool_build(
        dataset=dataset, qrel_set=qrel_set, runs=runs, depth=depth, name=pool_name, queries=subset
    )
    pool = report.pool
    echo(
        f"pool {pool.name}: {pool.pairs.count()} unjudged pairs from "
        f"{', '.join(r.name for r in runs)} at depth {depth} over {len(subset) or 'all'} "
        f"judged queries ({report.created_pairs} new)"
    )
    if dataset.exclude_identical_ids:
        self_pairs = pool.pairs.filter(query__query_id=F("document__doc_id")).count()
        echo(
            f"  identical ids excluded: {self_pairs} self-pairs in the pool; "
            f"{report.result.excluded_left_out} run entries ranking a query's own document "
            "were not pooled"
        )
    return pool, subset


def _debates_report(job: DebateJob, progress: JobProgress, echo: Echo) -> dict[str, int]:
    """Echo how the debates ended (by round, grade and escalation reason); return the counts."""
    counts = {
        "pairs": progress.total,
        "agreed": progress.agreed,
        "escalated": progress.escalated,
        "failed": progress.failed,
        "pending": progress.pending + progress.running,
    }
    # Every count of labels says how many are simulated; the line after says what that means.
    simulated = job_simulated_labels(job=job)
    agreed_simulated = simulated["debate"] + simulated["stage0"]
    calls = "simulated LLM calls (none made)" if job_simulated(job) else "LLM calls"
    echo(
        f"debates: {progress.total} pairs: {progress.agreed} agreed"
        f"{simulated_tag(agreed_simulated, progress.agreed)}, {progress.escalated} "
        f"escalated to humans, {progress.failed} failed, {counts['pending']} not finished; "
        f"{progress.per_pair(progress.calls):.1f} {calls} and "
        f"{progress.per_pair(progress.seconds):.1f} s per pair"
    )
    if said := simulated_sentence(simulated, scope=JOB_SIMULATED_SCOPE):
        echo(f"  {said}.")
    if progress.agreed_by_round:
        by_round = sum(progress.agreed_by_round.values())
        echo(
            f"  agreed by round{simulated_tag(simulated['debate'], by_round)}: "
            + ", ".join(f"round {r}: {n}" for r, n in sorted(progress.agreed_by_round.items()))
        )
    if job.scale == DebateJob.Scale.GRADED and progress.agreed:
        by_grade = dict(
            job.debates.filter(status=Debate.Status.AGREED)
            .values_list("final_label")
            .annotate(n=Count("pk"))
            .values_list("final_label", "n")
        )
        echo(
            f"  agreed by grade{simulated_tag(agreed_simulated, progress.agreed)}: "
            + ", ".join(f"grade {g}: {by_grade.get(g, 0)}" for g in range(job.max_grade + 1))
        )
    if progress.escalated_by_reason:
        echo(
            "  escalated by reason: "
            + ", ".join(f"{r}: {n}" for r, n in sorted(progress.escalated_by_reason.items()))
        )
    echo(f"  tokens: {tokens_describe(progress)}")
    return counts


def _refined_ensure(
    *,
    pool: Pool,
    qrel_set: QrelSet,
    name: str,
    relevant_grade: int,
    out_dir: Path,
    echo: Echo,
) -> tuple[QrelSet, Path, int, tuple[int, int]]:
    """The refined qrel set ``name`` (created, or reused as it is), written as TREC qrels to
    ``out_dir``, with its cost per final label echoed. Returns (set, file, rows, (pending,
    beyond budget)): the pairs with no final label still due, and apart those beyond a
    budgeted pool's budget, left unjudged by design."""
    refined = QrelSet.objects.filter(dataset=pool.dataset, name=name).first()
    if refined is None:
        refined = qrels_refine(
            pool=pool, name=name, allow_partial=True, relevant_grade=relevant_grade
        ).qrel_set
        echo(f"refined qrels {name}: created")
    else:
        echo(
            f"refined qrels {name}: already exists, reused (human labels given since are in a "
            "new refined set: Refine on the refined qrels page, or the refine command)"
        )
    refinement = refinement_get(qrel_set=refined)
    # The refinement's own count: a set refined before the reason "beyond budget" was stored
    # keeps its pairs beyond the budget among the label-null rows, as "not debated".
    pending = refinement.unresolved
    budget = refinement_budget_get(refinement=refinement)
    beyond = budget.beyond
    out_dir.mkdir(parents=True, exist_ok=True)
    # A TREC file has no room for a comment: a set with simulated labels says so in its name.
    marks = qrel_set_simulated_rows(qrel_set=refined)
    path = out_dir / simulated_filename(
        f"{pool.dataset.slug}-{name}.trec", simulated_rows_counts(marks)
    )
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        rows = qrels_export(qrel_set=refined, out=handle, fmt="trec")
    new = rows - qrel_set.qrels.count()
    own = _own_simulated(marks, name=name)
    # The new rows: its own labels that have a row (a query's own document left out has none).
    tag = simulated_tag(sum(row.made_in == name and row.in_qrels for row in marks.values()), new)
    echo(
        f"refined qrels: {rows} rows = {qrel_set.qrels.count()} original + "
        f"{new} new labels{tag}; {plural(pending, 'pair')} pending (no final "
        f"label yet: escalated to humans, failed, or still running) → {path}"
    )
    if beyond:
        of = "" if budget.budget is None else f" of {budget.budget:,}"
        now = "" if budget.recorded else " (the pool's budget now: not recorded when refined)"
        echo(
            f"  {plural(beyond, 'pair')} beyond the pool's budget{of}{now}: never debated, "
            "left unjudged by design (not pending)"
        )
    echo(f"  new rows by grade{tag}: {_new_grades(refinement)}")
    # What every final label cost, split by where it came from (consensus, humans), so a
    # researcher can weigh the refinement against its price.
    costs = refined_costs(qrel_set=refined)
    # Labels of batch-mode jobs are priced at the batch prices: say so in the heading too.
    batch = ", batch prices for batch-mode jobs" if costs["all"].batch_labels else ""
    echo(
        f"cost per final label (LLM prices: DREAM_LLM_PRICES{batch}; human: "
        "DREAM_HUMAN_PRICE_PER_HOUR)"
    )
    for line in format_costs(costs, simulated=own):
        echo(line)
    if own["consensus"]:
        echo(f"  {SIMULATED_COST_NOTE}")
    return refined, path, rows, (pending, beyond)


def _own_simulated(marks: dict[tuple[int, int], SimulatedRow], *, name: str) -> dict[str, int]:
    """``{final-label source: n}``: the simulated labels among the refined set ``name``'s own
    final labels (``marks``: its :func:`qrel_set_simulated_rows`; the rows it copied are its
    original's), by the source the costs are split by."""
    made = simulated_rows_counts({key: row for key, row in marks.items() if row.made_in == name})
    return {
        source: made[kind] for kind, source in zip(SIMULATED_KINDS, SIMULATED_SOURCES, strict=True)
    }


def _rebench_report(
    *, refined: QrelSet, runs: list[Run], rel_level: int, exp_gain: bool, echo: Echo
) -> None:
    """Echo the re-benchmark table of ``runs``: the refinement's original vs refined qrels."""
    dataset, qrel_set = refined.dataset, refinement_get(qrel_set=refined).original
    rebench = rebench_compute(
        dataset=dataset,
        original=qrel_set,
        refined=refined,
        runs=runs,
        use_cache=False,
        rel_level=rel_level,
        exp_gain=exp_gain,
    )
    echo(
        f"\nre-benchmark of {', '.join(rebench.runs)}: original {qrel_set.name} vs refined "
        f"{refined.name}"
    )
    simulated = simulated_sentence(refined_simulated(refined=refined))
    if simulated:  # said before any table: they all rest on these labels
        echo(f"{simulated}.")
    if bundled := refined_bundled_warning(qrel_set=refined):
        echo(f"Labels from a tiny model, not for a benchmark. {bundled}")
    if rebench.self_entries_note():
        echo(rebench.self_entries_note())
    echo(relevance_note(rebench.result))
    found = report_intervals(
        report=rebench, original=qrel_set, refined=refined, rel_level=rel_level
    )
    echo(format_text(rebench_tables(rebench.result, per_query=False, deltas=found.deltas())))
    echo(format_text(interval_tables(found)))
