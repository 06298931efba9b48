"""RAG alignment from the database: generate answers from runs' top-k chunks, store them,
score them, and compare "a relevant chunk in the top k" with "the answer is correct".

For each run and each evaluation query (judged in the original qrels and with reference answers), a
generator answers from the run's top ``k`` chunks with the fixed, versioned prompt of
:mod:`assess.evaluation.rag` (:data:`~assess.evaluation.rag.RAG_PROMPT_VERSION`, temperature 0). The
answer is stored as a :class:`~assess.models.RagGeneration` and reused: the same (run, query, k,
generator, prompt version) is never generated twice, the generator being the backend kind, its
server and the model (:func:`generator_key`), so two servers that report the same model name never
share answers. Stored answers are scored against the reference answers as they are when the report
is made (``import_answers`` may have changed them since the answer was generated); scoring is cheap,
generating is not.

Per system: answer accuracy (a normalised reference answer is contained in the answer,
DREAM paper §5), SQuAD exact match and token F1, Success@k with the original and with the
refined qrels, and

    RAGAlign@k = |{q : hit_k(q) == correct(q)}| / |Q|

(DREAM paper, Ban et al., ICLR 2026, arXiv 2602.06526) with each qrel set; across systems,
the Pearson and Spearman correlation between Success@k and accuracy.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, overload

from django.db import IntegrityError, connection, transaction
from django.db.models import Count

from core.text import text_storable
from corpora.identical import skip_identical
from corpora.models import Dataset, QrelSet, Query, Run, RunEntry
from corpora.services import qrels_rows, run_rows
from debates.llm.base import GenerationParams, LLMClient, LLMResult
from debates.llm.config import TEST_BACKEND, AgentConfig
from debates.llm.policy import DEFAULT_ENDPOINT
from debates.replies import reply_split
from debates.retry import call_with_retry

from ..models import RagGeneration
from . import metrics, rag
from .rag_context import fit_rag_messages

# Answers are a short phrase; 64 tokens leave room for a sentence without wasting context.
RAG_MAX_TOKENS = 64
RAG_RETRY_ATTEMPTS = 5


class RagError(ValueError):
    """A RAG evaluation that cannot run (no reference answers, unknown run or qrels...)."""


@dataclass
class RagSystem:
    """One run's RAG figures over ``queries`` queries (shares in [0, 1]).

    ``per_query`` maps query ids to ``(hit with original qrels, hit with refined qrels,
    answer correct)``; the refined fields are None without a refined set.
    """

    run: str
    queries: int
    accuracy: float
    exact_match: float
    f1: float
    success_original: float
    success_refined: float | None
    align_original: float
    align_refined: float | None
    generated: int
    reused: int
    per_query: dict[str, tuple[bool, bool | None, bool]] = field(default_factory=dict)


@dataclass
class RagReport:
    """A RAG evaluation: settings, the evaluation queries, one :class:`RagSystem` per run,
    and the correlations across systems between Success@k and accuracy (None with fewer
    than 3 systems or a constant column). ``generator`` is the :func:`generator_key` of the
    answers' generator, ``backend`` its description for people."""

    dataset: str
    k: int
    model: str
    generator: str
    backend: str
    prompt_version: str
    original: str
    refined: str | None
    queries: list[str]
    systems: list[RagSystem]
    correlation_original: rag.Correlation | None
    correlation_refined: rag.Correlation | None


@dataclass(frozen=True)
class RagGenerator:
    """One generator with answers stored for a dataset at some k: its :func:`generator_key`,
    model name, and how many answers it has there."""

    key: str
    model: str
    answers: int


def generator_key(*, backend: AgentConfig, model: str) -> str:
    """The generator that answers with ``backend`` (its backend config) and ``model``:
    ``"<backend kind>:<server>:<model>"``, e.g. ``openai:http://gpu1:8000/v1:llama-70b`` or
    ``embedded:in-process:SmolLM2-135M-Instruct-Q4_1``. The server is the config's base URL; without
    one, the OpenAI API (the backend never reads ``OPENAI_BASE_URL``). Operational settings (API key
    variable, timeout, rate limit) are left out: they do not change an answer. So is the context
    window, although it decides how far the chunks are cut to fit
    (:func:`assess.evaluation.rag_context.fit_rag_messages`): answers made under one context size
    are reused under another; to compare context sizes, serve them under different model names. At
    most 400 characters (the column's length)."""
    kind = backend.backend
    server = backend.base_url
    if not server:
        if kind == "embedded":
            server = "in-process"
        elif kind == "openai":
            server = DEFAULT_ENDPOINT
        else:
            server = "default"
    return f"{kind}:{str(server).rstrip('/')}:{model}"[:400]


