"""Debate jobs and their controls: :func:`debate_job_create` makes a running job with one
pending :class:`~debates.models.Debate` per pair of its pool (canonical order, optionally the
first N), :func:`debate_job_start` enqueues them, :func:`debate_job_extend` adds debates for
pairs added to the pool since; :func:`debate_job_pause`, :func:`debate_job_resume`,
:func:`debate_job_cancel` and :func:`debate_job_retry_failed` change a job's status, each
in one transaction with its debates sent to Celery only after commit
(:func:`debates.services.run._enqueue`)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from corpora.models import Pool
from debates.api_keys import api_keys_encrypt
from debates.engine import DebateConfig
from debates.models import Debate, DebateJob
from debates.services.backends import agent_config_validate
from debates.services.common import DebateJobError, _pairs_in_order
from debates.services.run import _enqueue, _job_finish_if_done, _pending_ids


def _add_debates(job: DebateJob, limit: int | None) -> list[int]:
    """Create a pending Debate for each pair of the job's pool that has none yet, in canonical
    order, at most ``limit``; return their ids."""
    pairs = _pairs_in_order(job.pool).exclude(
        Exists(Debate.objects.filter(job=job, pair=OuterRef("pk")))
    )
    pair_ids = list(
        pairs.values_list("pk", flat=True)[:limit] if limit else pairs.values_list("pk", flat=True)
    )
    created = Debate.objects.bulk_create(
        [Debate(job=job, pair_id=pk) for pk in pair_ids], batch_size=2000
    )
    return [d.pk for d in created]


@sensitive_variables("api_keys")
def debate_job_create(
    *,
    pool: Pool,
    agent_a: dict[str, Any] | None = None,
    agent_b: dict[str, Any] | None = None,
    rounds: int = 2,
    temperature: float = 0.0,
    max_tokens: int = 384,
    prompt_version: str = "",
    limit: int | None = None,
    created_by: Any = None,
    scale: str = "binary",
    max_grade: int | None = None,
    consensus: str = "exact",
    judgments_per_pair: int = 1,
    audit_share: float = 0.02,
    note: str = "",
    api_keys: dict[str, str] | None = None,
) -> DebateJob:
    """Create a running job with one pending Debate per pair of ``pool`` (nothing enqueued;
    see :func:`debate_job_start`).

    ``agent_a`` argues the initial stance "relevant", ``agent_b`` "irrelevant"; each is a
    backend config (default: embedded; ``agent_b`` defaults to ``agent_a``), stored safe (no
    API key). ``api_keys`` maps agent "A"/"B" to an API key typed in the job form: kept only
    encrypted (:mod:`debates.api_keys`), only for openai agents, agent B taking A's key when
    ``agent_b`` is None; a key wins over the config's environment variable.
    ``rounds`` is R (1..5), ``max_tokens`` the completion budget per call.
    ``scale`` "binary" (DREAM) or "graded": grades 0..G, G = ``max_grade`` or, when None, the
    pool's qrels top grade (:func:`corpora.selectors.qrels_top_grade`); ``consensus`` "exact"
    or "binary" (:func:`debates.engine.consensus_label`). ``prompt_version`` "" takes this
    code's version for the scale (stored on the job and every turn).
    ``limit`` takes only the first N pairs in canonical order (query id, then doc id, by code
    point). One transaction. Raises DebateJobError for invalid settings or an empty pool.
    """
    config_a = agent_config_validate(agent_a, agent="A")
    config_b = agent_config_validate(agent_b if agent_b is not None else agent_a, agent="B")
    if scale == "graded" and max_grade is None:
        from corpora.selectors import qrels_top_grade

        max_grade = qrels_top_grade(qrel_set=pool.qrel_set)
    try:
        config = DebateConfig(
            rounds=rounds,
            temperature=temperature,
            max_tokens=max_tokens,
            scale=scale,
            max_grade=1 if max_grade is None else max_grade,
            consensus=consensus,
        )
    except ValueError as exc:
        raise DebateJobError(str(exc)) from None
    prompt_version = prompt_version or config.prompt_version
    if prompt_version != config.prompt_version:
        raise DebateJobError(
            f"prompt version {prompt_version!r} is not available for {scale} debates "
            f"(this code has {config.prompt_version!r})"
        )
    if limit is not None and limit < 1:
        raise DebateJobError(f"limit must be at least 1, got {limit}")
    if judgments_per_pair < 1:
        raise DebateJobError(f"judgments per pair must be at least 1, got {judgments_per_pair}")
    if not 0.0 <= audit_share <= 1.0:
        raise DebateJobError(f"audit share must be between 0 and 1, got {audit_share}")
    keys = {agent: key for agent, key in (api_keys or {}).items() if key}
    if agent_b is None and "A" in keys:
        keys.setdefault("B", keys["A"])
    for agent, cfg in (("A", config_a), ("B", config_b)):
        if cfg.get("backend") != "openai":
            keys.pop(agent, None)
    try:
        encrypted = api_keys_encrypt(keys=keys)
    except ValueError as exc:
        raise DebateJobError(f"api_keys: {exc}") from None
    with transaction.atomic():
        job = DebateJob.objects.create(
            pool=pool,
            agent_a=config_a,
            agent_b=config_b,
            rounds=rounds,
            temperature=temperature,
            max_tokens=max_tokens,
            prompt_version=prompt_version,
            scale=config.scale,
            max_grade=config.max_grade,
            consensus=config.consensus,
            pair_limit=limit,
            judgments_per_pair=judgments_per_pair,
            audit_share=audit_share,
            note=note,
            api_keys_encrypted=encrypted,
            created_by=created_by,
        )
        if not _add_debates(job, limit):
            raise DebateJobError(f"pool {pool} has no pairs to debate")
    return job


def _locked(job: DebateJob) -> DebateJob:
    return DebateJob.objects.select_for_update().get(pk=job.pk)


def debate_job_start(*, job: DebateJob, enqueue: bool = True) -> int:
    """Mark a running job started and enqueue its pending debates after commit.

    With ``enqueue=False`` nothing is sent (the caller runs the debates in-process, see
    :func:`debate_job_run_inline`). Returns the number of pending debates. Raises
    DebateJobError unless the job is running.
    """
    with transaction.atomic():
        locked = _locked(job)
        if locked.status != DebateJob.Status.RUNNING:
            raise DebateJobError(f"job {job.pk} is {locked.status}; only a running job starts")
        if locked.started is None:
            locked.started = timezone.now()
            locked.save(update_fields=["started"])
        pending = _pending_ids(locked)
        if enqueue:
            _enqueue(pending)
    job.refresh_from_db()
    return len(pending)


def debate_job_extend(*, job: DebateJob, limit: int | None = None, enqueue: bool = True) -> int:
    """Create Debates for the pool's pairs that have none in this job (pairs added to the pool
    since), at most ``limit``, in canonical order; earlier debates are never repeated.

    A finished job runs again; the new debates of a running job are enqueued after commit.
    Returns the number created. Raises DebateJobError for a cancelled job.
    """
    with transaction.atomic():
        locked = _locked(job)
        if locked.status == DebateJob.Status.CANCELLED:
            raise DebateJobError(f"job {job.pk} is cancelled")
        created = _add_debates(locked, limit)
        if created and locked.status == DebateJob.Status.FINISHED:
            locked.status, locked.finished = DebateJob.Status.RUNNING, None
            locked.save(update_fields=["status", "finished"])
        if created and enqueue and locked.status == DebateJob.Status.RUNNING:
            _enqueue(created)
    job.refresh_from_db()
    return len(created)


def debate_job_pause(*, job: DebateJob) -> None:
    """Pause a running job: queued debates do nothing, running ones stop before their next LLM
    call (turns kept). Raises DebateJobError unless the job is running."""
    if not DebateJob.objects.filter(pk=job.pk, status=DebateJob.Status.RUNNING).update(
        status=DebateJob.Status.PAUSED
    ):
        job.refresh_from_db()
        raise DebateJobError(f"job {job.pk} is {job.status}; only a running job can be paused")
    job.refresh_from_db()


def debate_job_resume(*, job: DebateJob, enqueue: bool = True) -> int:
    """Resume a paused job: enqueue its pending debates again (a debate queued twice runs
    once). Returns the number enqueued. Raises DebateJobError unless the job is paused."""
    with transaction.atomic():
        locked = _locked(job)
        if locked.status != DebateJob.Status.PAUSED:
            raise DebateJobError(f"job {job.pk} is {locked.status}; only a paused job resumes")
        locked.status = DebateJob.Status.RUNNING
        locked.started = locked.started or timezone.now()
        locked.save(update_fields=["status", "started"])
        pending = _pending_ids(locked)
        if enqueue:
            _enqueue(pending)
    _job_finish_if_done(job.pk)
    job.refresh_from_db()
    return len(pending)


def debate_job_cancel(*, job: DebateJob) -> None:
    """Cancel a running or paused job for good: no further debate starts, running ones stop
    before their next LLM call; finished debates and stored turns are kept.
    Raises DebateJobError for a finished or cancelled job."""
    if not DebateJob.objects.filter(
        pk=job.pk, status__in=[DebateJob.Status.RUNNING, DebateJob.Status.PAUSED]
    ).update(status=DebateJob.Status.CANCELLED, finished=timezone.now()):
        job.refresh_from_db()
        raise DebateJobError(f"job {job.pk} is {job.status}; it cannot be cancelled")
    job.refresh_from_db()


def debate_job_retry_failed(*, job: DebateJob, enqueue: bool = True) -> int:
    """Give the job's failed debates a fresh set of attempts: back to pending (stored turns and
    the last error kept), a finished job running again, and enqueued if the job is running.
    Returns how many. Raises DebateJobError for a cancelled job."""
    with transaction.atomic():
        locked = _locked(job)
        if locked.status == DebateJob.Status.CANCELLED:
            raise DebateJobError(f"job {job.pk} is cancelled")
        failed = list(
            locked.debates.filter(status=Debate.Status.FAILED).values_list("pk", flat=True)
        )
        Debate.objects.filter(pk__in=failed).update(
            status=Debate.Status.PENDING, attempts=0, finished=None
        )
        if failed and locked.status == DebateJob.Status.FINISHED:
            locked.status, locked.finished = DebateJob.Status.RUNNING, None
            locked.save(update_fields=["status", "finished"])
        if enqueue and locked.status == DebateJob.Status.RUNNING:
            _enqueue(failed)
    job.refresh_from_db()
    return len(failed)


def debate_job_get(*, pk: int) -> DebateJob:
    """The job with this id. Raises ``DebateJob.DoesNotExist``."""
    return DebateJob.objects.select_related("pool__dataset").get(pk=pk)
