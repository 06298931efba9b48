"""Every option of a debate job, declared once (:class:`JobOptions`), and a job's spec
(:class:`JobSpec`: the options and the pool). The job form, the HTTP API's schema and the
commands' flags take their defaults and ranges from here; :mod:`.launch` checks them again
when it creates the job.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Annotated, Any, Literal

from pydantic import Field

from corpora.models import Pool
from debates.audit_design import AuditAllocation
from debates.engine import DEFAULT_ROUNDS, DEFAULT_TEMPERATURE, MAX_ROUNDS
from debates.llm.config import AgentConfig
from debates.models import DEFAULT_AUDIT_SHARE, DEFAULT_GOLD_SHARE, DEFAULT_JUDGMENTS_PER_PAIR
from debates.services.common import MAX_CONCURRENCY, MAX_GOLD_SHARE
from debates.stage0_band import DEFAULT_ALPHA as STAGE0_ALPHA
from debates.stage0_band import DEFAULT_BETA as STAGE0_BETA
from debates.stage0_band import DEFAULT_DELTA as STAGE0_DELTA
from debates.stage0_band import LEVEL_MAX as STAGE0_LEVEL_MAX
from debates.stage0_band import LEVEL_MIN as STAGE0_LEVEL_MIN

# The ranges of a job's settings, in one place: the job form, the API's schema and launch's
# checks (_spec_check) take them from here, so what one refuses the others refuse too (with
# debates.engine.MAX_ROUNDS, MAX_CONCURRENCY and MAX_GOLD_SHARE).
MIN_MAX_TOKENS, MAX_MAX_TOKENS = 16, 1_000_000  # a turn's token budget and its cap
MAX_TEMPERATURE = 2.0  # the highest sampling temperature OpenAI-compatible servers take
MAX_JUDGMENTS_PER_PAIR = 9
MAX_PAIRS = 10_000_000  # a pair limit or a human budget: beyond any pool's size

NOTE_MAX = 200  # DebateJob.note's length
CALLBACK_URL_MAX = 500  # DebateJob.callback_url's length
PROMPT_VERSION_MAX = 50  # DebateJob.prompt_version's length


# Field metadata of a job option the HTTP API does not take (set by a command only).
NOT_IN_API = {"api": False}


@dataclass(frozen=True, kw_only=True)
class JobOptions:
    """How a debate job debates, and what goes to humans: every option of a job, declared
    once. Its defaults are the defaults of the job form (its initial values), the HTTP API
    (``JobIn`` is built from these fields) and the commands' flags; the ``Annotated`` ranges
    are the API's schema and the form's bounds, checked again by
    :func:`~debates.services.launch.debate_job_launch`.

    ``agent_a`` argues the initial stance "relevant", ``agent_b`` "irrelevant": typed backend
    configs (None: the embedded model; ``agent_b`` None: as agent A). ``rounds`` is R (1..5);
    ``max_tokens`` the budget of a turn's first call (None:
    :func:`~debates.services.common.default_max_tokens`, 2048 for openai agents, else 384) and
    ``max_tokens_cap`` the most a re-ask of a cut reply gets (None: twice ``max_tokens``).
    ``scale`` "binary" (DREAM) or "graded": grades 0..G, G = ``max_grade`` or, when None, the
    pool's qrels top grade; ``consensus`` "exact" or "binary"
    (:func:`debates.engine.consensus_label`). ``prompt_version`` one of the scale's
    :data:`debates.prompts.PROMPT_VERSIONS` ("dream-v1" reproduces a job made before the
    shared-prefix layout), "" this code's default for the scale ("dream-v2", "dream-graded-v2").
    ``limit`` takes only the first N pairs in canonical order (query id, then doc id, by code
    point). ``judgments_per_pair`` human judgments per escalated pair; ``audit_share`` (0..1) of
    agreed labels drawn for a human audit, spread over the strata (consensus label x round) by
    ``audit_allocation`` (:data:`debates.audit_design.ALLOCATIONS`: "proportional", every
    stratum at the share, or "neyman", a pilot at a tenth of the share and the rest where the
    pilot found the debate wrong most); ``gold_share`` (0..0.5) of each annotator's pairs that
    are known-answer pairs from the original qrels (0: none; see ``assess.review.gold``);
    ``human_budget`` at most this many pairs to humans (None: no limit). ``concurrency`` debates
    run at once in process (1..256; None: 16 for remote agents, 1 with an embedded one).
    ``batch``: no direct calls, the rounds go out as batch files (:mod:`debates.services.batch`;
    openai agents only). ``callback_url`` gets a signed POST when the job finishes, fails, is
    paused or cancelled ("" for none; see
    :func:`debates.services.webhooks.webhook_callback_validate`). ``allow_duplicate`` confirms a
    job with the same debate settings as a running or paused job of the pool
    (:class:`~debates.services.launch.DuplicateJobError`). ``reuse``: each pair whose latest
    settled debate in another job of the dataset with the same reuse key (:mod:`debates.reuse`:
    both agents' full configs, sampling, prompt version, scale, R, consensus rule) agreed takes
    that label without a call (:mod:`debates.services.reuse`); False asks every pair.
    ``stage0``: before any debate, the dataset's stage-0 judge (trained first when it has none)
    settles the pairs whose calibrated P(relevant) lies outside a band chosen on held-out human
    labels so that at most ``stage0_alpha`` of its labels disagree with humans and at most
    ``stage0_beta`` of the relevant pairs are settled not relevant (1: that share not bounded),
    with probability at least 1 - ``stage0_delta`` (:mod:`debates.services.stage0_route`,
    :mod:`debates.stage0_band`); binary direct jobs. ``min_agreement_probability`` (0..1, 0
    off): an agreement where an agent's label probability (from logprobs) is below it escalates
    as "low_confidence" (:class:`debates.engine.DebateConfig`). ``check_judged``: check the
    qrels' own labels: debate only the pool's judged pairs (the agents never see the original
    grade); a consensus on the other side of the original grade escalates as "suspect_original",
    an agreeing one confirms it (:mod:`debates.check_judged`); no audit is drawn.
    """

    agent_a: AgentConfig | None = None
    agent_b: AgentConfig | None = None
    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS)] = DEFAULT_ROUNDS
    temperature: Annotated[float, Field(ge=0.0, le=MAX_TEMPERATURE)] = DEFAULT_TEMPERATURE
    max_tokens: Annotated[int, Field(ge=MIN_MAX_TOKENS, le=MAX_MAX_TOKENS)] | None = None
    max_tokens_cap: Annotated[int, Field(ge=MIN_MAX_TOKENS, le=MAX_MAX_TOKENS)] | None = None
    scale: Literal["binary", "graded"] = "binary"
    consensus: Literal["exact", "binary"] = "exact"
    prompt_version: Annotated[str, Field(max_length=PROMPT_VERSION_MAX)] = ""
    limit: Annotated[int, Field(ge=1, le=MAX_PAIRS)] | None = None
    judgments_per_pair: Annotated[int, Field(ge=1, le=MAX_JUDGMENTS_PER_PAIR)] = (
        DEFAULT_JUDGMENTS_PER_PAIR
    )
    audit_share: Annotated[float, Field(ge=0.0, le=1.0)] = DEFAULT_AUDIT_SHARE
    audit_allocation: AuditAllocation = "proportional"
    gold_share: Annotated[float, Field(ge=0.0, le=MAX_GOLD_SHARE)] = DEFAULT_GOLD_SHARE
    human_budget: Annotated[int, Field(ge=0, le=MAX_PAIRS)] | None = None
    concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)] | None = None
    note: Annotated[str, Field(max_length=NOTE_MAX)] = ""
    callback_url: Annotated[str, Field(max_length=CALLBACK_URL_MAX)] = ""
    batch: bool = False
    allow_duplicate: bool = False
    reuse: bool = True
    min_agreement_probability: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    stage0: bool = False
    stage0_alpha: Annotated[float, Field(ge=STAGE0_LEVEL_MIN, le=STAGE0_LEVEL_MAX)] = STAGE0_ALPHA
    stage0_delta: Annotated[float, Field(ge=STAGE0_LEVEL_MIN, le=STAGE0_LEVEL_MAX)] = STAGE0_DELTA
    stage0_beta: Annotated[float, Field(ge=STAGE0_LEVEL_MIN, le=1.0)] = STAGE0_BETA
    check_judged: bool = False
    max_grade: int | None = field(default=None, metadata=NOT_IN_API)


@dataclass(frozen=True, kw_only=True)
class JobSpec(JobOptions):
    """What a debate job debates (``pool``) and how (:class:`JobOptions`); validated by
    :func:`~debates.services.launch.debate_job_launch`."""

    pool: Pool

    @classmethod
    def of(cls, *, pool: Pool, options: JobOptions, **changes: Any) -> JobSpec:
        """The spec of ``options`` on ``pool``, with ``changes`` (option names) applied."""
        given = {f.name: getattr(options, f.name) for f in fields(JobOptions)}
        return cls(pool=pool, **{**given, **changes})


def job_option_default(name: str) -> Any:
    """The default of the job option ``name`` (a :class:`JobOptions` field), e.g. 2 for
    ``rounds``. Raises KeyError for a name that is no option."""
    for option in fields(JobOptions):
        if option.name == name:
            return option.default
    raise KeyError(f"no job option {name!r}")


def job_option_names(*, api: bool | None = None) -> tuple[str, ...]:
    """The names of the job options in declaration order; ``api`` True: only those the HTTP
    API takes, False: only those it does not."""
    names = fields(JobOptions)
    if api is None:
        return tuple(f.name for f in names)
    return tuple(f.name for f in names if f.metadata.get("api", True) is api)
