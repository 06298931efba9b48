"""Launching a debate job, the one way every caller does it (the job form, ``run_debates``,
``evaluate_assessor``, the pipeline): a :class:`JobSpec` says what to debate and how;
:func:`debate_job_launch` validates it, creates the job with one pending debate per pair, sets
its human budget and starts it; :func:`debate_job_wait` then runs it here or follows the
workers until it stops. Whether a broker is configured is asked of
:func:`core.broker.tasks_run_in_process`, as every app does.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import close_old_connections, connections, transaction
from django.views.decorators.debug import sensitive_variables

from core.broker import tasks_run_in_process
from core.names import NameRefused, text_clean
from corpora.models import Pool
from debates.api_keys import api_keys_encrypt
from debates.audit_design import ALLOCATIONS
from debates.engine import DebateConfig
from debates.llm.config import AgentConfig
from debates.models import (
    Debate,
    DebateJob,
    Stage0State,
)
from debates.reuse import KEY_FIELDS, job_reuse_key
from debates.services.backends import agent_config_permit, agent_config_validate
from debates.services.common import (
    MAX_CONCURRENCY,
    MAX_GOLD_SHARE,
    DebateJobError,
    default_concurrency,
    default_max_tokens,
)
from debates.services.human import debate_job_budget_set

# The options live in .job_options; callers have always imported them from here.
from debates.services.job_options import CALLBACK_URL_MAX as CALLBACK_URL_MAX
from debates.services.job_options import MAX_JUDGMENTS_PER_PAIR as MAX_JUDGMENTS_PER_PAIR
from debates.services.job_options import MAX_MAX_TOKENS as MAX_MAX_TOKENS
from debates.services.job_options import MAX_PAIRS as MAX_PAIRS
from debates.services.job_options import MAX_TEMPERATURE as MAX_TEMPERATURE
from debates.services.job_options import MIN_MAX_TOKENS as MIN_MAX_TOKENS
from debates.services.job_options import NOTE_MAX as NOTE_MAX
from debates.services.job_options import PROMPT_VERSION_MAX as PROMPT_VERSION_MAX
from debates.services.job_options import JobOptions as JobOptions
from debates.services.job_options import JobSpec as JobSpec
from debates.services.job_options import job_option_default as job_option_default
from debates.services.job_options import job_option_names as job_option_names
from debates.services.jobs import (
    debate_job_resume,
    debate_job_retry_failed,
    debate_job_start,
    debates_add,
)
from debates.services.leases import job_finish_if_done
from debates.services.pool_batches import pool_batch_first, pool_batch_next
from debates.services.progress import JobProgress, debate_job_progress
from debates.services.run import debate_job_run_inline
from debates.services.stage0_route import debate_job_stage0_nothing_left, stage0_options_check
from debates.services.truth_note import debate_job_truth_note_set
from debates.services.webhooks import webhook_callback_validate

log = logging.getLogger(__name__)

ProgressCallback = Callable[[JobProgress], object]  # its result is ignored


class DuplicateJobError(DebateJobError):
    """A launch refused because ``job``, running or paused on the same pool, has the same
    debate settings: a second job would debate every pair again, at the same cost."""

    def __init__(self, job: DebateJob) -> None:
        self.job = job
        super().__init__(self.said("tick “Launch a duplicate” to launch it anyway"))

    def said(self, confirm: str) -> str:
        """The refusal, ending with ``confirm``: how the interface that received the launch
        confirms a duplicate (the form's checkbox is the default)."""
        job = self.job
        return (
            f"job {job.pk} ({job.status}) already debates pool {job.pool_id} with the same "
            "settings (agents, rounds, budgets, prompt, scale, pairs): a second job would "
            f"debate every pair again; {confirm}"
        )


# The settings that decide what a job's debates cost and say; two open jobs on one pool that
# share them all debate the same pairs the same way. (Human-side shares, the note, the
# callback and concurrency do not change the debates.)
SAME_DEBATES = (
    *KEY_FIELDS,  # what shapes a reply (the reuse key), then what decides which pairs and how
    "pair_limit",
    "batch",
    "stage0",
    "stage0_alpha",
    "stage0_delta",
    "stage0_beta",
    "check_judged",
)
STAGE0_LEVELS = ("stage0_alpha", "stage0_delta", "stage0_beta")


def _same_debates(
    spec: JobSpec, agents: tuple[AgentConfig, AgentConfig], config: DebateConfig
) -> dict[str, Any]:
    """The :data:`SAME_DEBATES` fields of the job ``spec`` makes, as stored."""
    return {
        "agent_a": agents[0].dump(),
        "agent_b": agents[1].dump(),
        "rounds": config.rounds,
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "max_tokens_cap": config.max_tokens_cap,
        "prompt_version": config.prompt_version,
        "scale": config.scale,
        "max_grade": config.max_grade,
        "consensus": config.consensus,
        # Without a limit the job takes its pool's budget: compared as it will be stored.
        "pair_limit": spec.limit if spec.limit is not None else spec.pool.budget,
        "batch": spec.batch,
        "stage0": spec.stage0,
        "stage0_alpha": spec.stage0_alpha,
        "stage0_delta": spec.stage0_delta,
        "stage0_beta": spec.stage0_beta,
        "min_agreement_probability": config.min_agreement_probability,
        "check_judged": spec.check_judged,
    }


def _duplicate_refuse(pool: Pool, same: dict[str, Any]) -> None:
    """Raise DuplicateJobError when a running or paused job of ``pool`` has ``same``
    (the :data:`SAME_DEBATES` fields). Locks the pool row first, so concurrent launches on
    one pool take turns and the second sees the job the first made (no check-then-insert
    race); called inside the launch transaction, the lock holds until it commits."""
    list(Pool.objects.select_for_update().filter(pk=pool.pk).values_list("pk", flat=True))
    same = json.loads(json.dumps(same))  # as the JSON fields read back (a tuple: a list)
    open_jobs = DebateJob.objects.filter(
        pool=pool, status__in=[DebateJob.Status.RUNNING, DebateJob.Status.PAUSED]
    ).order_by("pk")
    # Stage 0's levels change nothing without stage 0 (a job made before beta existed holds
    # 1 there, a new one the default): compared only when the jobs use it ("stage0" itself
    # is always compared).
    skip = () if same.get("stage0") else STAGE0_LEVELS
    for job in open_jobs.only("pk", "pool_id", "status", *SAME_DEBATES):
        if all(getattr(job, k) == v for k, v in same.items() if k not in skip):
            raise DuplicateJobError(job)


def _debate_config(spec: JobSpec, agents: tuple[AgentConfig, AgentConfig]) -> DebateConfig:
    max_grade = spec.max_grade
    max_tokens = spec.max_tokens if spec.max_tokens is not None else default_max_tokens(*agents)
    if spec.scale == "graded" and max_grade is None:
        from corpora.selectors import qrels_top_grade

        max_grade = qrels_top_grade(qrel_set=spec.pool.qrel_set)
    try:
        config = DebateConfig(
            rounds=spec.rounds,
            temperature=spec.temperature,
            max_tokens=max_tokens,
            max_tokens_cap=spec.max_tokens_cap,
            scale=spec.scale,
            max_grade=1 if max_grade is None else max_grade,
            consensus=spec.consensus,
            prompt_version=spec.prompt_version,
            min_agreement_probability=spec.min_agreement_probability,
        )
    except ValueError as exc:
        raise DebateJobError(str(exc)) from None
    return config


def _spec_check(spec: JobSpec, config_a: AgentConfig, config_b: AgentConfig) -> int:
    """Check the counts and shares of ``spec``; return its concurrency (the default filled)."""
    _whole_check("limit", spec.limit, 1, MAX_PAIRS)
    _whole_check("judgments per pair", spec.judgments_per_pair, 1, MAX_JUDGMENTS_PER_PAIR)
    _whole_check("human budget", spec.human_budget, 0, MAX_PAIRS)
    _whole_check("max_tokens", spec.max_tokens, MIN_MAX_TOKENS, MAX_MAX_TOKENS)
    _whole_check("max_tokens_cap", spec.max_tokens_cap, MIN_MAX_TOKENS, MAX_MAX_TOKENS)
    temperature = spec.temperature
    if isinstance(temperature, bool) or not 0.0 <= temperature <= MAX_TEMPERATURE:
        raise DebateJobError(
            f"temperature must be between 0 and {MAX_TEMPERATURE}, got {temperature!r}"
        )
    if not 0.0 <= spec.audit_share <= 1.0:
        raise DebateJobError(f"audit share must be between 0 and 1, got {spec.audit_share}")
    if spec.audit_allocation not in ALLOCATIONS:
        raise DebateJobError(
            f"audit allocation must be one of {', '.join(ALLOCATIONS)}, "
            f"got {spec.audit_allocation!r}"
        )
    if not 0.0 <= spec.gold_share <= MAX_GOLD_SHARE:
        raise DebateJobError(
            f"gold share must be between 0 and {MAX_GOLD_SHARE}, got {spec.gold_share}"
        )
    if spec.scale == "graded" and (config_a.is_simulated or config_b.is_simulated):
        raise DebateJobError(
            "scale: the simulated backend answers binary debates only; run a graded job with "
            "an LLM backend"
        )
    stage0_options_check(
        stage0=spec.stage0, scale=spec.scale, batch=spec.batch,
        levels={name: getattr(spec, name) for name in STAGE0_LEVELS},
    )  # fmt: skip
    _check_judged_check(spec)
    concurrency = spec.concurrency
    if concurrency is None:
        concurrency = default_concurrency(config_a, config_b)
    if isinstance(concurrency, bool) or not 1 <= concurrency <= MAX_CONCURRENCY:
        raise DebateJobError(
            f"concurrency must be between 1 and {MAX_CONCURRENCY}, got {concurrency}"
        )
    return concurrency


class NoJudgedPairsError(DebateJobError):
    """A check-judged job on a pool without judged pairs: the fix is another pool, built
    keeping them, named as the interface that builds it names the option (``str()``: the
    command line's ``--include-judged``, the pages' too; :meth:`worded` for "api": the pool
    route's ``"include_judged": true``)."""

    def __init__(self, pool: Any) -> None:
        self.pool_name, self.dataset = str(pool), pool.dataset.slug
        super().__init__(self.worded("cli"))

    def worded(self, interface: str, form: Any = None) -> str:
        """The refusal for ``interface`` (:data:`core.fixes.INTERFACES`); ``form`` unused."""
        head = f"check_judged: pool {self.pool_name} has no judged pairs"
        if interface == "api":
            return (
                f'{head}: build a pool that keeps them with "include_judged": true '
                f"(POST /api/v1/datasets/{self.dataset}/pools) and launch on it"
            )
        return f"{head}: build it with --include-judged"


def _check_judged_check(spec: JobSpec) -> None:
    """Refuse a check-judged job that has nothing to check (a pool without judged pairs) or
    cannot check: stage 0 (its judge learns from the very qrels being checked) and an
    adaptive pool (its strategy picks unjudged pairs)."""
    if not spec.check_judged:
        return
    pool = spec.pool
    if not pool.pairs.filter(original_relevance__isnull=False).exists():
        raise NoJudgedPairsError(pool)
    if spec.stage0:
        raise DebateJobError(
            "check_judged: stage 0 learns from the qrels being checked; launch without it"
        )
    if pool.adaptive:
        raise DebateJobError(
            f"check_judged: pool {pool} picks its pairs adaptively ({pool.strategy}); check "
            "the judged pairs on a depth or ordered pool"
        )


def _simulated_dataset_check(spec: JobSpec, configs: tuple[AgentConfig, AgentConfig]) -> None:
    """Refuse a simulated agent whose truth belongs to another dataset than the pool's: its
    debates would fail one by one, none of their queries being in the truth's dataset."""
    slug = spec.pool.dataset.slug
    for agent, config in zip("AB", configs, strict=True):
        if config.is_simulated and config.dataset != slug:
            raise DebateJobError(
                f"agent {agent}: dataset: the simulated agent's truth is of dataset "
                f"{config.dataset!r}, the pool of {slug!r}"
            )


def _whole_check(name: str, value: int | None, low: int, high: int) -> None:
    """Refuse ``value`` (None: not set, allowed) unless it is a whole number in low..high;
    the message names the setting ``name``."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise DebateJobError(f"{name} must be a whole number, got {value!r}")
    if value < low:
        raise DebateJobError(f"{name} must be at least {low}, got {value}")
    if value > high:
        raise DebateJobError(f"{name} must be at most {high:,}, got {value:,}")


@sensitive_variables("api_keys", "keys")
def _keys_encrypt(
    api_keys: dict[str, str] | None, spec: JobSpec, configs: tuple[AgentConfig, AgentConfig]
) -> str:
    """The typed API keys, encrypted: only for openai agents, agent B taking A's key when it
    has no config of its own. A key wins over the config's environment variable."""
    keys = {agent: key for agent, key in (api_keys or {}).items() if key}
    if spec.agent_b is None and "A" in keys:
        keys.setdefault("B", keys["A"])
    for agent, config in zip(("A", "B"), configs, strict=True):
        if config.backend != "openai":
            keys.pop(agent, None)
    try:
        return api_keys_encrypt(keys=keys)
    except ValueError as exc:
        raise DebateJobError(f"api_keys: {exc}") from None


@dataclass(frozen=True)
class _LaunchChecked:
    """What :func:`_launch_check` made of a spec: the stored debate settings (``same``,
    :func:`_same_debates`), the concurrency, the callback URL, the encrypted keys, the note."""

    same: dict[str, Any]
    concurrency: int
    callback_url: str
    api_keys_encrypted: str
    note: str


@sensitive_variables("api_keys")
def _launch_check(
    spec: JobSpec, *, created_by: Any, api_keys: dict[str, str] | None, untrusted: bool
) -> _LaunchChecked:
    """Every check :func:`debate_job_launch` makes before it writes, in its order: the
    operator's rules for an ``untrusted`` edge (before any file is read), each agent's
    config, the job settings, a simulated truth's dataset, the callback URL, batch mode's
    backends, the keys and the note. Raises DebateJobError naming what is wrong; writes
    nothing."""
    raw_b = spec.agent_b if spec.agent_b is not None else spec.agent_a
    if untrusted:
        agent_config_permit(config=spec.agent_a, agent="A")
        agent_config_permit(config=raw_b, agent="B")
    config_a = agent_config_validate(spec.agent_a, agent="A")
    config_b = agent_config_validate(raw_b, agent="B")
    config = _debate_config(spec, (config_a, config_b))
    concurrency = _spec_check(spec, config_a, config_b)
    _simulated_dataset_check(spec, (config_a, config_b))
    callback_url = webhook_callback_validate(url=spec.callback_url, created_by=created_by)
    if spec.batch and {config_a.backend, config_b.backend} != {"openai"}:
        raise DebateJobError("batch mode needs both agents on the openai backend")
    encrypted = _keys_encrypt(api_keys, spec, (config_a, config_b))
    try:  # cleaned as replies are, on every database (SQLite would keep a NUL)
        note = text_clean(spec.note, field="note", max_length=NOTE_MAX)
    except NameRefused as exc:
        raise DebateJobError(str(exc)) from None
    return _LaunchChecked(
        same=_same_debates(spec, (config_a, config_b), config),
        concurrency=concurrency,
        callback_url=callback_url,
        api_keys_encrypted=encrypted,
        note=note,
    )


@sensitive_variables("api_keys")
def debate_job_launch(
    *,
    spec: JobSpec,
    created_by: Any = None,
    api_keys: dict[str, str] | None = None,
    start: bool = True,
    background: bool = False,
    untrusted: bool = False,
) -> DebateJob:
    """Create a running job with one pending debate per pair of ``spec.pool`` (the first
    ``spec.limit``), set its human budget, and (with ``start``) start it.

    ``api_keys`` maps agent "A"/"B" to a key typed in the job form: stored only encrypted
    (:mod:`debates.api_keys`), never in the config. Starting records the start time and, when
    a broker is configured (:func:`tasks_run_in_process` False), enqueues every debate after
    commit; without one the caller runs them (:func:`debate_job_wait`), or, with
    ``background``, a daemon thread of this process does once the transaction commits (a web
    request returns at once). ``start=False`` only creates (tests, benches that start the
    job their own way). Creating is one transaction. Raises :class:`DuplicateJobError` when
    a running or paused job of the pool has the same debate settings, unless
    ``spec.allow_duplicate``; DebateJobError for invalid
    settings (naming the agent and field), a callback URL that is refused (naming the rule
    and ``DREAM_WEBHOOK_ALLOWED_HOSTS``; a callback also needs ``created_by``), an empty
    pool, or a check-judged job on a pool without judged pairs (nothing is created).
    ``untrusted`` (the job form, the HTTP API) first refuses agents that name an endpoint,
    key variable or model file the operator did not allow
    (:func:`~debates.services.backends.agent_config_permit`), before any file is read.
    Pairs too long for the agents' context do not refuse the job: they are logged as a
    warning (:func:`debate_job_warnings`, which the job page and the API show)."""
    checked = _launch_check(spec, created_by=created_by, api_keys=api_keys, untrusted=untrusted)
    same = checked.same
    with transaction.atomic():
        if not spec.allow_duplicate:
            _duplicate_refuse(spec.pool, same)
        job = DebateJob.objects.create(
            pool=spec.pool,
            **same,
            judgments_per_pair=spec.judgments_per_pair,
            # A confirmed original label needs no human: a check draws no audit.
            audit_share=0.0 if spec.check_judged else spec.audit_share,
            audit_allocation=spec.audit_allocation,
            gold_share=spec.gold_share,
            note=checked.note,
            concurrency=checked.concurrency,
            api_keys_encrypted=checked.api_keys_encrypted,
            created_by=created_by,
            # The workers hold a job made in the browser or the API to the operator's
            # settings as they are when they call (debates.services.run._agents_refusal).
            launched_from=(
                DebateJob.LaunchedFrom.WEB if untrusted else DebateJob.LaunchedFrom.COMMAND
            ),
            callback_url=checked.callback_url,
            stage0_state=Stage0State.WAITING if spec.stage0 else Stage0State.OFF,
            **_reuse_fields(spec, same),
        )
        if not debates_add(job=job, limit=pool_batch_first(job=job)):
            raise DebateJobError(f"pool {spec.pool} has no pairs to debate")
        if spec.human_budget is not None:
            debate_job_budget_set(job=job, budget=spec.human_budget)
        debate_job_truth_note_set(job=job)
        if start:
            # A batch job makes no direct calls: its rounds go out with debate_batch.
            debate_job_begin(job=job)
            if background and not spec.batch:
                debate_job_run_in_background(job_id=job.pk)
    for warning in debate_job_warnings(job=job):
        log.warning("job %s: %s", job.pk, warning)
    return job


def _reuse_fields(spec: JobSpec, same: dict[str, Any]) -> dict[str, Any]:
    """The reuse switch and key of the job ``spec`` makes (``same``: its stored debate
    settings, :func:`_same_debates`); :mod:`debates.services.reuse` reads both."""
    return {
        "reuse": spec.reuse,
        "reuse_key": job_reuse_key(dataset_id=spec.pool.dataset_id, settings=same),
    }


def _reused_whole_follow(job: DebateJob) -> None:
    """When reuse settled every debate a started job has: an adaptive pool's next batch is
    chosen now (no debate will end to ask for it), and a job left with nothing to run is
    finished."""
    if job.debates.filter(status=Debate.Status.PENDING).exists():
        return
    debate_job_stage0_nothing_left(job=job)
    pool_batch_next(job_id=job.pk)
    job_finish_if_done(job_id=job.pk)


def debate_job_begin(*, job: DebateJob, here: bool = False) -> int:
    """Start a running job made with ``debate_job_launch(start=False)`` (benches time it from
    here): its pending debates go to the workers after commit when a broker is configured,
    else (or with ``here``) nothing is sent and the caller runs them
    (:func:`debate_job_wait`, :func:`~debates.services.run.debate_job_run_inline`). A batch
    job sends nothing either. A job whose every debate was reused from earlier jobs
    (:mod:`debates.services.reuse`) gets its adaptive pool's next batch, or finishes, here.
    Returns the number of pending debates. Raises DebateJobError unless the job is running."""
    enqueue = not here and not tasks_run_in_process() and not job.batch
    pending = debate_job_start(job=job, enqueue=enqueue)
    if not pending:
        _reused_whole_follow(job)
    return pending


def debate_job_resume_launch(
    *, job: DebateJob, background: bool = False, interrupted: bool = False
) -> int:
    """Resume a paused job where launch would run it: with a broker its pending debates are
    enqueued after commit; without one the caller runs them (:func:`debate_job_wait`) or, with
    ``background``, a daemon thread of this process does once the transaction commits.

    ``interrupted``: a running job (its process stopped, e.g. Ctrl-C, or a pipeline run
    again) is continued as well: its start is recorded if it never was and, with a broker,
    its pending debates are enqueued again (a debate queued twice runs once). Returns the
    number of pending debates. Raises DebateJobError unless the job is paused (or, with
    ``interrupted``, running)."""
    enqueue = not tasks_run_in_process()
    if interrupted and job.status == DebateJob.Status.RUNNING:
        count = debate_job_start(job=job, enqueue=enqueue and not job.batch)
    else:
        count = debate_job_resume(job=job, enqueue=enqueue)
    if background and job.status == DebateJob.Status.RUNNING:
        debate_job_run_in_background(job_id=job.pk)
    return count


def debate_job_retry_launch(*, job: DebateJob, background: bool = False) -> int:
    """Give the job's failed debates back (:func:`~debates.services.jobs.debate_job_retry_failed`)
    and run them as launch would: enqueued with a broker; without one run by the caller or,
    with ``background``, by a daemon thread of this process after commit. Returns how many.
    Raises DebateJobError for a cancelled job."""
    count = debate_job_retry_failed(job=job, enqueue=not tasks_run_in_process())
    if background and job.status == DebateJob.Status.RUNNING:
        debate_job_run_in_background(job_id=job.pk)
    return count


def debate_job_warnings(*, job: DebateJob) -> list[str]:
    """What a job's page, its API body and its launch warn of, as sentences: why the workers
    paused it themselves (``DebateJob.stop_note``: its agents refused by the operator's
    settings as they are now, :func:`debates.services.jobs.debate_job_stop_refused`), pairs
    too long for the agents' context (:func:`debates.estimate_selectors.job_too_long_pairs`),
    which end escalated as "too_long" (the job is not refused: its other pairs are debated),
    and the pairs it shares with earlier jobs of its dataset, reused or asked again
    (``DebateJob.reuse_note``, :func:`debates.services.reuse.reuse_note_set`), and simulated
    debaters whose truth finds no relevant pair in the pool (``DebateJob.truth_note``)."""
    from debates.estimate import too_long_warning
    from debates.estimate_selectors import job_too_long_pairs

    count, names, context = job_too_long_pairs(job=job)
    warning = too_long_warning(count, names, context=context)
    stopped = (
        f"paused by the workers, resumable once allowed: {job.stop_note}" if job.stop_note else ""
    )
    return [text for text in (stopped, warning, job.reuse_note, job.truth_note) if text]


def debate_job_run_in_background(*, job_id: int) -> bool:
    """Without a broker, run the job's pending debates in a daemon thread of this process,
    started once the transaction commits (a web request returns at once); with a broker the
    workers run them and nothing happens here. Returns True when a thread will start."""
    if not tasks_run_in_process():
        return False
    transaction.on_commit(lambda: _background_thread_start(job_id))
    return True


def _background_thread_start(job_id: int) -> None:

    def work() -> None:
        close_old_connections()
        try:
            debate_job_run_inline(job=DebateJob.objects.get(pk=job_id))
        except Exception:  # a thread has no caller to raise to: log it
            log.exception("debate job %s stopped with an error", job_id)
        finally:
            connections.close_all()

    threading.Thread(target=work, name=f"debate-job-{job_id}", daemon=True).start()


def debate_job_wait(
    *,
    job: DebateJob,
    on_progress: ProgressCallback | None = None,
    poll_seconds: float = 1.0,
    concurrency: int | None = None,
    follow_only: bool = False,
) -> JobProgress:
    """Run ``job``'s pending debates until it stops, here or on the workers; return its
    progress at the end.

    Without a broker (:func:`tasks_run_in_process`) the debates run in this process,
    ``concurrency`` at once (default the job's); Ctrl-C gives the debates in flight back
    (pending, turns kept) and raises KeyboardInterrupt. With a broker the workers run them
    and this follows the progress in the database every ``poll_seconds`` until the job is no
    longer running; so does ``follow_only`` (another process runs them). ``on_progress``
    gets the progress at most twice a second and at the end.
    """
    if tasks_run_in_process() and not follow_only:
        shown = [0.0]

        def moved(_debate: Any) -> None:
            # Counting takes a few queries: at most twice a second, however many run.
            if on_progress is not None and time.monotonic() - shown[0] >= 0.5:
                on_progress(debate_job_progress(job=job))
                shown[0] = time.monotonic()

        debate_job_run_inline(job=job, on_debate=moved, concurrency=concurrency)
        progress = debate_job_progress(job=job)
        if on_progress is not None:
            on_progress(progress)
        return progress
    while True:
        progress = debate_job_progress(job=job)
        if on_progress is not None:
            on_progress(progress)
        if progress.status != DebateJob.Status.RUNNING:
            return progress
        time.sleep(poll_seconds)


def job_scale_describe(job: DebateJob) -> str:
    """ ", graded 0..G (consensus RULE)" for a graded job, "" for a binary one."""
    if job.scale != DebateJob.Scale.GRADED:
        return ""
    return f", graded 0..{job.max_grade} (consensus {job.consensus})"


def job_agents_describe(job: DebateJob, *, full_path: bool = False) -> str:
    """The job's agents in one line: "DESCRIPTION" when both are the same, else "A vs B"; a
    model file by its name only unless ``full_path`` (a command's output)."""
    a, b = (config.describe(full_path=full_path) for config in job.agents)
    return a if a == b else f"{a} vs {b}"


def tokens_describe(progress: JobProgress) -> str:
    """A job's tokens in one line: "12,345 prompt (1,024 cached) + 6,789 completion (5,000
    reasoning)"; the cached and reasoning parts only when a server reported any."""
    cached = f" ({progress.cached_tokens:,} cached)" if progress.cached_tokens else ""
    reasoning = f" ({progress.reasoning_tokens:,} reasoning)" if progress.reasoning_tokens else ""
    return (
        f"{progress.prompt_tokens:,} prompt{cached} + "
        f"{progress.completion_tokens:,} completion{reasoning}"
    )
