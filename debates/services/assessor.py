"""Measuring the assessor on pairs whose gold label is known (the ``evaluate_assessor``
command): :func:`evaluation_pool_create` draws a stratified pool of gold-labelled pairs,
:func:`single_judge_run` runs the single-LLM-judge baseline on it in this process, and
:func:`assessor_evaluate` scores a finished debate job and the baseline on the same pairs.
Named ``assessor`` because the pure scoring it calls lives in :mod:`debates.assessment`."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from corpora.models import Pair, Pool
from corpora.ordering import code_point
from debates import assessment, engine
from debates.engine import DebateConfig, PairText, TurnRecord
from debates.llm.base import ChatMessage, GenerationParams, LLMClient, LLMResult
from debates.llm.config import AgentConfig
from debates.models import Debate, DebateJob
from debates.retry import call_with_retry
from debates.services import backends
from debates.services.common import (
    MAX_CONCURRENCY,
    DebateJobError,
    database_release,
    error_text,
    llm_retry_attempts,
    pairs_in_order,
)
from debates.services.run import pair_text_build
from debates.votes import SampledVerdict, majority_vote, sampling_check

# What the single judge gives a pair: its turn, n samples' vote, or the error of a failed call.
Verdict = TurnRecord | SampledVerdict | str

# Kept importable from here (the command and older callers read it here); it lives with the
# pure assessment code so that stage 0 can read it without importing the job services.
DENSE_JUDGMENT_DATASETS = assessment.DENSE_JUDGMENT_DATASETS


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
    self_pairs_skipped: int = 0  # judged or ranked self-pairs left out


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
    query_pks: Collection[int] | None = None,
    name_suffix: str = "",
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
    pairs (``include_judged``). When the dataset excludes identical ids, no pair of a query
    with its own document is sampled. With ``query_pks`` only pairs of those queries are
    drawn (stage 0's held-out test queries), in a pool whose name ends with ``name_suffix``.
    One transaction. Raises DebateJobError.
    """
    from corpora.selectors import excluded_pk_pairs

    if sample < 2:
        raise DebateJobError(f"sample must be at least 2, got {sample}")
    judged = _judged_rows(qrel_set, query_pks)
    # A query's own document is never gold-sampled when the dataset excludes it.
    excluded = excluded_pk_pairs(dataset=dataset)
    relevant = [(q, d, g) for q, d, g in judged if g > 0 and (q, d) not in excluded]
    negatives: list[tuple[int, int, int | None]] = [
        (q, d, g) for q, d, g in judged if g <= 0 and (q, d) not in excluded
    ]
    skipped = sum(1 for q, d, _ in judged if (q, d) in excluded)
    source = "judged"
    entries: dict[tuple[int, int], tuple[int, float]] = {}
    if not negatives:
        source = "unjudged"
        negatives, entries, run_skipped = _unjudged_negatives(
            dataset=dataset,
            qrel_set=qrel_set,
            run=run,
            depth=depth,
            judged=judged,
            excluded=excluded,
            allowed=unjudged_negatives,
        )
        skipped += run_skipped
    rel, irr, name = _gold_draw(
        relevant, negatives, qrel_set=qrel_set, sample=sample, seed=seed, max_grade=max_grade
    )
    pool = _evaluation_pool_write(
        dataset=dataset,
        qrel_set=qrel_set,
        name=name + name_suffix,
        depth=depth,
        run=run if source == "unjudged" else None,
        rows=rel + irr,
        entries=entries,
    )
    return EvaluationSample(
        pool=pool,
        relevant=len(rel),
        irrelevant=len(irr),
        negatives=source,
        run=run,
        depth=depth,
        self_pairs_skipped=skipped,
    )


# Canonical pair order (code points of query id, then doc id): the draw depends on it.
_PAIR_ORDER = ("query__query_id", "document__doc_id")


def _judged_rows(qrel_set: Any, query_pks: Collection[int] | None) -> list[Any]:
    """``(query pk, document pk, grade)`` of every qrels row (of ``query_pks`` only, when
    given), in canonical order."""
    qrels = qrel_set.qrels if query_pks is None else qrel_set.qrels.filter(query_id__in=query_pks)
    return list(
        qrels.order_by(*[code_point(f) for f in _PAIR_ORDER]).values_list(
            "query_id", "document_id", "relevance"
        )
    )


