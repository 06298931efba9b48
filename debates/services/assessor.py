"""Measuring the assessor on pairs whose gold label is known (the ``evaluate_assessor``
command): :func:`evaluation_pool_create` draws a stratified pool of gold-labelled pairs,
:func:`single_judge_run` runs the single-LLM-judge baseline on it in this process, and
:func:`assessor_evaluate` scores a finished debate job and the baseline on the same pairs.
Named ``assessor`` because the pure scoring it calls lives in :mod:`debates.assessment`."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from corpora.models import Pair, Pool
from debates import engine
from debates.engine import DebateConfig, TurnRecord
from debates.llm.base import ChatMessage, GenerationParams, LLMResult
from debates.models import Debate, DebateJob
from debates.retry import call_with_retry
from debates.services import backends
from debates.services.common import (
    DebateJobError,
    _code_point,
    _error_text,
    _pairs_in_order,
    llm_retry_attempts,
)
from debates.services.run import pair_text_build

# Benchmarks whose judgments are dense enough that an unjudged, top-ranked document of a
# judged query may be taken as irrelevant (see the evaluate_assessor README section).
DENSE_JUDGMENT_DATASETS = ("nfcorpus-test", "nfcorpus", "cranfield", "cisi", "med", "vaswani")


@dataclass(frozen=True)
class EvaluationSample:
    """A pool of gold-labelled pairs for measuring the assessor.

    ``negatives`` says where the irrelevant pairs came from: ``"judged"`` (grade <= 0 in the
    qrels) or ``"unjudged"`` (top-ranked by ``run`` at rank <= ``depth``, not judged).
    """

    pool: Pool
    relevant: int
    irrelevant: int
    negatives: str
    run: Any = None
    depth: int = 10


def evaluation_pool_create(
    *,
    dataset: Any,
    qrel_set: Any,
    sample: int,
    seed: int = 0,
    run: Any = None,
    depth: int = 10,
    unjudged_negatives: bool = False,
    max_grade: int | None = None,
) -> EvaluationSample:
    """Create (or reuse) pool ``eval-<qrels>-n<sample>-seed<seed>`` of a stratified sample of
    pairs with a known gold label: half judged relevant (grade > 0), half irrelevant. With
    ``max_grade`` G (graded evaluation) the pool is ``eval-<qrels>-graded-n<sample>-seed<seed>``
    and the draw is spread evenly over the gold grades 0..G instead
    (:func:`debates.assessment.stratified_sample_by_grade`).

    Irrelevant pairs are the qrels' judged non-relevant ones (grade <= 0) when there are any;
    otherwise unjudged pairs ranked in the top ``depth`` of ``run`` for a judged query, which
    is only sound where judgments are dense: the dataset must be in
    :data:`DENSE_JUDGMENT_DATASETS` or ``unjudged_negatives`` must be given. The draw uses
    ``random.Random(seed)`` over pairs in canonical order, so it is reproducible. Pairs keep
    their grade (``original_relevance``; None for unjudged) and the pool re-judges judged
    pairs (``include_judged``). One transaction. Raises DebateJobError.
    """
    import random

    from corpora.models import PairSource, RunEntry
    from debates.assessment import stratified_sample

    if sample < 2:
        raise DebateJobError(f"sample must be at least 2, got {sample}")
    order = ("query__query_id", "document__doc_id")
    judged = qrel_set.qrels.order_by(*[_code_point(f) for f in order]).values_list(
        "query_id", "document_id", "relevance"
    )
    relevant = [(q, d, g) for q, d, g in judged if g > 0]
    negatives = [(q, d, g) for q, d, g in judged if g <= 0]
    source, entries = "judged", {}
    if not negatives:
        if not (unjudged_negatives or dataset.slug in DENSE_JUDGMENT_DATASETS):
            raise DebateJobError(
                f"qrels {qrel_set.name!r} of {dataset.slug!r} judge no pair non-relevant, and "
                "unjudged pairs count as irrelevant only where judgments are dense "
                f"({', '.join(DENSE_JUDGMENT_DATASETS)}); pass --unjudged-negatives to "
                "assume so"
            )
        if run is None:
            raise DebateJobError("a run is needed to take top-ranked unjudged pairs")
        source = "unjudged"
        judged_pairs = {(q, d) for q, d, _ in judged}
        judged_queries = {q for q, _, _ in judged}
        rows = (
            RunEntry.objects.filter(run=run, rank__lte=depth, query_id__in=judged_queries)
            .order_by(*[_code_point(f) for f in order])
            .values_list("query_id", "document_id", "rank", "score")
        )
        for q, d, rank, score in rows:
            if (q, d) not in judged_pairs:
                negatives.append((q, d, None))
                entries[(q, d)] = (rank, score)
    if max_grade is None:
        rel, irr = stratified_sample(relevant, negatives, size=sample, rng=random.Random(seed))
        name = f"eval-{qrel_set.name}-n{sample}-seed{seed}"
    else:
        from debates.assessment import gold_grade, stratified_sample_by_grade

        groups: dict[int, list] = {g: [] for g in range(max_grade + 1)}
        for row in relevant + negatives:
            groups[gold_grade(row[2], max_grade=max_grade)].append(row)
        try:
            drawn = stratified_sample_by_grade(groups, size=sample, rng=random.Random(seed))
        except ValueError as exc:
            raise DebateJobError(str(exc)) from None
        rel = [row for g in range(1, max_grade + 1) for row in drawn[g]]
        irr = drawn[0]
        name = f"eval-{qrel_set.name}-graded-n{sample}-seed{seed}"
    with transaction.atomic():
        pool, created = Pool.objects.get_or_create(
            dataset=dataset,
            name=name,
            defaults={"qrel_set": qrel_set, "depth": depth, "include_judged": True},
        )
        if not created and pool.qrel_set_id != qrel_set.pk:
            raise DebateJobError(f"pool {name!r} exists for qrels {pool.qrel_set.name!r}")
        if run is not None and source == "unjudged":
            pool.runs.add(run)
        have = set(pool.pairs.values_list("query_id", "document_id"))
        new = [
            Pair(pool=pool, query_id=q, document_id=d, original_relevance=g)
            for q, d, g in rel + irr
            if (q, d) not in have
        ]
        Pair.objects.bulk_create(new)
        if entries:
            PairSource.objects.bulk_create(
                [
                    PairSource(pair=p, run=run, rank=entries[key][0], score=entries[key][1])
                    for p in new
                    if (key := (p.query_id, p.document_id)) in entries
                ]
            )
    return EvaluationSample(
        pool=pool, relevant=len(rel), irrelevant=len(irr), negatives=source, run=run, depth=depth
    )


def single_judge_run(
    *,
    pool: Pool,
    agent: dict[str, Any],
    rounds: int = 1,
    temperature: float = 0.0,
    max_tokens: int = 384,
    on_pair: Callable[[int], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    max_grade: int | None = None,
) -> dict[int, TurnRecord | str]:
    """The single-LLM-judge baseline (:func:`debates.engine.judge_single`: one neutral call,
    at most one re-ask, no debate) on every pair of ``pool``, in this process.

    Returns ``{pair id: TurnRecord}``, or the error text when the LLM failed after the
    retries of :func:`llm_retry_attempts`. Nothing is stored. ``on_pair(pair_id)`` is called
    after each pair. With ``max_grade`` G the judge gives a grade 0..G (graded prompts).
    """
    from debates.llm.base import LLMError

    graded = {} if max_grade is None else {"scale": "graded", "max_grade": max_grade}
    config = DebateConfig(rounds=rounds, temperature=temperature, max_tokens=max_tokens, **graded)
    client = backends.agent_client_get(config=backends.agent_config_validate(agent))
    attempts = llm_retry_attempts()

    class _Retrying:
        model = client.model

        @property
        def context_window(self) -> int:
            return client.context_window

        def count_tokens(self, text: str) -> int:
            return client.count_tokens(text)

        def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
            return call_with_retry(
                lambda: client.chat(messages, params), attempts=attempts, sleep=sleep
            )

    results: dict[int, TurnRecord | str] = {}
    pairs = _pairs_in_order(pool).select_related("query", "document")
    for pair in pairs:
        try:
            results[pair.pk] = engine.judge_single(pair_text_build(pair=pair), _Retrying(), config)
        except LLMError as exc:
            results[pair.pk] = _error_text(exc)
        if on_pair is not None:
            on_pair(pair.pk)
    return results


@dataclass(frozen=True)
class AssessorReport:
    """The debate job's and the single judge's scores on the same gold pairs."""

    debate: Any  # assessment.AssessorScores
    single: Any  # assessment.AssessorScores | None
    graded_debate: Any = None  # assessment.GradedScores, for a graded job
    graded_single: Any = None  # assessment.GradedScores | None


def assessor_evaluate(
    *,
    job: DebateJob,
    baseline: dict[int, TurnRecord | str] | None = None,
    relevance_level: int = 1,
) -> AssessorReport:
    """Score a finished job on its pool's gold labels (see :mod:`debates.assessment`), and the
    single-judge ``baseline`` (from :func:`single_judge_run`) on the same pairs.

    Debates that are not agreed count as escalated (a human decides) or, when failed or not
    finished, as failed; a baseline reply that could not be read counts as escalated (not
    labelled), an LLM error as failed. Calls are LLM calls including re-asks.

    For a graded job the report also holds :class:`~debates.assessment.GradedScores` against
    the gold grades (:func:`~debates.assessment.gold_grade`), a grade >= ``relevance_level``
    counting as relevant; the binary scores then read every grade >= 1 as relevant.
    """
    report = _assessor_binary(job=job, baseline=baseline)
    if job.scale != DebateJob.Scale.GRADED:
        return report
    return _assessor_graded(job=job, baseline=baseline, report=report, level=relevance_level)


def _assessor_graded(
    *,
    job: DebateJob,
    baseline: dict[int, TurnRecord | str] | None,
    report: AssessorReport,
    level: int,
) -> AssessorReport:
    from debates import assessment

    top = job.max_grade
    rows, single_rows, calls, single_calls = [], [], 0, 0
    for debate in job.debates.select_related("pair"):
        gold = assessment.gold_grade(debate.pair.original_relevance, max_grade=top)
        calls += debate.calls
        if debate.status == Debate.Status.AGREED:
            rows.append((gold, int(debate.final_label)))
        elif debate.status == Debate.Status.ESCALATED:
            rows.append((gold, assessment.ESCALATED))
        else:
            rows.append((gold, assessment.FAILED))
        if baseline is not None:
            verdict = baseline.get(debate.pair_id)
            if isinstance(verdict, TurnRecord):
                single_calls += verdict.attempts
                outcome = assessment.ESCALATED if verdict.label is None else verdict.label
            else:
                outcome = assessment.FAILED
            single_rows.append((gold, outcome))
    score = assessment.graded_scores
    return AssessorReport(
        debate=report.debate,
        single=report.single,
        graded_debate=score(rows, max_grade=top, relevance_level=level, calls=calls),
        graded_single=(
            score(single_rows, max_grade=top, relevance_level=level, calls=single_calls)
            if baseline is not None
            else None
        ),
    )


def _assessor_binary(
    *, job: DebateJob, baseline: dict[int, TurnRecord | str] | None
) -> AssessorReport:
    from debates import assessment

    rows, calls = [], 0
    gold_by_pair: dict[int, int] = {}
    for debate in job.debates.select_related("pair"):
        gold = assessment.gold_label(debate.pair.original_relevance)
        gold_by_pair[debate.pair_id] = gold
        calls += debate.calls
        if debate.status == Debate.Status.AGREED:
            rows.append((gold, assessment.gold_label(debate.final_label)))
        elif debate.status == Debate.Status.ESCALATED:
            rows.append((gold, assessment.ESCALATED))
        else:
            rows.append((gold, assessment.FAILED))
    single = None
    if baseline is not None:
        single_rows, single_calls = [], 0
        for pair_id, gold in gold_by_pair.items():
            verdict = baseline.get(pair_id)
            if isinstance(verdict, TurnRecord):
                single_calls += verdict.attempts
                label = verdict.label
                outcome = assessment.ESCALATED if label is None else assessment.gold_label(label)
            else:
                outcome = assessment.FAILED
            single_rows.append((gold, outcome))
        single = assessment.assessor_scores(single_rows, calls=single_calls)
    return AssessorReport(debate=assessment.assessor_scores(rows, calls=calls), single=single)
