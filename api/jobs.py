"""Debate jobs, their review figures, refined sets and re-benchmark tables over HTTP.

A job is created with the options of the job form (:class:`JobIn`: the same
:class:`~debates.services.launch.JobSpec`, agents as typed configs) through the one launch
service, and steered with pause, resume, cancel and retry-failed (the failed pairs only);
reading needs the researcher or admin role, everything else the admin role.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import (
    Any,
    Literal,
    cast,
)

from django.db import transaction
from django.http import HttpRequest
from ninja import Field, Header, Query, Router, Schema, Status
from ninja.errors import HttpError, ValidationError
from pydantic import ValidationError as PydanticValidationError

from assess.evaluation.budget import job_budget
from assess.evaluation.rebench import RebenchError, rebench_compute
from assess.evaluation.refined_intervals import report_intervals
from assess.evaluation.tables import leaderboards_json, ranking_json, rebench_tables
from assess.models.bundled import refined_bundled_warning
from assess.refined.operations import refinement_start
from assess.refined.refine import (
    RefineError,
    RefinementBudget,
    open_disagreements_count,
    open_disagreements_sentence,
    refinement_budgets_get,
)
from assess.refined.selectors import refined_costs, refined_sources, refinements_of
from assess.review.audit import audit_phase, audit_pilot_waiting, audit_strata
from assess.review.calibration import job_calibration
from assess.review.selectors import job_agreement, job_audit, job_queue_counts
from assess.review.simulated_marks import job_simulated_labels
from assess.review.stage0_report import job_stage0_report
from core.fixes import error_worded
from corpora.formats import RELEVANCE_MAX
from debates.llm.config import config_shown
from debates.models import DebateJob
from debates.reuse import key_short
from debates.services import (
    DebateJobError,
    JobSpec,
    debate_job_cancel,
    debate_job_launch,
    debate_job_pause,
    debate_job_progress,
)
from debates.services.backends import agent_config_build, stored_agents_permit
from debates.services.common import AgentConfigError
from debates.services.failures import job_counts
from debates.services.idempotency import (
    IdempotencyKeyError,
    IdempotencyKeyReused,
    job_create_idempotent,
)
from debates.services.launch import (
    DuplicateJobError,
    debate_job_resume_launch,
    debate_job_retry_launch,
    debate_job_warnings,
)
from debates.services.worker_wait import debate_job_worker_warning

from .common import (
    MAX_ID,
    WRITE,
    OperationOut,
    PageNumber,
    RowId,
    StrictIn,
    Whole,
    dataset_or_404,
    header_text,
    page_bounds,
    pool_or_404,
    qrel_set_or_404,
)
from .errors import error_responses
from .job_failures import FailureOut, JobCountsOut, failures_first_page
from .job_inputs import IdempotencyKeyIn, JobIn

router = Router(tags=["jobs"])


# The closed sets of a job's fields, as enums in the OpenAPI document (a test holds them to
# the model's choices).
JobStatus = Literal["running", "paused", "cancelled", "finished"]
JobScale = Literal["binary", "graded"]
JobAuditAllocation = Literal["proportional", "neyman"]
JobStage0State = Literal["", "waiting", "training", "routing", "done"]


class JobOut(Schema):
    id: int
    status: JobStatus
    pool: int
    dataset: str
    rounds: int
    scale: JobScale
    max_tokens: int
    #: The cap as the job was launched with it (null: none set), so that a job's JSON sent
    #: back launches the same job; ``max_tokens_cap_applied`` is the most a re-ask of a cut
    #: reply gets: that cap, or the default (twice ``max_tokens``,
    #: ``max_tokens_cap_default`` true) when it set none, as the labels JSONL says.
    max_tokens_cap: int | None
    max_tokens_cap_applied: int
    max_tokens_cap_default: bool
    prompt_version: str
    agents: list[dict[str, Any]] = Field(
        description="Agent A's and B's backend configs as stored; a simulated agent's truth "
        "file by its name only (the folder is the server's)."
    )
    progress: dict[str, Any]
    created: datetime
    finished: datetime | None
    url: str
    page: str
    batch: bool
    audit_share: float
    #: How the audit share is spread over the strata: "proportional" or "neyman".
    audit_allocation: JobAuditAllocation
    gold_share: float
    #: Stage 0 (a cheap calibrated judge settling the pairs it is sure of before any debate):
    #: on or off, its state ("", "waiting", "training", "routing", "done"), what it did in
    #: words, its band (alpha, delta, beta, n, relevant, low, high: {bound, settled, errors,
    #: p_value, missed}, message, simulated) and the judge's model hash.
    stage0: bool = False
    stage0_state: JobStage0State = ""
    stage0_note: str = ""
    stage0_band: dict[str, Any] | None = None
    stage0_model_hash: str = ""
    #: Whether the job checks the qrels' judged pairs: its agreed pairs confirm the original
    #: label, ``progress.escalated_by_reason.suspect_original`` counts those sent to humans.
    check_judged: bool = False
    #: Whether settled debates of earlier jobs with the same reuse key were taken over, and
    #: that key (its first 12 hex digits: the dataset, both agents' configs, sampling,
    #: prompt version, scale, R and consensus rule); ``progress.reused`` counts the labels.
    reuse: bool = True
    reuse_key: str = ""
    #: Sentences to heed: why the workers paused the job (an agent the operator's settings
    #: no longer allow, naming the agent, the field and the setting); and, the job running
    #: all the same, pairs too long for the agents' context (they end escalated as
    #: "too_long"), the pairs earlier jobs of the dataset hold, reused or asked again, no
    #: Celery worker taking its debates for a minute (naming the queue).
    warnings: list[str] = []
    #: The pairs by outcome (total = settled + escalated + failed + pending + running) and
    #: the last failure's reason, as a judgment run reports them.
    counts: JobCountsOut
    #: The first page of failed pairs (each once: pair, last error, attempts); all of them,
    #: a page at a time: ``GET /jobs/{id}/failures``.
    failures: list[FailureOut] = []


def _job_out(job: DebateJob) -> JobOut:
    counted = debate_job_progress(job=job)
    progress = asdict(counted)
    return JobOut(
        id=job.pk,
        status=progress["status"],
        pool=job.pool_id,
        dataset=job.pool.dataset.slug,
        rounds=job.rounds,
        # The model's choices, checked against these enums by the API's tests.
        scale=cast(JobScale, job.scale),
        max_tokens=job.max_tokens,
        max_tokens_cap=job.max_tokens_cap,
        max_tokens_cap_applied=job.max_tokens_cap_applied,
        max_tokens_cap_default=job.max_tokens_cap is None,
        prompt_version=job.prompt_version,
        agents=[config_shown(job.agent_a), config_shown(job.agent_b)],
        progress=progress,
        created=job.created,
        finished=job.finished,
        url=f"/api/v1/jobs/{job.pk}",
        page=f"/jobs/{job.pk}/",
        batch=job.batch,
        audit_share=job.audit_share,
        audit_allocation=cast(JobAuditAllocation, job.audit_allocation),
        gold_share=job.gold_share,
        stage0=job.stage0,
        stage0_state=cast(JobStage0State, job.stage0_state),
        stage0_note=job.stage0_note,
        stage0_band=job.stage0_band,
        stage0_model_hash=job.stage0_model_hash,
        check_judged=job.check_judged,
        reuse=job.reuse,
        reuse_key=key_short(job.reuse_key),
        warnings=[
            *debate_job_warnings(job=job),
            *filter(None, [debate_job_worker_warning(job=job, progress=counted)]),
        ],
        counts=JobCountsOut.of(job_counts(job=job, progress=counted)),
        failures=failures_first_page(job, failed=counted.failed),
    )


class JobDetailOut(JobOut):
    """A job as the list shows it, plus the budget planner (:func:`assess.evaluation.budget.
    job_budget`, the job page's panel): ``{"more_human_labels": int | None,
    "target_half_width": 0.01, "measure": "nDCG@10", "undecided_pairs": [{"a", "b"}],
    "n_human": int, "error": str, "refined": str}``, from the newest refined set of the
    job's pool; ``error`` says what is missing (no refined set yet, no audit). And the
    audit's strata (not in the list: tallying them reads every judgment of the job)."""

    #: {stratum ("label L, round R"): {"size", "inclusion", "judged", "wrong"}}: agreed labels,
    #: the audit's probability, audited pairs with a human label and how many it contradicts.
    audit_strata: dict[str, dict[str, float | int]] = {}
    #: What a Neyman audit waits for, in words, by its phase: in the pilot what its next
    #: allocation waits for, after the second phase is drawn its items still to be judged
    #: (:func:`assess.review.audit.audit_pilot_waiting`); "" when nothing holds it back.
    audit_waiting: str = ""
    #: The Neyman audit's phase (:func:`assess.review.audit.audit_phase`): "pilot" while a
    #: later allocation will raise a unit's probability, "second" once its second phase is
    #: drawn (the agreed labels of debates still to end are drawn at their units' probabilities;
    #: once the debates are over, nothing more unless the share is raised); "" without phases.
    audit_phase: str = ""
    budget: dict[str, Any]
    #: The agents' calibration on gold and audited pairs (:func:`assess.review.calibration.
    #: job_calibration`): {"bins_asked", "method", "missing", "agents": [{"agent", "model",
    #: "labelled", "n", "ece", "brier", "bins": [{"count", "mean_p", "observed"}],
    #: "missing"}]}; ece and brier null (n 0) where no label probability is known.
    calibration: dict[str, Any] = {}
    #: What stage 0 did (null for a job without it; :func:`assess.review.stage0_report.
    #: job_stage0_report`): {"pairs", "settled": {"relevant", "not_relevant"}, "reused",
    #: "debated", "llm_calls_per_pair", "llm_calls_per_debated_pair", "alpha", "delta",
    #: "beta", "band_labels", "audit": {"sampled", "error": {"successes", "n", "estimate", "low",
    #: "high", "confidence", "weighted", "n_effective"}, "within_alpha"},
    #: "not_relevant_audited", "found_relevant",
    #: "lost_relevant": {"estimate", "low", "high"} | null, "simulated_human_labels",
    #: "guarantee"}: the audited error of its labels against alpha, and the relevant pairs
    #: (holes) its "not relevant" labels lost (bounded in rate when beta < 1, never in count).
    stage0_report: dict[str, Any] | None = None


