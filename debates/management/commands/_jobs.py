"""Helpers shared by the debate commands: backend options, pool lookup, waiting for a job
with a live progress bar, and the summary. The commands launch jobs through
:func:`debates.services.launch.debate_job_launch`."""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from typing import Any

from django.core.management.base import CommandError
from tqdm import tqdm

from core.fixes import error_worded, option_flag
from core.paths import caller_path
from corpora.models import Pool
from debates import prompts, rubric
from debates.audit_design import ALLOCATIONS
from debates.llm.config import (
    BACKENDS,
    REASONING_EFFORTS,
    SIMULATED_BACKEND,
    SIMULATED_DEFAULTS,
    SIMULATED_RATES,
    TEST_BACKEND,
    TEST_FACTORY_ENV,
    AgentConfig,
    agents_simulated,
)
from debates.models import DebateJob
from debates.services.backends import (
    AGENT_FIELD_NAMES,
    AGENT_FIELDS,
    agent_config_build,
    agent_fields_given,
)
from debates.services.common import MAX_GOLD_SHARE, AgentFieldError, DebateJobError
from debates.services.launch import (
    MAX_TEMPERATURE,
    DuplicateJobError,
    debate_job_wait,
    job_option_default,
    job_option_names,
    job_scale_describe,
    tokens_describe,
)
from debates.services.progress import JobProgress, debate_job_progress
from debates.services.worker_wait import worker_warning_watch
from debates.stage0_band import LEVEL_MAX as STAGE0_LEVEL_MAX
from debates.stage0_band import LEVEL_MIN as STAGE0_LEVEL_MIN


def backend_choices() -> tuple[str, ...]:
    """The backends a command accepts: the registry's, plus "test" when the test suite enabled
    its test backends (``DREAM_TEST_LLM_FACTORY``)."""
    extra = (TEST_BACKEND,) if os.environ.get(TEST_FACTORY_ENV) else ()
    return tuple(BACKENDS) + extra


def add_backend_arguments(parser, *, agent_b: bool = True) -> None:
    """--backend/--model/--model-path/--base-url/--api-key-env/--rpm/--timeout/--context-window
    and the reasoning options for agent A, and (with ``agent_b``) the same with a ``-b``
    suffix for agent B (default: as agent A); without ``agent_b`` for both agents. The one
    place a command's backend flags are declared (:func:`backend_flags_configs` reads them)."""
    agents = (
        (("", "agent A (and B unless given)"), ("-b", "agent B"))
        if agent_b
        else (("", "the agents"),)
    )
    for suffix, who in agents:
        parser.add_argument(
            f"--backend{suffix}",
            choices=backend_choices(),
            default="embedded" if not suffix else None,
            help=f"LLM backend of {who} (default {'embedded' if not suffix else 'as A'})",
        )
        parser.add_argument(f"--model{suffix}", help=f"model name of {who} (openai)")
        parser.add_argument(
            f"--model-path{suffix}",
            type=caller_path,
            help=f"a local GGUF chat model file for {who} (embedded; default the bundled "
            "SmolLM2-135M)",
        )
        parser.add_argument(f"--base-url{suffix}", help=f"OpenAI-compatible base URL of {who}")
        parser.add_argument(
            f"--api-key-env{suffix}",
            help=f"environment variable holding the API key of {who} (default OPENAI_API_KEY)",
        )
        parser.add_argument(
            f"--rpm{suffix}",
            type=int,
            help=f"requests per minute allowed for {_possessive(who)} backend, shared by all "
            "workers (openai; default unlimited)",
        )
        parser.add_argument(
            f"--timeout{suffix}", type=float, help=f"seconds per request of {who} (openai; 60)"
        )
        parser.add_argument(
            f"--context-window{suffix}",
            type=int,
            help=f"context of {_possessive(who)} model in tokens (openai default: what the server "
            "reports, else 8192; embedded: SmolLM2 2048, a --model-path GGUF its training "
            "context up to 4096)",
        )
        add_reasoning_arguments(parser, suffix=suffix, who=who)
        add_simulated_arguments(parser, suffix=suffix, who=who)


