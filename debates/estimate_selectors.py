"""The inputs of a job's cost estimate (:mod:`debates.estimate`) read from its pool: how many
pairs the job would debate and a sample of their texts. Read-only; never reads every text of a
large pool (at most :data:`debates.estimate.SAMPLE_PAIRS` pairs' texts, spread evenly over the
pairs the job would take).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Window
from django.db.models.functions import RowNumber

from corpora.models import Pair, Pool
from debates import estimate, prompts, rubric
from debates.services.common import pairs_in_order


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


def job_pairs_sample(*, pool: Pool, limit: int | None) -> tuple[int, list[estimate.SamplePair]]:
    """``(n, sample)``: the number of pairs a job on ``pool`` with pair limit ``limit`` (None:
    all) would debate, and the texts of up to :data:`debates.estimate.SAMPLE_PAIRS` of them:
    every ``ceil(n / SAMPLE_PAIRS)``-th in the canonical order the job takes them in (the
    database numbers the rows; only the sampled rows' texts are read)."""
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
    rows = numbered.values_list(
        "query__text", "query__answers", "document__title", "document__text"
    ).order_by(F("number").asc())
    sample = [
        estimate.SamplePair(
            query=query or "",
            title=title or "",
            chunk=text or "",
            answers=tuple(str(a) for a in (answers or ())),
        )
        for query, answers, title, text in rows
    ]
    return n, sample


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
) -> EstimateInputs:
    """The estimate's inputs for a job on ``pool`` (the first ``limit`` pairs; R =
    ``rounds``; a turn's first budget ``max_tokens``; ``scale`` and ``prompt_version`` as the
    job form takes them, "" the scale's newest): prompt tokens per call from the real prompts
    built for the sampled pairs (:func:`debates.estimate.round_one_tokens`, averaged), plus the
    later rounds' history, completion tokens and calls per pair by the rules of
    :mod:`debates.estimate`. Raises ValueError for a prompt version the scale does not have
    or R < 1."""
    version = prompts.prompt_version_check(prompt_version, scale)
    max_grade = _max_grade(pool, scale)
    n, sample = job_pairs_sample(pool=pool, limit=limit)
    completion = estimate.completion_tokens_per_call(max_tokens)
    round_one = (
        sum(estimate.round_one_tokens(p, version=version, max_grade=max_grade) for p in sample)
        / len(sample)
        if sample
        else 0.0
    )
    per_call = estimate.prompt_tokens_per_call(
        round_one=round_one,
        history_fixed=estimate.history_fixed_tokens(version=version, max_grade=max_grade),
        completion=completion,
        rounds=rounds,
    )
    return EstimateInputs(
        pairs=n,
        sampled=len(sample),
        prompt_tokens_per_call=per_call,
        completion_tokens_per_call=completion,
        calls_per_pair=estimate.calls_per_pair(rounds),
    )