def unjudged_negatives_check(*, dataset: Any, qrel_set: Any, allowed: bool) -> bool:
    """Whether the gold sample of ``qrel_set`` takes its irrelevant pairs from unjudged
    top-ranked ones (True when the qrels judge no pair non-relevant, i.e. none has grade <= 0).

    Raises DebateJobError when it would but may not: unjudged pairs count as irrelevant only
    where judgments are dense (``dataset`` in :data:`DENSE_JUDGMENT_DATASETS`) or ``allowed``
    (``--unjudged-negatives``). Reads the qrels only, so a command can refuse before any
    costly step (training a stage-0 judge, building a run)."""
    if qrel_set.qrels.filter(relevance__lte=0).exists():
        return False
    _unjudged_negatives_allowed(dataset=dataset, qrel_set=qrel_set, allowed=allowed)
    return True


def _unjudged_negatives_allowed(*, dataset: Any, qrel_set: Any, allowed: bool) -> None:
    """Raise DebateJobError unless unjudged pairs may count as irrelevant for ``dataset``:
    its judgments are dense or ``allowed`` (``--unjudged-negatives``)."""
    if not (allowed or assessment.dense_judgments(dataset.slug)):
        raise DebateJobError(
            f"qrels {qrel_set.name!r} of {dataset.slug!r} judge no pair non-relevant, and "
            "unjudged pairs count as irrelevant only where judgments are dense "
            f"({', '.join(DENSE_JUDGMENT_DATASETS)}); pass --unjudged-negatives to "
            "assume so"
        )


def _unjudged_negatives(
    *,
    dataset: Any,
    qrel_set: Any,
    run: Any,
    depth: int,
    judged: list[tuple[int, int, int]],
    excluded: set[tuple[int, int]],
    allowed: bool,
) -> tuple[list[tuple[int, int, int | None]], dict[tuple[int, int], tuple[int, float]], int]:
    """Irrelevant pairs for qrels that judge none non-relevant: the unjudged pairs ranked in
    the top ``depth`` of ``run`` for a judged query, in canonical order, with grade None.

    Sound only where judgments are dense, so the dataset must be in
    :data:`DENSE_JUDGMENT_DATASETS` or ``allowed`` (``--unjudged-negatives``) given; raises
    DebateJobError otherwise, or without a run. Returns (pairs, {(query pk, doc pk): (rank,
    score)}, excluded self-pairs among the ranked ones)."""
    from corpora.models import RunEntry

    # Checked here whatever the qrels as a whole hold: the sample may need unjudged
    # negatives for its held-out queries only (their qrels judge none non-relevant).
    _unjudged_negatives_allowed(dataset=dataset, qrel_set=qrel_set, allowed=allowed)
    if run is None:
        raise DebateJobError("a run is needed to take top-ranked unjudged pairs")
    judged_pairs = {(q, d) for q, d, _ in judged}
    judged_queries = {q for q, _, _ in judged}
    rows = (
        RunEntry.objects.filter(run=run, rank__lte=depth, query_id__in=judged_queries)
        .order_by(*[code_point(f) for f in _PAIR_ORDER])
        .values_list("query_id", "document_id", "rank", "score")
    )
    negatives: list[tuple[int, int, int | None]] = []
    entries: dict[tuple[int, int], tuple[int, float]] = {}
    skipped = 0
    for q, d, rank, score in rows:
        skipped += (q, d) in excluded
        if (q, d) not in judged_pairs and (q, d) not in excluded:
            negatives.append((q, d, None))
            entries[(q, d)] = (rank, score)
    return negatives, entries, skipped


def _gold_draw(
    relevant: list,
    negatives: list,
    *,
    qrel_set: Any,
    sample: int,
    seed: int,
    max_grade: int | None,
) -> tuple[list, list, str]:
    """Draw ``sample`` gold pairs with ``random.Random(seed)``: half relevant, half
    irrelevant, or with ``max_grade`` G spread evenly over the gold grades 0..G. Returns
    (relevant rows, irrelevant rows, the pool's name). Raises DebateJobError when the graded
    draw cannot be made."""
    import random

    from debates.assessment import gold_grade, stratified_sample, stratified_sample_by_grade

    if max_grade is None:
        rel, irr = stratified_sample(relevant, negatives, size=sample, rng=random.Random(seed))
        return rel, irr, f"eval-{qrel_set.name}-n{sample}-seed{seed}"
    groups: dict[int, list] = {g: [] for g in range(max_grade + 1)}
    for row in relevant + negatives:
        groups[gold_grade(row[2], max_grade=max_grade)].append(row)
    try:
        drawn = stratified_sample_by_grade(groups, size=sample, rng=random.Random(seed))
    except ValueError as exc:
        raise DebateJobError(str(exc)) from None
    rel = [row for g in range(1, max_grade + 1) for row in drawn[g]]
    return rel, drawn[0], f"eval-{qrel_set.name}-graded-n{sample}-seed{seed}"