# A backend field whose flag's dest is not its name: the command's own dataset (a positional
# of pipeline and evaluate_assessor) and evaluate_assessor's --seed (its sample draw) would
# otherwise be read as the simulated agent's.
FLAG_DESTS = {"dataset": "truth_dataset", "seed": "debater_seed"}


def flag_dest(name: str, suffix: str = "") -> str:
    """The dest of the flag of backend field ``name`` (``suffix`` "" or "_b"), e.g.
    ``truth_dataset_b`` for agent B's ``dataset``."""
    return f"{FLAG_DESTS.get(name, name)}{suffix}"


def flag_text(name: str, suffix: str = "") -> str:
    """How a message names the flag of backend field ``name`` (``suffix`` "" or "-b"), e.g.
    ``--truth-dataset`` for ``dataset``, ``--seed`` for ``seed`` (evaluate_assessor spells
    it ``--debater-seed``)."""
    return option_flag("truth_dataset" if name == "dataset" else name) + suffix


def _possessive(who: str) -> str:
    """ "the agents'" for "the agents", "agent B's" for "agent B": help texts' possessive."""
    return f"{who}'" if who.endswith("s") else f"{who}'s"


def add_simulated_arguments(parser, *, suffix: str = "", who: str = "the agents") -> None:
    """--truth FILE, --truth-dataset SLUG, --sensitivity, --specificity, --persistence and
    --seed (also spelt --debater-seed; only that where the command has a --seed of its own):
    the fields of the simulated backend (docs/debates-and-backends.md, "Simulated
    debaters"), with ``suffix`` ("-b") for agent B. Their dests: :func:`flag_dest`."""
    dest = suffix.replace("-", "_")
    parser.add_argument(
        f"--truth{suffix}",
        type=caller_path,
        metavar="FILE",
        help=f"reference qrels file (TREC or BEIR) {who} answer from (simulated; it must lie "
        "in a folder of DREAM_SIMULATION_DIRS)",
    )
    parser.add_argument(
        f"--truth-dataset{suffix}",
        dest=flag_dest("dataset", dest),
        metavar="SLUG",
        help=f"dataset of {_possessive(who)} truth file (simulated; default: the dataset of the "
        "command or of its pool)",
    )
    for rate in SIMULATED_RATES:
        parser.add_argument(
            f"--{rate}{suffix}",
            type=float,
            help=f"{rate} (0-1) of {who} (simulated; default {SIMULATED_DEFAULTS[rate]:g})",
        )
    seeds = [f"--seed{suffix}", f"--debater-seed{suffix}"]
    if f"--seed{suffix}" in parser._option_string_actions:  # the command's own --seed
        seeds = seeds[1:]
    parser.add_argument(
        *seeds,
        dest=flag_dest("seed", dest),
        type=int,
        help=f"seed of {_possessive(who)} simulated labels (simulated; default 0)",
    )


def add_reasoning_arguments(parser, *, suffix: str = "", who: str = "the agents") -> None:
    """--reasoning-effort and --extra-body (with ``suffix``, e.g. "-b" for agent B): the
    generation options of a reasoning model (docs/debates-and-backends.md, "Reasoning models")."""
    parser.add_argument(
        f"--reasoning-effort{suffix}",
        choices=REASONING_EFFORTS,
        help=f"reasoning effort of {who} (openai; OpenAI o-series and gpt-5, gpt-oss; Ollama: "
        "none switches thinking off)",
    )
    parser.add_argument(
        f"--extra-body{suffix}",
        metavar="JSON",
        help=f"a JSON object sent in every request of {who} as it is (openai), e.g. "
        '\'{"chat_template_kwargs": {"enable_thinking": false}}\' for Qwen3 on vLLM or SGLang',
    )


def add_budget_arguments(parser) -> None:
    """--max-tokens and --max-tokens-cap: a turn's first budget and the most a re-ask of a
    reply cut at it may get (see debates.turns)."""
    parser.add_argument(
        "--max-tokens",
        type=int,
        help="completion budget of a turn's first call, in tokens (default 2048 with an openai "
        "agent, which may be a reasoning model; 384 with the embedded model)",
    )
    parser.add_argument(
        "--max-tokens-cap",
        type=int,
        help="the most a re-ask of a reply cut at its budget gets (default twice "
        "--max-tokens; equal to it: a cut reply escalates as truncated at once)",
    )