def _job_or_404(job_id: int) -> DebateJob:
    job = DebateJob.objects.select_related("pool__dataset").filter(pk=job_id).first()
    if job is None:
        raise HttpError(404, f"no debate job {job_id}")
    return job


class JobPage(Schema):
    """One page of jobs (``?page=N``, ``NINJA_PAGINATION_PER_PAGE`` a page), as the other
    lists page: ``items`` and the ``count`` of all."""

    items: list[JobOut]
    count: int


@router.get("/jobs", response={200: JobPage, **error_responses(400, 422)})
def jobs_list(request: HttpRequest, page: PageNumber = 1) -> JobPage:
    """Debate jobs, newest first, with their progress, a page at a time: only the page's
    jobs are counted (a job's progress takes a few queries)."""
    jobs = DebateJob.objects.select_related("pool__dataset").order_by("-created")
    start, stop = page_bounds(page)
    return JobPage(items=[_job_out(job) for job in jobs[start:stop]], count=jobs.count())


@router.post(
    "/jobs", response={202: JobOut, **error_responses(400, 404, 409, 413, 422)}, auth=WRITE
)
def job_create(
    request: HttpRequest,
    payload: JobIn,
    idempotency_key: IdempotencyKeyIn = Header(  # noqa: B008  (django-ninja's way to declare it)
        None,
        alias="Idempotency-Key",
        description="1 to 200 printable ASCII characters, unique per intended job (e.g. a "
        "UUID): a repeat with the same "
        "key answers the first answer and launches nothing.",
    ),
) -> Status[JobOut]:
    """Launch a debate job on a pool (admin), validated and stored as the job form's; it
    runs on the workers, or in this server's process without a broker. 202 with the job.
    With an ``Idempotency-Key`` header, a repeat of the request (same key, same body, same
    user) answers the first answer again and launches nothing; the key with another body
    is a 409. Without ``allow_duplicate``, a running or paused job of the pool with the
    same debate settings is a 409."""
    fields = payload.dict(exclude={"pool", "api_keys", "agent_a", "agent_b"})
    pool = pool_or_404(payload.pool)

    def create() -> tuple[DebateJob, int, dict[str, Any]]:
        # untrusted: only the endpoints, key variables and model files the operator allows
        # (an admin token is not a shell on the server).
        agent_a, agent_b = (
            None if raw is None else agent_config_build(fields=raw, agent=name, untrusted=True)
            for name, raw in (("A", payload.agent_a), ("B", payload.agent_b))
        )
        job = debate_job_launch(
            spec=JobSpec(pool=pool, agent_a=agent_a, agent_b=agent_b, **fields),
            created_by=request.user,
            api_keys=payload.api_keys,
            background=True,
            untrusted=True,
        )
        return job, 202, _job_out(job).model_dump(mode="json")

    key = None if idempotency_key is None else header_text(idempotency_key)
    try:
        if key is None:
            with transaction.atomic():
                _, status, body = create()
        else:
            status, body = job_create_idempotent(
                user=request.user, key=key, fields=payload.dict(), create=create
            )
    except DebateJobError as exc:
        raise _job_create_refused(exc) from None
    return Status(status, _stored_answer(body))