def _evaluation_pool_write(
    *,
    dataset: Any,
    qrel_set: Any,
    name: str,
    depth: int,
    run: Any,
    rows: list,
    entries: dict[tuple[int, int], tuple[int, float]],
) -> Pool:
    """Get or create pool ``name`` (re-judging judged pairs) and add the drawn ``rows`` it
    lacks, with each unjudged pair's rank and score in ``run`` (given only when the negatives
    came from it). One transaction. Raises DebateJobError when the pool exists for other
    qrels."""
    from corpora.models import PairSource

    with transaction.atomic():
        pool, created = Pool.objects.get_or_create(
            dataset=dataset,
            name=name,
            defaults={"qrel_set": qrel_set, "depth": depth, "include_judged": True},
        )
        if not created and pool.qrel_set_id != qrel_set.pk:
            raise DebateJobError(f"pool {name!r} exists for qrels {pool.qrel_set.name!r}")
        if run is not None:
            pool.runs.add(run)
        have = set(pool.pairs.values_list("query_id", "document_id"))
        new = [
            Pair(pool=pool, query_id=q, document_id=d, original_relevance=g)
            for q, d, g in rows
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
    return pool


def single_judge_run(
    *,
    pool: Pool,
    agent: AgentConfig,
    rounds: int = 1,
    temperature: float = 0.0,
    max_tokens: int = 384,
    max_tokens_cap: int | None = None,
    on_pair: Callable[[int], object] | None = None,  # its result is ignored
    sleep: Callable[[float], None] = time.sleep,
    max_grade: int | None = None,
    concurrency: int = 1,
    prompt_version: str = "",
    samples: int = 1,
    ties: str = "lower",
) -> dict[int, Verdict]:
    """The single-LLM-judge baseline (:func:`debates.engine.judge_single`: one neutral turn,
    re-asked as a debate turn is, no debate) on every pair of ``pool``, in this process;
    ``max_tokens`` and ``max_tokens_cap`` as the job's (:mod:`debates.turns`).

    Returns ``{pair id: TurnRecord}``, or the error text when the LLM failed after the
    retries of :func:`llm_retry_attempts`. Nothing is stored. ``on_pair(pair_id)`` is called
    after each pair (one thread at a time). ``concurrency`` pairs are judged at once.
    With ``max_grade`` G the judge gives a grade 0..G (graded prompts). ``prompt_version``
    is the debate job's (the judge's prompt is the same in every version; "" the default).

    With ``samples`` n > 1 the judge is asked n times per pair, sample k with seed k
    (:func:`debates.engine.judge_single`), at ``temperature`` (above 0), and each pair's
    value is a :class:`~debates.votes.SampledVerdict`: the majority label, its vote split and
    the calls of all samples, ties broken by ``ties`` ("lower" or "escalate",
    :func:`debates.votes.majority_vote`). Raises DebateJobError for n outside 1..25 or n > 1
    at a temperature not above 0.
    """
    try:
        sampling_check(samples=samples, temperature=temperature)
        majority_vote([], ties=ties)  # an unknown tie rule is refused before any call
    except ValueError as exc:
        raise DebateJobError(str(exc)) from None
    config = DebateConfig(
        rounds=rounds,
        temperature=temperature,
        max_tokens=max_tokens,
        max_tokens_cap=max_tokens_cap,
        scale="binary" if max_grade is None else "graded",
        max_grade=1 if max_grade is None else max_grade,
        prompt_version=prompt_version,
    )
    judge_client = _retrying(backends.agent_client_get(config=agent), sleep=sleep)
    results: dict[int, Verdict] = {}
    texts = [
        (pair.pk, pair_text_build(pair=pair))
        for pair in pairs_in_order(pool).select_related("query", "document")
    ]
    lock = threading.Lock()

    def judge(item: tuple[int, PairText]) -> None:
        pk, text = item
        verdict = _judged(text, judge_client, config, samples=samples, ties=ties)
        with lock:
            results[pk] = verdict
            if on_pair is not None:
                on_pair(pk)

    if concurrency <= 1:
        for item in texts:
            judge(item)
    else:
        from concurrent.futures import ThreadPoolExecutor

        database_release()  # nothing is read or written while the judges run
        with ThreadPoolExecutor(max_workers=min(concurrency, MAX_CONCURRENCY)) as executor:
            list(executor.map(judge, texts))
    return {pk: results[pk] for pk, _ in texts}


def _judged(
    text: PairText, client: LLMClient, config: DebateConfig, *, samples: int, ties: str
) -> Verdict:
    """One pair's verdict: the judge's turn (or its error) for one sample; for n, each
    sample asked in turn with its own seed and the vote of those answered."""
    from debates.llm.base import LLMError

    if samples == 1:
        try:
            return engine.judge_single(text, client, config)
        except LLMError as exc:
            return error_text(exc)
    labels: list[int | None] = []
    errors: list[str] = []
    calls = 0
    for sample in range(samples):
        try:
            turn = engine.judge_single(text, client, config, sample=sample)
        except LLMError as exc:
            errors.append(error_text(exc))
            continue
        labels.append(turn.label)
        calls += turn.attempts
    vote = majority_vote(labels, failed=len(errors), ties=ties)
    return SampledVerdict(vote=vote, attempts=calls, errors=tuple(errors))


def single_judge_votes(*, baseline: dict[int, Verdict]) -> list[dict[str, Any]]:
    """Each sampled pair's vote, in the order of ``baseline`` (:func:`single_judge_run` with
    n > 1): ``{"pair", "query_id", "doc_id", "label", "split", "votes", "unread", "failed",
    "tie"}`` (:meth:`debates.votes.Vote.as_json`); pairs judged by one sample are left out."""
    sampled = {pk: v for pk, v in baseline.items() if isinstance(v, SampledVerdict)}
    ids = {
        pk: (query_id, doc_id)
        for pk, query_id, doc_id in Pair.objects.filter(pk__in=sampled).values_list(
            "pk", "query__query_id", "document__doc_id"
        )
    }
    return [
        {"pair": pk, "query_id": ids[pk][0], "doc_id": ids[pk][1], **verdict.vote.as_json()}
        for pk, verdict in sampled.items()
    ]


def baseline_outcome(verdict: Verdict | None) -> tuple[int | str, int]:
    """``(outcome, calls)`` of a single-judge verdict: its label (a grade on a graded
    scale), :data:`~debates.assessment.ESCALATED` when no label was read (or a sampled vote
    tied under "escalate"), :data:`~debates.assessment.FAILED` when its call (every
    sample's) failed or the pair was not judged; ``calls`` its LLM calls."""
    if isinstance(verdict, TurnRecord | SampledVerdict):
        if isinstance(verdict, SampledVerdict) and verdict.all_failed:
            return assessment.FAILED, verdict.attempts
        label = verdict.label
        return (assessment.ESCALATED if label is None else label), verdict.attempts
    return assessment.FAILED, 0


def _retrying(client: LLMClient, *, sleep: Callable[[float], None]) -> Any:
    """``client`` whose chat calls are retried on transient errors (:func:`call_with_retry`,
    :func:`llm_retry_attempts` calls), as a debate's are."""
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

    return _Retrying()


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
    baseline: dict[int, Verdict] | None = None,
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
    baseline: dict[int, Verdict] | None,
    report: AssessorReport,
    level: int,
) -> AssessorReport:
    top = job.max_grade
    rows: list[tuple[int, assessment.Outcome]] = []
    single_rows: list[tuple[int, assessment.Outcome]] = []
    calls = single_calls = 0
    for debate in job.debates.select_related("pair"):
        gold = assessment.gold_grade(debate.pair.original_relevance, max_grade=top)
        calls += debate.calls
        if debate.status == Debate.Status.AGREED:
            assert debate.final_label is not None  # an agreed debate has its label
            rows.append((gold, debate.final_label))
        elif debate.status == Debate.Status.ESCALATED:
            rows.append((gold, assessment.ESCALATED))
        else:
            rows.append((gold, assessment.FAILED))
        if baseline is not None:
            outcome, verdict_calls = baseline_outcome(baseline.get(debate.pair_id))
            single_calls += verdict_calls
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


def _assessor_binary(*, job: DebateJob, baseline: dict[int, Verdict] | None) -> AssessorReport:
    rows: list[tuple[int, assessment.Outcome]] = []
    calls = 0
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
        single_rows: list[tuple[int, assessment.Outcome]] = []
        single_calls = 0
        for pair_id, gold in gold_by_pair.items():
            outcome, verdict_calls = baseline_outcome(baseline.get(pair_id))
            single_calls += verdict_calls
            if isinstance(outcome, int):
                outcome = assessment.gold_label(outcome)  # a grade read as relevant or not
            single_rows.append((gold, outcome))
        single = assessment.assessor_scores(single_rows, calls=single_calls)
    return AssessorReport(debate=assessment.assessor_scores(rows, calls=calls), single=single)