def gold_share_type(value: str) -> float:
    """argparse type of a gold share, a number from 0 to 0.5 (``--gold-share``)."""
    try:
        share = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0 <= share <= MAX_GOLD_SHARE:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_GOLD_SHARE}, got {value}")
    return share


def add_gold_share_argument(parser, *, default: float | None = None) -> None:
    """--gold-share: the share of each annotator's pairs that are known-answer pairs from the
    original qrels (see assess.review.gold); None keeps the job's (a new job: the job
    option's default)."""
    job_default = job_option_default("gold_share")
    parser.add_argument(
        "--gold-share",
        type=gold_share_type,
        default=default,
        help="share (0-0.5) of each annotator's pairs that are known-answer pairs from the "
        "original qrels, mixed in unmarked to measure annotators; 0 turns them off "
        f"(default {f'the job default, {job_default}' if default is None else default})",
    )


def share_type(value: str) -> float:
    """argparse type of a share, a number from 0 to 1 (``--audit-share``, an error rate...)."""
    try:
        share = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0 <= share <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return share


def add_audit_share_argument(parser, *, default: float | None = None) -> None:
    """--audit-share S: the share (0-1) of agreed labels drawn for a human audit (the job
    option ``audit_share``); None keeps the job's (a new job: the job option's default)."""
    job_default = job_option_default("audit_share")
    parser.add_argument(
        "--audit-share",
        type=share_type,
        default=default,
        help="Share (0-1) of agreed labels drawn for a human audit; 0 draws none, and the "
        "refined set then has no interval "
        f"(default {f'the job default, {job_default}' if default is None else default})",
    )


def add_audit_allocation_argument(parser) -> None:
    """--audit-allocation proportional|neyman: how a new job spreads its audit share over the
    strata (consensus label x round; debates.audit_design); default the job option's. A job
    reused by the pipeline keeps its own."""
    parser.add_argument(
        "--audit-allocation",
        choices=ALLOCATIONS,
        default=job_option_default("audit_allocation"),
        help="proportional: every stratum (consensus label x round) audited at the share "
        "(default); neyman: units of stratum x the pair's best rank, a pilot at a tenth of the "
        "share, then the rest where the pilot found the debate wrong most often",
    )


def add_min_agreement_argument(parser) -> None:
    """--min-agreement-probability P: an agreement where an agent's label probability (from
    the server's logprobs) is below P escalates as low_confidence (debates.engine)."""
    parser.add_argument(
        "--min-agreement-probability",
        type=float,
        default=job_option_default("min_agreement_probability"),
        help="escalate an agreement when an agent's label probability (from the server's "
        "logprobs) is below this (0-1; default 0, off)",
    )


def add_stage0_arguments(parser, *, default: bool = False) -> None:
    """--stage0 (--no-stage0 where it is on by default), --stage0-alpha A, --stage0-delta D,
    --stage0-beta B:
    the dataset's cheap calibrated judge settles the pairs it is sure of before any debate
    (debates.services.stage0_route), trained first when the dataset has none."""
    parser.add_argument(
        "--stage0",
        action=argparse.BooleanOptionalAction,
        default=default,
        help="stage 0 first: a judge trained on the dataset's labels settles the pairs it is "
        "sure of (error <= alpha against humans with probability >= 1 - delta), the others "
        f"are debated (default {'on' if default else 'off'})",
    )
    add_min_agreement_argument(parser)
    parser.add_argument(
        "--stage0-alpha",
        type=float,
        default=job_option_default("stage0_alpha"),
        help="error rate allowed among stage-0 labels (default %(default)s)",
    )
    parser.add_argument(
        "--stage0-delta",
        type=float,
        default=job_option_default("stage0_delta"),
        help="chance allowed that the stage-0 bound fails (default %(default)s)",
    )
    parser.add_argument(
        "--stage0-beta",
        type=float,
        default=job_option_default("stage0_beta"),
        help="share of the relevant pairs (holes) stage 0 may settle as not relevant, bounded "
        "at the same risk; 1: not bounded (default %(default)s)",
    )