def rag_queries(*, dataset: Dataset, original: QrelSet, limit: int | None = None) -> list[Query]:
    """The evaluation queries: judged in ``original`` and with reference answers, sorted by
    query id (code point), the first ``limit``. Raises :class:`RagError` when the dataset
    has no reference answers, or none of its judged queries has one."""
    with_answers = [
        q for q in Query.objects.filter(dataset=dataset).exclude(answers=[]) if q.answers
    ]
    if not with_answers:
        raise RagError(
            f"dataset {dataset.slug!r} has no reference answers, so answers cannot be scored; "
            "import them first (import_answers DATASET FILE)"
        )
    judged = set(original.qrels.values_list("query_id", flat=True).distinct())
    queries = sorted((q for q in with_answers if q.pk in judged), key=lambda q: q.query_id)
    if not queries:
        raise RagError(
            f"none of the {len(with_answers):,} queries with reference answers is judged in qrel "
            f"set {original.name!r}"
        )
    return queries[:limit] if limit else queries


def _top_chunks(run: Run, queries: Sequence[Query], k: int) -> dict[int, list[tuple]]:
    chunks: dict[int, list[tuple]] = {q.pk: [] for q in queries}
    # With identical ids excluded, the query's own document is never a context chunk;
    # one more rank is read so that k remain.
    exclude_self = run.dataset.exclude_identical_ids
    own = {q.pk: q.query_id for q in queries} if exclude_self else {}
    entries = (
        RunEntry.objects.filter(run=run, query__in=list(chunks), rank__lte=k + int(exclude_self))
        .order_by("query_id", "rank")
        .values_list("query_id", "document__doc_id", "document__title", "document__text")
    )
    for query_pk, doc_id, title, text in entries:
        if own.get(query_pk) != doc_id and len(chunks[query_pk]) < k:
            chunks[query_pk].append((doc_id, title, text))
    return chunks