def _stored_answer(body: dict[str, Any]) -> JobOut:
    """The answer stored for an Idempotency-Key (the first answer, replayed as it was), or,
    when it was stored in an earlier shape of JobOut that no longer validates (a field added
    since), the job as it is now: a repeat is never a 500."""
    try:
        return JobOut.model_validate(body)
    except PydanticValidationError:
        return _job_out(DebateJob.objects.get(pk=body["id"]))


def _job_create_refused(exc: DebateJobError) -> HttpError | ValidationError:
    """The API's answer to a refused launch: 409 for a duplicate of an open job or a key
    reused with another request, 422 for a malformed key or agent config (naming
    ``agent_a.model``, as a field the schema refuses), else 400."""
    if isinstance(exc, AgentConfigError):
        where = ("body", "payload", f"agent_{exc.agent.lower()}", *filter(None, [exc.field]))
        return ValidationError([{"loc": where, "msg": exc.reason, "type": "value_error"}])
    if isinstance(exc, DuplicateJobError):
        return HttpError(409, exc.said('send "allow_duplicate": true to launch it anyway'))
    if isinstance(exc, IdempotencyKeyReused):
        return HttpError(409, str(exc))
    if isinstance(exc, IdempotencyKeyError):
        head, _, reason = str(exc).partition(": ")
        return ValidationError([{"loc": ("header", head), "msg": reason, "type": "value_error"}])
    return HttpError(400, error_worded(exc, "api"))