def add_rounds_argument(parser) -> None:
    """--rounds R and --temperature T: a debate's rounds and sampling temperature."""
    parser.add_argument(
        "--rounds",
        type=int,
        default=job_option_default("rounds"),
        help=f"R, maximum rounds (1-5; default {job_option_default('rounds')})",
    )
    parser.add_argument(
        "--temperature",
        type=float,
        default=job_option_default("temperature"),
        help="sampling temperature of both agents' calls "
        f"(0-{MAX_TEMPERATURE:g}; default {job_option_default('temperature'):g})",
    )


def job_options_given(opts: dict[str, Any]) -> dict[str, Any]:
    """The job options among a command's parsed ``opts`` (a flag's dest is the option's
    name, e.g. ``--human-budget`` for ``human_budget``), for
    :class:`~debates.services.launch.JobSpec`; a flag left at None whose option has another
    default is not given (the option keeps its default). Raises CommandError for a stage-0
    level (``--stage0-alpha``, ``--stage0-delta``, ``--stage0-beta``) set away from its
    default without ``--stage0``: it would be ignored without a word. (A level out of its
    range is left to the launch, which names the range.)"""
    if "stage0" in opts and not opts["stage0"]:
        for name in ("stage0_alpha", "stage0_delta", "stage0_beta"):
            high = 1.0 if name == "stage0_beta" else STAGE0_LEVEL_MAX
            level = opts.get(name)
            if level is None or not STAGE0_LEVEL_MIN <= level <= high:
                continue
            if level != job_option_default(name):
                flag = "--" + name.replace("_", "-")
                raise CommandError(f"{flag} {opts[name]:g}: a level of stage 0, add --stage0")
    given = {}
    for name in job_option_names():
        if name in opts and (opts[name] is not None or job_option_default(name) is None):
            given[name] = opts[name]
    return given


def add_scale_arguments(parser) -> None:
    """--scale binary|graded and --consensus exact|binary.

    See the manual, docs/debates-and-backends.md, "Graded debates".
    """
    parser.add_argument(
        "--scale",
        choices=("binary", "graded"),
        default=job_option_default("scale"),
        help="binary: labels 1/0, the paper's method (default); graded: grades 0..G with a "
        "rubric, G the top grade of the pool's qrels",
    )
    parser.add_argument(
        "--consensus",
        choices=("exact", "binary"),
        default=job_option_default("consensus"),
        help="graded: a round agrees when both give the same grade (exact, default) or the "
        "same side of relevance, keeping the lower grade (binary)",
    )


def add_prompt_version_argument(parser) -> None:
    """--prompt-version: the prompts of a new job (debates.prompts.PROMPT_VERSIONS); default ""
    is this code's newest for the scale."""
    versions = [v for scale in ("binary", "graded") for v in prompts.PROMPT_VERSIONS[scale]]
    parser.add_argument(
        "--prompt-version",
        choices=versions,
        default=job_option_default("prompt_version"),
        help=f"prompts of the new job: {prompts.PROMPT_VERSION} / "
        f"{prompts.GRADED_PROMPT_VERSION} (default: laid out for prefix caches) or "
        f"{prompts.PROMPT_VERSION_V1} / {rubric.GRADED_PROMPT_VERSION_V1} (the layout "
        "before, to reproduce an earlier job); it must belong to --scale",
    )


def add_allow_duplicate_argument(parser) -> None:
    """``--allow-duplicate``: launch even when an open job of the pool has the same
    settings (:class:`~debates.services.launch.DuplicateJobError`)."""
    parser.add_argument(
        "--allow-duplicate",
        action="store_true",
        help="Launch even when a running or paused job debates the pool with the same "
        "settings (it debates every pair again, at the same cost)",
    )


def add_check_judged_argument(parser) -> None:
    """``--check-judged``: debate only the pool's judged pairs to check the qrels' own labels
    (:mod:`debates.check_judged`)."""
    parser.add_argument(
        "--check-judged",
        action="store_true",
        default=job_option_default("check_judged"),
        help="Check the qrels: debate only the pool's judged pairs (built with "
        "--include-judged), the agents never seeing the original grade; a consensus against "
        "it goes to humans as a suspect original label, an agreeing one confirms it",
    )