def rag_generations_ensure(
    *,
    run: Run,
    queries: Sequence[Query],
    k: int,
    client: LLMClient,
    backend: AgentConfig,
    on_answer: Callable[[RagGeneration], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    concurrency: int = 1,
) -> tuple[dict[str, RagGeneration], int]:
    """The stored generation of every query for ``run`` at ``k`` by the generator of
    ``backend`` and ``client.model`` (:func:`generator_key`) with the current prompt version,
    generating (and storing, one row each) only the missing ones.

    Each prompt holds the run's top ``k`` chunks (title and text), cut to fit the client's
    context (:func:`assess.evaluation.rag_context.fit_rag_messages`); temperature 0, at most
    :data:`RAG_MAX_TOKENS` answer tokens; transient LLM errors are retried with backoff.
    ``concurrency`` answers are generated at once (threads, each with its own database
    connection, none held across an LLM call). Returns ``({query_id: RagGeneration},
    generated now)``. LLM errors that remain propagate (the answers stored so far are kept).
    """
    version = rag.RAG_PROMPT_VERSION
    generator = generator_key(backend=backend, model=client.model)
    stored_backend = backend.dump()
    stored = {
        g.query_id: g
        for g in RagGeneration.objects.filter(
            run=run, query__in=queries, k=k, generator=generator, prompt_version=version
        )
    }
    missing = [q for q in queries if q.pk not in stored]
    chunks = _top_chunks(run, missing, k) if missing else {}
    params = GenerationParams(temperature=0.0, max_tokens=RAG_MAX_TOKENS, seed=0)
    counts = {"generated": 0}
    lock = threading.Lock()

    def generate(query: Query) -> None:
        top = chunks[query.pk]
        messages, used, truncated = fit_rag_messages(
            client, query.text, top, max_tokens=RAG_MAX_TOKENS
        )
        if not connection.in_atomic_block:
            connection.close()  # no connection idles across the call (see debate_run)
        reply = call_with_retry(
            partial(client.chat, messages, params), attempts=RAG_RETRY_ATTEMPTS, sleep=sleep
        )
        row = RagGeneration(
            run=run,
            query=query,
            k=k,
            backend=stored_backend,
            model=client.model,
            generator=generator,
            prompt_version=version,
            doc_ids=[doc_id for doc_id, _, _ in top[:used]],
            chunks_truncated=truncated or used < len(top),
            **_answer_scored(reply, query),
        )
        try:
            with transaction.atomic():
                row.save()
            with lock:
                counts["generated"] += 1
        except IntegrityError:
            # Another process stored the same generation meanwhile: keep theirs.
            row = RagGeneration.objects.get(
                run=run, query=query, k=k, generator=generator, prompt_version=version
            )
        with lock:
            stored[query.pk] = row
            if on_answer is not None:
                on_answer(row)

    _each_query(generate, missing, concurrency=concurrency)
    by_id = {q.pk: q.query_id for q in queries}
    return {by_id[pk]: g for pk, g in stored.items()}, counts["generated"]


def _answer_scored(reply: LLMResult, query: Query) -> dict[str, Any]:
    """The RagGeneration fields of one LLM ``reply`` to ``query``: the answer (stripped; a
    reasoning model's ``<think>…</think>`` left out, :func:`debates.replies.reply_split`;
    NUL and lone surrogates replaced, :func:`core.text.text_storable`), its scores against
    the query's reference answers, and the call's tokens and latency."""
    answer = text_storable(reply_split(reply.text).answer.strip())
    references = [str(a) for a in query.answers]
    return {
        "answer": answer,
        "correct": rag.answer_correct(answer, references),
        "exact_match": rag.exact_match(answer, references),
        "f1": rag.token_f1(answer, references),
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "latency_ms": reply.latency_ms,
    }


def _each_query(
    generate: Callable[[Query], None], queries: Sequence[Query], *, concurrency: int
) -> None:
    """Call ``generate`` on every query, ``concurrency`` at once in threads (each closing its
    own database connection when done), or one after the other inside a transaction, since
    threads have their own connections and would not see its rows. The first error
    propagates (the answers stored so far are kept)."""
    if concurrency <= 1 or len(queries) <= 1 or connection.in_atomic_block:
        for query in queries:
            generate(query)
        return

    def generate_in_thread(query: Query) -> None:
        try:
            generate(query)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=min(concurrency, len(queries))) as pool:
        # list() re-raises the first LLM error; the answers stored so far are kept.
        list(pool.map(generate_in_thread, queries))


def rag_client(*, backend: dict[str, Any] | None) -> tuple[LLMClient, AgentConfig]:
    """The generator client for a backend config and the config parsed (never a key);
    same backends and validation as the debate agents
    (:func:`debates.services.agent_config_validate`). Raises :class:`RagError`."""
    from debates.services import DebateJobError, agent_client_get, agent_config_validate

    try:
        config = agent_config_validate(backend, agent="generator")
        return agent_client_get(config=config), config
    except (DebateJobError, ValueError) as exc:
        raise RagError(str(exc)) from None


def _injected_config(backend: dict[str, Any] | None) -> AgentConfig:
    # A client handed in (the tests' scripted ones) is recorded under the config given with
    # it, read as a stored one is; without one, as the test backend it stands in for.
    if not backend:
        return AgentConfig(backend=TEST_BACKEND)
    try:
        return AgentConfig.stored(backend)
    except ValueError as exc:
        raise RagError(f"generator: {exc}") from None


def answers_score(
    *, generations: Mapping[str, RagGeneration], references: Mapping[str, Sequence[str]]
) -> dict[str, tuple[bool, bool, float]]:
    """``{query_id: (correct, exact match, token F1)}`` of each stored answer against the query's
    reference answers in ``references`` (the current ones, not those of the time the answer was
    generated): :func:`assess.evaluation.rag.answer_correct`,
    :func:`~assess.evaluation.rag.exact_match`, :func:`~assess.evaluation.rag.token_f1`. Raises
    KeyError for a query without references."""
    out = {}
    for query_id, generation in generations.items():
        answers = [str(a) for a in references[query_id]]
        out[query_id] = (
            rag.answer_correct(generation.answer, answers),
            rag.exact_match(generation.answer, answers),
            rag.token_f1(generation.answer, answers),
        )
    return out