@router.get("/jobs/{job_id}", response={200: JobDetailOut, **error_responses(404, 422)})
def job_detail(request: HttpRequest, job_id: RowId) -> JobDetailOut:
    """A job and its progress (debates by status, agreed by round, escalated by reason,
    calls and tokens), and ``budget``: about how many more human labels for +-0.01 on
    nDCG@10 and the system pairs still undecided, from the newest refined set of its pool
    (``budget.error`` says what is missing); ``calibration``: per agent n, ECE, Brier and the
    reliability bins of its label probabilities against the human labels of gold and audited
    pairs (``missing`` says in words what is lacking); ``stage0_report``: what stage 0
    settled, the audited error of its labels and the holes they lost (null without stage
    0)."""
    job = _job_or_404(job_id)
    stage0 = job_stage0_report(job=job)
    phase = audit_phase(job=job)
    return JobDetailOut(
        **_job_out(job).model_dump(),
        audit_strata={name: s.as_json() for name, s in audit_strata(job=job).items()},
        audit_waiting=audit_pilot_waiting(job=job, phase=phase),
        audit_phase=phase,
        budget=job_budget(job=job).as_json(),
        calibration=job_calibration(job=job).as_json(),
        stage0_report=stage0.as_json() if stage0 is not None else None,
    )