def add_reuse_argument(parser) -> None:
    """``--reuse`` / ``--no-reuse``: take over the agreed labels earlier jobs of the dataset
    reached with the same reuse key (default on; debates.services.reuse)."""
    parser.add_argument(
        "--reuse",
        action=argparse.BooleanOptionalAction,
        default=job_option_default("reuse"),
        help="a pair an earlier job of the dataset settled as agreed with the same agents, "
        "sampling, prompts, scale, rounds and consensus rule takes that label without an LLM "
        "call (default on); --no-reuse asks every pair again",
    )


def launch_refusal(exc: DebateJobError) -> str:
    """A refused launch in a command's words (a duplicate says to pass --allow-duplicate; a
    refused option is named by its flag, :func:`core.fixes.error_worded`)."""
    if isinstance(exc, DuplicateJobError):
        return exc.said("pass --allow-duplicate to launch it anyway")
    return error_worded(exc, "cli")


def add_concurrency_argument(parser) -> None:
    """--concurrency N: debates (LLM requests) in flight at once."""
    parser.add_argument(
        "--concurrency",
        type=int,
        help="debates run at once without a broker, i.e. LLM requests in flight (default 16 "
        "for openai agents, 1 with an embedded one); with a broker the workers' -c bounds it",
    )


def backend_configs(
    opts: dict[str, Any], *, dataset: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The agent A and agent B backend configs the flags describe (not yet validated; the
    fields of another backend than the one chosen left out,
    :func:`~debates.services.backends.agent_fields_given`): agent B as agent A unless a
    ``-b`` flag is given, then A's fields with B's flags over them (all B's own with
    ``--backend-b``). A simulated agent without ``--truth-dataset`` takes ``dataset`` (the
    slug of the command's dataset or pool's; None: none)."""

    def flags(key: str) -> dict[str, Any]:
        return {
            name: opts[flag_dest(name, key)]
            for name in AGENT_FIELD_NAMES
            if opts.get(flag_dest(name, key)) is not None
        }

    def completed(config: dict[str, Any]) -> dict[str, Any]:
        if config["backend"] == SIMULATED_BACKEND and dataset and "dataset" not in config:
            return {**config, "dataset": dataset}
        return config

    given_a, given_b = flags(""), flags("_b")
    agent_a = completed(agent_fields_given(given_a))
    if not given_b:
        return agent_a, dict(agent_a)
    base = {} if "backend" in given_b else given_a
    return agent_a, completed(agent_fields_given({**base, **given_b}))


def other_backend_flags_refuse(opts: dict[str, Any]) -> None:
    """Refuse a backend flag that belongs to another backend than the one its agent runs
    (e.g. ``--base-url`` with ``--backend embedded``), for a command with a flag set per
    agent (``run_debates``, ``evaluate_assessor``): agent B runs ``--backend-b``, else A's
    backend. :func:`backend_configs` would leave such a flag out, and a job would run
    without the setting its user asked for. Raises CommandError naming the flag and the
    backend chosen."""
    chosen_a = ("--backend", opts.get("backend") or "embedded")
    chosen_b = ("--backend-b", opts["backend_b"]) if opts.get("backend_b") else chosen_a
    for key, agent, (chosen, backend) in (("", "A", chosen_a), ("_b", "B", chosen_b)):
        fields = AGENT_FIELDS.get(backend)
        if fields is None:  # the test backend: its fields are its factory's own
            continue
        for name in AGENT_FIELD_NAMES:
            if name == "backend" or name in fields or opts.get(flag_dest(name, key)) is None:
                continue
            flag = flag_text(name, key.replace("_", "-"))
            owners = " or ".join(b for b, names in AGENT_FIELDS.items() if name in names)
            raise CommandError(
                f"{flag} is a flag of the {owners} backend, but agent {agent} runs the "
                f"{backend} backend ({chosen} {backend})"
            )


def backend_flags_configs(
    opts: dict[str, Any], *, dataset: str | None = None
) -> tuple[AgentConfig, AgentConfig]:
    """Agent A's and agent B's typed configs from the backend flags
    (:func:`backend_configs`, with ``dataset`` the command's dataset slug for a simulated
    agent, then :func:`~debates.services.backends.agent_config_build`).
    Raises DebateJobError naming the agent and the field; a command whose flags are one
    config for both agents (no ``-b`` flags: ``pipeline``, ``demo``) names it "backend"."""
    raw_a, raw_b = backend_configs(opts, dataset=dataset)
    if "backend_b" not in opts:
        try:
            config = agent_config_build(fields=raw_a, agent="A")
        except DebateJobError as exc:
            message = _flag_named(exc, opts)
            raise DebateJobError(f"backend: {message.removeprefix('agent A: ')}") from None
        return config, config
    try:
        return (
            agent_config_build(fields=raw_a, agent="A"),
            agent_config_build(fields=raw_b, agent="B"),
        )
    except DebateJobError as exc:
        raise DebateJobError(_flag_named(exc, opts)) from None


def _flag_named(exc: DebateJobError, opts: dict[str, Any]) -> str:
    """``exc``'s message ("agent B: FIELD: why", the config's words) with the flag that sets
    FIELD (:attr:`~debates.services.common.AgentFieldError.field`) appended where its name is
    not FIELD's own, e.g. "agent B: model: required for the openai backend (flag --model-b)":
    a command's user types flags, not field names. Agent B's flag is its ``-b`` one when given
    or when ``--backend-b`` makes all of B's fields its own; otherwise B took A's value, so
    A's flag is named."""
    message = str(exc)
    if not isinstance(exc, AgentFieldError) or exc.field not in AGENT_FIELD_NAMES:
        return message
    agent, name = exc.agent, exc.field
    own_b = agent == "B" and (
        opts.get(flag_dest(name, "_b")) is not None or opts.get("backend_b") is not None
    )
    flag = flag_text(name, "-b" if own_b else "")
    if flag == option_flag(name):  # "agent A: model_path" says --model-path plainly enough
        return message
    return f"{message} (flag {flag})"