def _score(
    name: str,
    generations: dict[str, RagGeneration],
    references: Mapping[str, Sequence[str]],
    rows: list[tuple[str, str, int, float]],
    query_ids: list[str],
    k: int,
    qrels_original: dict,
    qrels_refined: dict | None,
    generated: int,
) -> RagSystem:
    """One system's figures over ``query_ids`` from its generations (scored against
    ``references``, ``{query_id: [answer, ...]}``) and run rows."""
    scores = answers_score(
        generations={q: generations[q] for q in query_ids}, references=references
    )
    correct = {q: scores[q][0] for q in query_ids}
    hit_o = metrics.hit_at_k(qrels_original, rows, k, queries=query_ids)
    hit_r = metrics.hit_at_k(qrels_refined, rows, k, queries=query_ids) if qrels_refined else None
    return RagSystem(
        run=name,
        queries=len(query_ids),
        accuracy=rag.answer_accuracy(correct),
        exact_match=_share(scores[q][1] for q in query_ids),
        f1=sum(scores[q][2] for q in query_ids) / len(query_ids),
        success_original=_share(hit_o.values()),
        success_refined=_share(hit_r.values()) if hit_r is not None else None,
        align_original=rag.rag_align(hit_o, correct),
        align_refined=rag.rag_align(hit_r, correct) if hit_r is not None else None,
        generated=generated,
        reused=len(query_ids) - generated,
        per_query={
            q: (hit_o[q], hit_r[q] if hit_r is not None else None, correct[q]) for q in query_ids
        },
    )


def _report(
    *,
    dataset: Dataset,
    k: int,
    model: str,
    generator: str,
    backend: str,
    original: QrelSet,
    refined: QrelSet | None,
    query_ids: list[str],
    systems: list[RagSystem],
) -> RagReport:
    return RagReport(
        dataset=dataset.slug,
        k=k,
        model=model,
        generator=generator,
        backend=backend,
        prompt_version=rag.RAG_PROMPT_VERSION,
        original=original.name,
        refined=refined.name if refined else None,
        queries=query_ids,
        systems=systems,
        correlation_original=rag.success_accuracy_correlation(
            {s.run: (s.success_original, s.accuracy) for s in systems}
        ),
        correlation_refined=(
            rag.success_accuracy_correlation(
                {
                    s.run: (s.success_refined, s.accuracy)
                    for s in systems
                    if s.success_refined is not None  # set for every system when refined
                }
            )
            if refined
            else None
        ),
    )


def _share(values) -> float:
    values = [bool(v) for v in values]
    return sum(values) / len(values) if values else 0.0


@overload
def _qrels(qrel_set: QrelSet) -> dict[str, dict[str, int]]: ...
@overload
def _qrels(qrel_set: QrelSet | None) -> dict[str, dict[str, int]] | None: ...
def _qrels(qrel_set: QrelSet | None) -> dict[str, dict[str, int]] | None:
    if qrel_set is None:
        return None
    return metrics.to_ir_measures_qrels(qrels_rows(qrel_set=qrel_set))