def _control(request: HttpRequest, job_id: int, action: str) -> JobOut:
    job = _job_or_404(job_id)
    try:
        if action in ("resume", "retry-failed"):
            # An admin token runs only what the operator allows now.
            stored_agents_permit(agents=(job.agent_a, job.agent_b), shown_in_full=False)
        if action == "pause":
            debate_job_pause(job=job)
        elif action == "cancel":
            debate_job_cancel(job=job)
        elif action == "retry-failed":
            debate_job_retry_launch(job=job, background=True)
        else:
            debate_job_resume_launch(job=job, background=True)
    except DebateJobError as exc:
        raise HttpError(409, str(exc)) from None
    return _job_out(job)


_CONTROL_RESPONSES = {200: JobOut, **error_responses(404, 409, 422)}


@router.post("/jobs/{job_id}/pause", response=_CONTROL_RESPONSES, auth=WRITE)
def job_pause(request: HttpRequest, job_id: RowId) -> JobOut:
    """Pause a running job (admin); 409 when it is not running."""
    return _control(request, job_id, "pause")


@router.post("/jobs/{job_id}/resume", response=_CONTROL_RESPONSES, auth=WRITE)
def job_resume(request: HttpRequest, job_id: RowId) -> JobOut:
    """Resume a paused job (admin); 409 when it is not paused, or when an agent names an
    endpoint, key variable or file the operator does not allow now (named as at launch)."""
    return _control(request, job_id, "resume")


@router.post("/jobs/{job_id}/cancel", response=_CONTROL_RESPONSES, auth=WRITE)
def job_cancel(request: HttpRequest, job_id: RowId) -> JobOut:
    """Cancel a running or paused job for good (admin); 409 otherwise."""
    return _control(request, job_id, "cancel")


@router.post("/jobs/{job_id}/retry-failed", response=_CONTROL_RESPONSES, auth=WRITE)
def job_retry_failed(request: HttpRequest, job_id: RowId) -> JobOut:
    """Ask the job's failed pairs again, and only them (admin): each failed debate goes back
    to pending with a fresh set of attempts and resumes from its stored turns, so no stored
    turn is asked again; a finished job runs again. 409 for a cancelled job, or one whose
    agents name what the operator does not allow now (named as at launch)."""
    return _control(request, job_id, "retry-failed")


@router.get("/jobs/{job_id}/review", response={200: dict[str, Any], **error_responses(404, 422)})
def job_review(request: HttpRequest, job_id: RowId) -> dict[str, Any]:
    """The job's human review: queue sizes (escalated and audit items, done, leased),
    agreement among annotators (Cohen's kappa, Krippendorff's alpha), the audit's
    estimate of the consensus error rate with its Wilson interval, and ``simulated`` with
    ``simulated_labels`` ({"debate", "human", "stage0"}: the job's labels from simulated
    debaters, from the simulated annotator, and from a stage-0 judge that learnt from
    simulated labels)."""
    job = _job_or_404(job_id)
    agreement = job_agreement(job=job)
    audit = job_audit(job=job)
    simulated = job_simulated_labels(job=job)
    return {
        "queue": asdict(job_queue_counts(job=job)),
        "agreement": {
            "pairs": agreement.pairs,
            "annotators": agreement.annotators,
            "kappa": agreement.kappa,
            "alpha": agreement.alpha,
        },
        "audit": _plain(asdict(audit)),
        # The review's labels marked as every report marks them: simulated debaters' debate
        # labels and the simulated annotator's judgments of this job.
        "simulated": any(simulated.values()),
        "simulated_labels": simulated,
    }