def load_pool(spec: str) -> Pool:
    """A pool named ``DATASET/NAME``, by id, or by a name unique across datasets."""
    pools = Pool.objects.select_related("dataset", "qrel_set")
    if "/" in spec:
        dataset, _, name = spec.partition("/")
        found = list(pools.filter(dataset__slug=dataset, name=name))
    elif spec.isdigit():
        found = list(pools.filter(pk=int(spec)))
    else:
        found = list(pools.filter(name=spec))
    if len(found) == 1:
        return found[0]
    known = ", ".join(f"{p.dataset.slug}/{p.name}" for p in pools.order_by("dataset__slug", "name"))
    if found:
        raise CommandError(f"pool name {spec!r} is ambiguous; say DATASET/NAME ({known})")
    raise CommandError(f"no pool {spec!r} (known: {known or 'none'})")


def load_job(pk: int) -> DebateJob:
    try:
        return DebateJob.objects.select_related("pool__dataset").get(pk=pk)
    except DebateJob.DoesNotExist:
        raise CommandError(f"no debate job {pk}") from None


def bar_total(*, debates: int, adaptive: bool, pair_limit: int | None, pool_pairs: int) -> int:
    """The pairs a job's progress bar counts to. A job on an adaptive pool (bandit, mtc) adds
    its debates batch by batch as labels arrive, so the debates it has so far (``debates``)
    are not its end: that is at most its pair limit (the pool's budget) or the pool's size,
    whichever is smaller (a job whose strategy skips pairs already labelled, by an earlier
    job, humans or stage 0, finishes below it: :func:`wait_job` then ends the bar at the
    debates made). Any other job, and a batch-file job, has all its debates from the start."""
    if not adaptive:
        return debates
    end = pool_pairs if pair_limit is None else min(pair_limit, pool_pairs)
    return max(debates, end)


def _bar(total: int, done: int, enabled: bool) -> tqdm:
    return tqdm(
        total=total,
        initial=done,
        desc="debates",
        unit=" pairs",
        file=sys.stderr,
        disable=not enabled,
        mininterval=0.5,
    )