def rag_evaluate(
    *,
    dataset: Dataset,
    runs: Sequence[Run],
    k: int = 10,
    original: QrelSet,
    refined: QrelSet | None = None,
    backend: dict[str, Any] | None = None,
    client: LLMClient | None = None,
    limit: int | None = None,
    on_answer: Callable[[RagGeneration], None] | None = None,
    concurrency: int = 1,
) -> RagReport:
    """Generate (or reuse) answers for every run and score RAG alignment.

    ``client`` overrides the client built from ``backend`` (tests inject a scripted one;
    ``backend`` is then only recorded). ``concurrency``: answers generated at once (see
    :func:`rag_generations_ensure`). Queries: :func:`rag_queries`. Returns a
    :class:`RagReport` (systems in run-name order). Raises :class:`RagError` for no runs,
    k < 1, runs or qrel sets of another dataset, or no reference answers; LLM errors
    propagate.
    """
    if not runs:
        raise RagError("name at least one run")
    if k < 1:
        raise RagError(f"k must be at least 1, got {k}")
    items: list[Run | QrelSet] = [*runs, original, *([refined] if refined else [])]
    for item in items:
        if item.dataset_id != dataset.pk:
            raise RagError(f"{item} is not in dataset {dataset.slug!r}")
    queries = rag_queries(dataset=dataset, original=original, limit=limit)
    if client is None:
        client, config = rag_client(backend=backend)
    else:
        config = _injected_config(backend)
    query_ids = [q.query_id for q in queries]
    references = {q.query_id: q.answers for q in queries}
    wanted = set(query_ids)
    qrels_original, qrels_refined = _qrels(original), _qrels(refined)
    systems = []
    for run in sorted(runs, key=lambda r: r.name):
        generations, generated = rag_generations_ensure(
            run=run,
            queries=queries,
            k=k,
            client=client,
            backend=config,
            on_answer=on_answer,
            concurrency=concurrency,
        )
        rows = [r for r in run_rows(run=run) if r[0] in wanted]
        rows, _ = skip_identical(rows, enabled=dataset.exclude_identical_ids)
        systems.append(
            _score(
                run.name,
                generations,
                references,
                rows,
                query_ids,
                k,
                qrels_original,
                qrels_refined,
                generated,
            )
        )
    return _report(
        dataset=dataset,
        k=k,
        model=client.model,
        generator=generator_key(backend=config, model=client.model),
        backend=config.describe(),
        original=original,
        refined=refined,
        query_ids=query_ids,
        systems=systems,
    )


def rag_generators(*, dataset: Dataset, k: int) -> list[RagGenerator]:
    """The generators with answers stored for ``dataset`` at ``k`` and the current prompt
    version, most answers first (then by key): the choices of the RAG page."""
    rows = (
        RagGeneration.objects.filter(
            run__dataset=dataset, k=k, prompt_version=rag.RAG_PROMPT_VERSION
        )
        .values_list("generator", "model")
        .annotate(n=Count("pk"))
        .order_by("-n", "generator")
    )
    return [RagGenerator(key=key, model=model, answers=n) for key, model, n in rows]


def rag_stored_report(
    *,
    dataset: Dataset,
    original: QrelSet,
    refined: QrelSet | None,
    k: int = 10,
    generator: str | None = None,
) -> RagReport | None:
    """The RAG figures from stored generations only (the page generates nothing).

    Takes the answers of ``generator`` (a :func:`generator_key`; default: the generator
    with the most answers, :func:`rag_generators`) at ``k`` and the current prompt version,
    every run that has answers from it, and the queries that all those runs answered,
    ``original`` judges and that have reference answers now. Answers are scored against the
    current reference answers. Returns None when there is nothing to show.
    """
    version = rag.RAG_PROMPT_VERSION
    if generator is None:
        generators = rag_generators(dataset=dataset, k=k)
        if not generators:
            return None
        generator = generators[0].key
    by_run: dict[str, dict[str, RagGeneration]] = {}
    runs: dict[str, Run] = {}
    references: dict[str, list] = {}
    for g in RagGeneration.objects.filter(
        run__dataset=dataset, k=k, generator=generator, prompt_version=version
    ).select_related("run", "query"):
        by_run.setdefault(g.run.name, {})[g.query.query_id] = g
        runs[g.run.name] = g.run
        if g.query.answers:
            references[g.query.query_id] = g.query.answers
    if not by_run:
        return None
    judged = set(original.qrels.values_list("query__query_id", flat=True))
    common = set.intersection(*(set(v) for v in by_run.values())) & judged & set(references)
    query_ids = sorted(common)
    if not query_ids:
        return None
    qrels_original, qrels_refined = _qrels(original), _qrels(refined)
    systems = [
        _score(
            name,
            by_run[name],
            references,
            [r for r in run_rows(run=runs[name]) if r[0] in common],
            query_ids,
            k,
            qrels_original,
            qrels_refined,
            0,
        )
        for name in sorted(by_run)
    ]
    first = by_run[sorted(by_run)[0]][query_ids[0]]
    try:
        backend = AgentConfig.stored(first.backend).describe()
    except ValueError:  # stored by an older version, or by a client handed in
        backend = f"{first.backend.get('backend', '?')} {first.model}"
    return _report(
        dataset=dataset,
        k=k,
        model=first.model,
        generator=generator,
        backend=backend,
        original=original,
        refined=refined,
        query_ids=query_ids,
        systems=systems,
    )