def _plain(value: Any) -> Any:
    """``value`` with anything JSON cannot carry (objects, sets) as text."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


class RefineIn(StrictIn):
    pool: Whole = Field(..., ge=1, le=MAX_ID)
    name: str = Field(..., max_length=100)
    allow_partial: bool = False
    max_unresolved: float = Field(0.05, ge=0.0, le=1.0)
    relevant_grade: Whole = Field(1, ge=1, le=RELEVANCE_MAX)
    exclude_flagged: bool = False  # leave out annotators flagged under the gold floor


def _refined_out(refinement: Any, budget: RefinementBudget) -> dict[str, Any]:
    dataset, name = refinement.qrel_set.dataset.slug, refinement.qrel_set.name
    base = f"/api/v1/datasets/{dataset}/qrels/{name}/download"
    by_source, simulated = refined_sources(refinement=refinement)
    return {
        "name": name,
        "pool": refinement.pool_id,
        "original": refinement.original.name,
        # pool_pairs = pairs (labelled + unresolved) + beyond_budget (left unjudged by design,
        # reason "beyond budget"); budget: the pool's when refined (budget_recorded false: a
        # set refined before it was stored, whose budget is the pool's now).
        "pairs": refinement.pairs,
        "unresolved": refinement.unresolved,
        "pool_pairs": budget.pool_pairs,
        "budget": budget.budget,
        "beyond_budget": budget.beyond,
        "budget_recorded": budget.recorded,
        # Escalated pairs no human settled yet (part of "unresolved"), and the sentence.
        "open_disagreements": open_disagreements_count((refinement.counts or {}).get("by_reason")),
        "open_disagreements_note": open_disagreements_sentence(
            open_disagreements_count((refinement.counts or {}).get("by_reason"))
        ),
        "new_relevant": refinement.new_relevant,
        "new_nonrelevant": refinement.new_nonrelevant,
        # by_source with the simulated labels under keys of their own ("human (simulated)").
        "counts": {**(refinement.counts or {}), "by_source": by_source},
        "simulated": any(simulated.values()),
        "simulated_labels": simulated,
        # The job page's banner when the bundled tiny model gave labels of the set ("").
        "bundled_model_warning": refined_bundled_warning(qrel_set=refinement.qrel_set),
        "exclude_flagged": refinement.exclude_flagged,
        "excluded_annotators": refinement.excluded_annotators,
        "created": refinement.created.isoformat(),
        "downloads": {
            **{fmt: f"{base}?format={fmt}" for fmt in ("trec", "beir", "labels")},
            # Made in the background: POST to it, then poll the export it answers with.
            "benchmark": f"/api/v1/datasets/{dataset}/refined/{name}/exports/benchmark",
        },
        "rebenchmark": f"/api/v1/datasets/{dataset}/refined/{name}/rebenchmark",
        "cost": {
            source: _plain(asdict(c))
            for source, c in refined_costs(qrel_set=refinement.qrel_set).items()
        },
    }


class RefinedPage(Schema):
    """One page of refined sets (each an object as ``POST`` answers) and the ``count``."""

    items: list[dict[str, Any]]
    count: int


@router.get(
    "/datasets/{slug}/refined", response={200: RefinedPage, **error_responses(400, 404, 422)}
)
def refined_list(request: HttpRequest, slug: str, page: PageNumber = 1) -> RefinedPage:
    """The dataset's refined qrel sets with their counts, cost and download URLs, a page
    at a time. Simulated labels are said: ``simulated`` (bool), ``simulated_labels``
    ``{"debate": n, "human": m, "stage0": k}`` and, in ``counts.by_source``, keys of their own
    (``"consensus (simulated)"``, ``"human (simulated)"``)."""
    refinements = refinements_of(dataset=dataset_or_404(slug))
    start, stop = page_bounds(page)
    shown = list(refinements[start:stop])
    # The page's budgets at once: one COUNT for all its sets refined before it was stored.
    budgets = refinement_budgets_get(refinements=shown)
    items = [_refined_out(r, budgets[r.pk]) for r in shown]
    return RefinedPage(items=items, count=refinements.count())


@router.post(
    "/datasets/{slug}/refined",
    response={202: OperationOut, **error_responses(400, 404, 413, 422)},
    auth=WRITE,
)
def refined_create(request: HttpRequest, slug: str, payload: RefineIn) -> Status[OperationOut]:
    """Start making a refined qrel set from a pool's current final labels (admin), as
    ``refine`` does, in the background: 202 with the operation to poll at its ``url``; once
    ``done`` its ``result`` names the set (``qrel_set`` id, ``name``; the set is then in
    ``GET /datasets/{slug}/refined``). Refused at once (400, nothing made) for a bad or
    taken name or grade, an empty pool; too many unresolved pairs without
    ``allow_partial`` fails the operation with that message, nothing made."""
    dataset = dataset_or_404(slug)
    pool = pool_or_404(payload.pool)
    if pool.dataset_id != dataset.pk:
        raise HttpError(400, f"pool {pool.pk} is not a pool of {dataset.slug}")
    try:
        operation = refinement_start(
            pool=pool,
            name=payload.name,
            allow_partial=payload.allow_partial,
            max_unresolved_share=payload.max_unresolved,
            created_by=request.user,
            relevant_grade=payload.relevant_grade,
            exclude_flagged=payload.exclude_flagged,
        )
    except RefineError as exc:
        raise HttpError(400, error_worded(exc, "api")) from None
    return Status(202, OperationOut.of(operation))


@router.get(
    "/datasets/{slug}/refined/{name}/rebenchmark",
    response={200: dict[str, Any], **error_responses(400, 404, 422)},
)
def refined_rebenchmark(
    request: HttpRequest,
    slug: str,
    name: str,
    rel_level: int = Query(1, ge=1, le=RELEVANCE_MAX, description="Lowest grade counted relevant."),
) -> dict[str, Any]:
    """Every finished run scored on the original and the refined qrels (leaderboard, rank changes,
    per-query deltas, then the ranking agreement) as JSON tables: ``title``, ``header``,
    ``rows`` (display strings), ``note``; the same leaderboards as numbers under
    ``leaderboards`` (:func:`assess.evaluation.tables.leaderboards_json`); the ranking measures
    between the original and the refined nDCG@10 leaderboard, ``kendall_tau_b``, ``tauap_b`` and
    ``kendall@10`` (as autojudge-evaluate names them), ``rbo`` (p = 0.9), each ``{"value", "n",
    ...}``; per run ``rbp`` (refined qrels) and ``rbp_original``: ``{"p": 0.8, "base",
    "residual"}``; and ``intervals``: 95% intervals on each run's refined nDCG@10, P@10 and
    R@100 from the audit's human labels (prediction-powered), the naive ones beside them, every
    run pair's difference, the share of settled pairs, Kendall's tau with its interval and,
    under ``intervals.deltas``, each run's change from the original score with its interval (the
    refined interval minus the exact original score; the rank changes' "Δ nDCG@10 [95%]"
    column); when the human sample cannot support them, ``intervals.error`` says what is
    missing. When the
    refined set corrects original grades, ``effects`` holds the leaderboards on the original
    with the corrections only, the holes only and both (its table comes last); else null.
    ``simulated`` (bool) and ``simulated_labels`` ``{"debate": n, "human": m, "stage0": k}``
    say whether the refined set's labels (copied ones included) are simulated;
    ``bundled_model_warning``, the job page's banner when the bundled tiny model gave some
    of them ("" otherwise)."""
    dataset = dataset_or_404(slug)
    refined = qrel_set_or_404(dataset, name)
    refinement = getattr(refined, "refinement", None)
    if refinement is None:
        raise HttpError(400, f"qrel set {name!r} was not refined: nothing to compare")
    try:
        report = rebench_compute(
            dataset=dataset, original=refinement.original, refined=refined, rel_level=rel_level
        )
    except RebenchError as exc:
        raise HttpError(400, str(exc)) from None
    found = report_intervals(
        report=report, original=refinement.original, refined=refined, rel_level=rel_level
    )
    tables = rebench_tables(report.result, deltas=found.deltas()) + report.effects_tables()
    intervals = found.as_json()
    return {
        **ranking_json(report.result),
        "leaderboards": leaderboards_json(report.result),
        # Said at the top as well as under "intervals": the tables rest on them too.
        "simulated": intervals["simulated"],
        "simulated_labels": intervals["simulated_labels"],
        "bundled_model_warning": refined_bundled_warning(qrel_set=refined),
        "intervals": intervals,
        "effects": report.effects.as_json() if report.effects is not None else None,
        "tables": [
            {
                "title": t.title,
                "header": list(t.header),
                "rows": [list(r) for r in t.rows],
                "note": t.note,
            }
            for t in tables
        ],
    }