def wait_job(
    job: DebateJob, *, progress_bar: bool, follow_only: bool = False, poll_seconds: float = 1.0
) -> JobProgress:
    """:func:`~debates.services.launch.debate_job_wait` with a progress bar: run the job's
    debates here without a broker, else follow the workers until the job stops (with
    ``follow_only`` only follow). Returns the progress at the end. Ctrl-C gives the debates
    being run back (pending, turns kept) and raises CommandError saying how to continue."""
    progress = debate_job_progress(job=job)
    pool = job.pool
    adaptive = pool.adaptive and not job.batch  # as debates.services.pool_batches decides
    total = partial(
        bar_total,
        adaptive=adaptive,
        pair_limit=job.pair_limit if job.pair_limit is not None else pool.budget,
        pool_pairs=pool.pairs.count() if adaptive else 0,
    )
    with _bar(total(debates=progress.total), progress.done, progress_bar) as bar:
        # tqdm.write keeps the bar intact below the line.
        watch = worker_warning_watch(job=job, say=lambda text: tqdm.write(text, file=sys.stderr))

        def moved(progress: JobProgress) -> None:
            watch(progress)
            bar.set_postfix(
                agreed=progress.agreed,
                escalated=progress.escalated,
                failed=progress.failed,
                refresh=False,
            )
            bar.total = total(debates=progress.total)  # an adaptive pool's job grows
            bar.update(progress.done - bar.n)

        try:
            progress = debate_job_wait(
                job=job, on_progress=moved, poll_seconds=poll_seconds, follow_only=follow_only
            )
        except KeyboardInterrupt:
            # debate_run gave the interrupted debates back (pending, turns kept).
            raise CommandError(
                f"interrupted: job {job.pk} keeps every stored turn; continue it with "
                f"`debate_job {job.pk} resume`"
            ) from None
        if progress.status == DebateJob.Status.FINISHED:
            bar.total = progress.total  # its end, also when it made fewer debates than hoped
            bar.refresh()
        return progress


def describe_agents(job: DebateJob) -> str:
    """ "agents: DESCRIPTION" when both agents are the same, else "agent A: ...; agent B: ...";
    a model file by its full path (a command's output is the operator's)."""
    a, b = (config.describe(full_path=True) for config in job.agents)
    return f"agents: {a}" if a == b else f"agent A: {a}; agent B: {b}"


def _counts(values: dict, label: str) -> str:
    if not values:
        return ""
    return " (" + ", ".join(f"{label}{k}: {v:,}" for k, v in values.items()) + ")"


def format_summary(job: DebateJob, progress: JobProgress) -> str:
    """The end-of-job summary: agreed by round, escalated by reason, failed, and per finished
    pair the LLM calls, tokens and worker seconds."""
    tokens = progress.prompt_tokens + progress.completion_tokens
    lines = [
        f"job {job.pk} ({progress.status}): {progress.total:,} pairs of pool "
        f"{job.pool.dataset.slug}/{job.pool.name}, R={job.rounds}{job_scale_describe(job)}, "
        f"{describe_agents(job)}",
        f"agreed: {progress.agreed:,}{_counts(progress.agreed_by_round, 'round ')}"
        + (f", {progress.reused:,} of them reused (no LLM call)" if progress.reused else ""),
        f"escalated: {progress.escalated:,}{_counts(progress.escalated_by_reason, '')}",
        f"failed: {progress.failed:,}",
    ]
    if job.check_judged:
        suspect = progress.escalated_by_reason.get("suspect_original", 0)
        lines.append(
            f"check of the judged pairs: {progress.agreed:,} original labels confirmed, "
            f"{suspect:,} suspect (sent to humans)"
        )
    if progress.pending or progress.running:
        lines.append(f"not finished: {progress.pending:,} pending, {progress.running:,} running")
    # Simulated debaters call no server: their calls and tokens say so, as the pages do.
    simulated = ""
    if agents_simulated(job.agent_a, job.agent_b):
        simulated = " (SIMULATED debaters: no real LLM call)"
    lines.append(
        f"per pair{simulated}: {progress.per_pair(progress.calls):.2f} LLM calls, "
        f"{progress.per_pair(tokens):,.0f} tokens "
        f"({progress.per_pair(progress.prompt_tokens):,.0f} prompt + "
        f"{progress.per_pair(progress.completion_tokens):,.0f} completion), "
        f"{progress.per_pair(progress.seconds):.2f} s"
    )
    lines.append(f"tokens{simulated}: {tokens_describe(progress)}")
    return "\n".join(lines)
