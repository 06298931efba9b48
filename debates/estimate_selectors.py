"""The inputs of a job's cost estimate (:mod:`debates.estimate`) read from its pool: how many
pairs the job would debate, which of them are too long for the agents' context, and a sample
of their texts. Read-only; never reads every text of a large pool (at most
:data:`debates.estimate.SAMPLE_PAIRS` pairs' texts, spread evenly over the pairs the job would
take), nor more of a text than could be sent (:data:`debates.estimate.CHARS_PER_TOKEN_MAX`
characters a token of the room).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Q, Window
from django.db.models.functions import RowNumber, Substr

from corpora.models import Pair, Pool
from corpora.services.long_texts import texts_longer_than
from debates import estimate, prompts, rubric
from debates.llm.config import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_EMBEDDED_N_CTX,
    GGUF_N_CTX_CAP,
    AgentConfig,
)
from debates.models import DebateJob
from debates.services.common import pairs_in_order

#: The most too-long pairs an estimate or a launch names.
TOO_LONG_NAMES = 10


@dataclass(frozen=True, slots=True)
class EstimateInputs:
    """What :func:`debates.estimate.job_cost_estimate` takes, with where it came from:
    ``pairs`` to debate, ``sampled`` pairs whose texts were read, and per call the estimated
    prompt and completion tokens; ``calls_per_pair`` from R."""

    pairs: int
    sampled: int
    prompt_tokens_per_call: float
    completion_tokens_per_call: int
    calls_per_pair: float
    #: Pairs that cannot fit the context (they make no call; not in ``pairs``), some named.
    too_long: int = 0
    too_long_names: tuple[str, ...] = ()
    #: The context (tokens) assumed, and the prompt's room in it.
    context_window: int = DEFAULT_CONTEXT_WINDOW
    prompt_limit: int = 0


def agent_context_window(config: AgentConfig) -> int:
    """The context window (tokens) a job's agent will have, as far as it is known without
    asking a server or opening a model file: the config's ``context_window`` or ``n_ctx``;
    else the embedded model's default (a GGUF file: at most its cap); else the OpenAI-style
    default, :data:`~debates.llm.config.DEFAULT_CONTEXT_WINDOW`."""
    if config.context_window or config.n_ctx:
        return int(config.context_window or config.n_ctx or 0)
    if config.backend == "embedded":
        return GGUF_N_CTX_CAP if config.model_path else DEFAULT_EMBEDDED_N_CTX
    return DEFAULT_CONTEXT_WINDOW


def _pair_name(query_id: str, doc_id: str) -> str:
    return f"{query_id} / {doc_id}"


def job_pairs_sample(
    *, pool: Pool, limit: int | None, chars: int | None = None
) -> tuple[int, list[estimate.SamplePair]]:
    """``(n, sample)``: the number of pairs a job on ``pool`` with pair limit ``limit`` (None:
    all) would debate, and the texts of up to :data:`debates.estimate.SAMPLE_PAIRS` of them:
    every ``ceil(n / SAMPLE_PAIRS)``-th in the canonical order the job takes them in (the
    database numbers the rows; only the sampled rows' texts are read). With ``chars``, at
    most ``chars + 1`` characters of each text are read: a query or title longer than
    ``chars`` marks the sample ``too_long``, a document is read only that far."""
    total = Pair.objects.filter(pool=pool).count()
    n = min(total, limit) if limit else total
    if n == 0:
        return 0, []
    step = math.ceil(n / estimate.SAMPLE_PAIRS)
    ordered = pairs_in_order(pool)
    # The window numbers the rows in the same canonical order the job takes them in.
    order: list[Any] = list(ordered.query.order_by)
    numbered = ordered.annotate(number=Window(RowNumber(), order_by=order)).filter(
        number__in=list(range(1, n + 1, step))
    )
    fields = ["query__text", "document__title", "document__text"]
    if chars is not None:
        # Read only the beginning of each text: the database cuts it, so a 5 MB document
        # never leaves the server whole.
        numbered = numbered.annotate(
            **{f"cut_{i}": Substr(f, 1, chars + 1) for i, f in enumerate(fields)}
        )
        fields = [f"cut_{i}" for i in range(len(fields))]
    rows = numbered.values_list(
        fields[0], "query__answers", fields[1], fields[2], "query__query_id", "document__doc_id"
    ).order_by(F("number").asc())
    sample = [
        estimate.SamplePair(
            query=query or "",
            title=title or "",
            chunk=text or "",
            answers=tuple(str(a) for a in (answers or ())),
            name=_pair_name(query_id, doc_id),
            too_long=chars is not None and max(len(query or ""), len(title or "")) > chars,
        )
        for query, answers, title, text, query_id, doc_id in rows
    ]
    return n, sample


def pairs_too_long(*, pool: Pool, limit: int | None, chars: int) -> tuple[int, list[str]]:
    """``(count, names)``: of the pairs a job on ``pool`` with pair limit ``limit`` would
    debate, those whose query or document title is longer than ``chars`` characters (so they
    cannot fit the agents' context, :func:`debates.estimate.chars_cannot_fit`), and the first
    :data:`TOO_LONG_NAMES` of them as "query id / doc id", in the job's order. Lengths are
    read from the texts' stored sizes first, so a long text is never sent whole."""
    pairs = Pair.objects.filter(pool=pool)
    long_query, long_title = (
        texts_longer_than(pairs, field=field, chars=chars).values("pk")
        for field in ("query__text", "document__title")
    )
    ordered = pairs_in_order(pool)
    if limit:
        ordered = ordered.filter(pk__in=ordered[:limit].values("pk"))
    long = ordered.filter(Q(pk__in=long_query) | Q(pk__in=long_title))
    names = [
        _pair_name(q, d)
        for q, d in long.values_list("query__query_id", "document__doc_id")[:TOO_LONG_NAMES]
    ]
    return long.count(), names


def job_too_long_pairs(*, job: DebateJob) -> tuple[int, list[str], int]:
    """``(count, names, context)`` for a stored ``job``: its pairs whose query or title is
    too long for its agents' smaller context (``context``, tokens) at its budget, by the
    character bound of :func:`pairs_too_long`. Read-only and cheap (stored sizes first)."""
    context = min(agent_context_window(config) for config in job.agents)
    room = estimate.prompt_limit(context_window=context, max_tokens=job.max_tokens)
    count, names = pairs_too_long(
        pool=job.pool, limit=job.pair_limit, chars=room * estimate.CHARS_PER_TOKEN_MAX
    )
    return count, names, context


def _max_grade(pool: Pool, scale: str) -> int | None:
    """G for a graded job's prompts (the pool's qrels top grade, as the launch takes it), None
    when binary or when G is outside the rubric (the launch refuses that job anyway)."""
    if scale != "graded":
        return None
    from corpora.selectors import qrels_top_grade

    grade = qrels_top_grade(qrel_set=pool.qrel_set)
    return grade if rubric.MIN_GRADE <= grade <= rubric.MAX_GRADE else None


def job_estimate_inputs(
    *,
    pool: Pool,
    limit: int | None,
    rounds: int,
    max_tokens: int,
    scale: str = "binary",
    prompt_version: str = "",
    context_window: int = DEFAULT_CONTEXT_WINDOW,
) -> EstimateInputs:
    """The estimate's inputs for a job on ``pool`` (the first ``limit`` pairs; R =
    ``rounds``; a turn's first budget ``max_tokens``; ``scale`` and ``prompt_version`` as the
    job form takes them, "" the scale's newest; the agents' smaller ``context_window``):
    prompt tokens per call from the real prompts built for the sampled pairs
    (:func:`debates.estimate.pair_round_one_tokens`, averaged over those that fit), plus the
    later rounds' history, completion tokens and calls per pair by the rules of
    :mod:`debates.estimate`. Pairs too long for the context (:func:`pairs_too_long`, plus
    sampled pairs whose prompt without a chunk does not fit) are counted apart and left out
    of ``pairs``: they make no call. Raises ValueError for a prompt version the scale does
    not have or R < 1."""
    version = prompts.prompt_version_check(prompt_version, scale)
    max_grade = _max_grade(pool, scale)
    room = estimate.prompt_limit(context_window=context_window, max_tokens=max_tokens)
    chars = room * estimate.CHARS_PER_TOKEN_MAX
    n, sample = job_pairs_sample(pool=pool, limit=limit, chars=chars)
    too_long, names = pairs_too_long(pool=pool, limit=limit, chars=chars)
    completion = estimate.completion_tokens_per_call(max_tokens)
    counted = [
        (p, estimate.pair_round_one_tokens(p, version=version, limit=room, max_grade=max_grade))
        for p in sample
    ]
    fits = [tokens for _, tokens in counted if tokens is not None]
    # A sampled pair within the length bound whose prompt still does not fit: too long too.
    by_tokens = [p.name for p, tokens in counted if tokens is None and not p.too_long]
    round_one = sum(fits) / len(fits) if fits else 0.0
    per_call = estimate.prompt_tokens_per_call(
        round_one=round_one,
        history_fixed=estimate.history_fixed_tokens(version=version, max_grade=max_grade),
        completion=completion,
        rounds=rounds,
    )
    too_long += len(by_tokens)
    return EstimateInputs(
        pairs=max(0, n - too_long),
        sampled=len(sample),
        prompt_tokens_per_call=per_call,
        completion_tokens_per_call=completion,
        calls_per_pair=estimate.calls_per_pair(rounds),
        too_long=too_long,
        too_long_names=tuple((names + by_tokens)[:TOO_LONG_NAMES]),
        context_window=context_window,
        prompt_limit=room,
    )
