"""One agent's turn: the prompt fitted to the context, the call, the reply read, and at most
two more attempts. Pure logic: no database (the engine, :mod:`debates.engine`, runs rounds of
these; its caller stores them).

A turn's attempts:

1. The first call, with the job's budget ``max_tokens`` (at most half the model's context,
   so the prompt keeps the other half).
2. A reply **cut at its budget** (``finish_reason`` "length", or no answer after its
   reasoning: :func:`debates.replies.reply_split`) is asked again, once, with the same
   messages and twice the budget, up to the job's cap and what the context leaves. A reply
   still cut, or one whose budget cannot grow, ends the turn unread and ``cut_off``: the
   debate escalates as "truncated", never "unparsed".
3. A reply that arrived whole but **cannot be read** (:func:`debates.parsing.parse_reply`)
   is asked again, once, with the reply and a format reminder appended; still unreadable,
   the turn ends unread and the debate escalates as "unparsed".

Each kind of re-ask happens at most once, so a turn makes at most three calls. Every
attempt's reply is kept (``raw_attempts``, and ``attempt_log``: budget, finish reason, tokens,
reasoning) and counted. Text that a database cannot store (NUL, lone surrogates) is replaced
with U+FFFD in every field (:func:`core.text.text_storable`); the exact reply is kept escaped
in the attempt's log entry (``raw_escaped``). A reply's reasoning is stored apart, capped at
:data:`REASONING_CAP` characters, and never parsed as its answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.text import text_capped, text_escaped, text_storable
from debates import prompts
from debates.label_probability import label_probability
from debates.llm.base import (
    ChatMessage,
    ContextTooLongError,
    GenerationParams,
    LLMClient,
    LLMResult,
)
from debates.parsing import ParsedReply, ReplyParseError, parse_reply
from debates.replies import reply_split

# Chat templates wrap every message in role markers (about 4-6 tokens in Llama 3 and ChatML)
# and add a generation prompt; count_tokens sees only the content, so reserve this much more.
MESSAGE_OVERHEAD_TOKENS = 8
REPLY_PRIMING_TOKENS = 8
SEED = 0
# Characters of one attempt's reasoning kept (a reasoning model may think for 30k tokens;
# the cut is marked, and the reasoning tokens are counted in full).
REASONING_CAP = 20_000

BuildMessages = Callable[[str], list[ChatMessage]]


class PromptTooLongError(ContextTooLongError):
    """The turn's prompt cannot fit the client's context window even with an empty chunk:
    the pair's own texts (its query, answers, title) or the quoted history of the previous
    round are too long. Counted here before any call, so it is the pair's fault, not a
    server's: the engine ends such a debate escalated as "too_long" instead of failing it.
    ``needed`` and ``limit`` are the prompt's tokens and the tokens the context leaves."""

    def __init__(self, message: str, *, needed: int, limit: int) -> None:
        super().__init__(message)
        self.needed = needed
        self.limit = limit


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One agent's turn in one round (or the single judge's verdict, agent "J").

    ``label`` is 1 (relevant), 0 (irrelevant) (a grade 0..G in a graded debate) or None when
    no reply could be read (``parse_error`` then says why; ``cut_off`` when the last reply
    was cut at its token budget). Tokens and latency (milliseconds) are summed over the
    ``attempts`` (1 to 3, see the module docstring); ``reasoning_tokens`` and
    ``cached_tokens`` are the parts of completion and prompt tokens the server reported as
    reasoning and as served from its prefix cache. ``raw`` is the last reply, ``raw_attempts``
    every attempt's reply, in order; ``reasoning`` the last reply's reasoning (capped);
    ``attempt_log`` one dict per attempt: ``why`` ("first", "budget" or "format"),
    ``max_tokens``, ``finish_reason``, tokens, ``error`` (why it could not be read, or None),
    ``reasoning`` (capped) and, when the reply held text a database cannot store,
    ``raw_escaped`` (the exact reply as an ASCII JSON string). Every text field is storable
    (:func:`core.text.text_storable`). Turns stored before a field existed read it empty.
    ``label_probability`` is the probability of ``label`` the reply's token logprobs give
    (:func:`debates.label_probability.label_probability`), in [0, 1]; None when the label is
    None or the server sent no logprobs for the label's token. On a binary scale
    P(relevant) is ``label_probability`` when ``label`` is 1, else 1 - ``label_probability``.
    """

    round: int
    agent: str
    stance: str
    label: int | None
    argument: str
    evidence: tuple[str, ...]
    raw: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    attempts: int
    parse_error: str | None
    chunk_truncated: bool = False  # the chunk was cut to fit this call's context window
    finish_reason: str = ""  # of the last attempt, as the backend reported it
    raw_attempts: tuple[str, ...] = ()
    reasoning: str = ""
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    cut_off: bool = False
    attempt_log: tuple[dict[str, Any], ...] = ()
    label_probability: float | None = None


@dataclass(frozen=True, slots=True)
class TurnSettings:
    """How a turn is asked: ``temperature``; ``max_tokens`` the first attempt's budget and
    ``max_tokens_cap`` the most a re-ask of a cut reply may get (tokens); ``max_grade`` G of
    a graded debate (None: binary); ``seed`` the sampling seed sent with every call (the
    same for every turn of a debate, so a debate is repeatable; another per sample when one
    judge is sampled several times, or a server honouring it returns one reply n times)."""

    temperature: float
    max_tokens: int
    max_tokens_cap: int
    max_grade: int | None = None
    seed: int = SEED


def prompt_token_count(client: LLMClient, messages: Sequence[ChatMessage]) -> int:
    """Tokens ``messages`` take as a prompt for ``client``: content plus chat-template overhead."""
    return REPLY_PRIMING_TOKENS + sum(
        client.count_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages
    )


def chunk_fit(
    client: LLMClient, build: BuildMessages, chunk: str, max_tokens: int
) -> tuple[list[ChatMessage], bool]:
    """Messages from ``build(chunk)``, with the chunk cut so prompt + max_tokens fits the context.

    Returns (messages, truncated). Only the chunk is ever shortened; the cut chunk ends with
    TRUNCATION_MARKER. Raises PromptTooLongError (a ContextTooLongError) when even an empty
    chunk does not fit.
    """
    limit = client.context_window - max_tokens
    messages = build(chunk)
    if prompt_token_count(client, messages) <= limit:
        return messages, False

    def cut(length: int) -> str:
        head = chunk[:length].rstrip()
        return f"{head} {prompts.TRUNCATION_MARKER}" if head else prompts.TRUNCATION_MARKER

    def fits(length: int) -> list[ChatMessage] | None:
        candidate = build(cut(length))
        return candidate if prompt_token_count(client, candidate) <= limit else None

    best = fits(0)
    if best is None:
        needed = prompt_token_count(client, build(cut(0)))
        raise PromptTooLongError(
            f"prompt needs {needed} tokens even with an empty chunk, but the context window of "
            f"{client.model} ({client.context_window}) minus max_tokens ({max_tokens}) "
            f"leaves {limit}",
            needed=needed,
            limit=limit,
        )
    # Binary search for the longest prefix that fits; only verified fits are kept, so a
    # tokenizer that is not monotonic in the prefix length can cost length, never overflow.
    low, high = 0, len(chunk)
    while high - low > 1:
        middle = (low + high) // 2
        candidate = fits(middle)
        if candidate is None:
            high = middle
        else:
            low, best = middle, candidate
    # Prefer ending on a word boundary so the marker does not follow half a word.
    boundary = max(chunk.rfind(" ", 0, low + 1), chunk.rfind("\n", 0, low + 1))
    if 0 < boundary < low and not chunk[low].isspace():
        candidate = fits(boundary)
        if candidate is not None:
            best = candidate
    return best, True


def _call(
    client: LLMClient, messages: list[ChatMessage], settings: TurnSettings, budget: int
) -> LLMResult:
    params = GenerationParams(
        temperature=settings.temperature,
        max_tokens=budget,
        json_schema=prompts.reply_json_schema(settings.max_grade),
        seed=settings.seed,
    )
    return client.chat(messages, params)


def _fitted_call(
    client: LLMClient, build: BuildMessages, chunk: str, settings: TurnSettings, budget: int
) -> tuple[LLMResult, list[ChatMessage], bool]:
    """Fit the chunk (see :func:`chunk_fit`) and call; returns (result, messages, truncated).

    When the server refuses the prompt as too long and the client's context window shrank
    meanwhile (the server stated a smaller one, see the openai backend), the chunk is fitted
    to the new window and called once more; a refused call has no result and is not counted.
    Otherwise the ContextTooLongError propagates.
    """
    window = client.context_window
    messages, truncated = chunk_fit(client, build, chunk, budget)
    try:
        return _call(client, messages, settings, budget), messages, truncated
    except ContextTooLongError:
        if client.context_window >= window:
            raise
    messages, truncated = chunk_fit(client, build, chunk, budget)
    return _call(client, messages, settings, budget), messages, truncated


@dataclass(frozen=True, slots=True)
class _Attempt:
    """One answered call as read: its result and budget, why it was asked, its answer and
    reasoning (:func:`~debates.replies.reply_split`), and either the parsed reply or why
    there is none (``cut``: cut at the budget)."""

    result: LLMResult
    budget: int
    why: str
    answer: str
    reasoning: str
    cut: bool
    parsed: ParsedReply | None
    error: str | None


def _attempt_read(result: LLMResult, budget: int, why: str, max_grade: int | None) -> _Attempt:
    """Read one answered call. A reply is cut when the server says so (finish_reason
    "length"), or when it could not be read and either used its whole budget (ik_llama.cpp,
    and a proposal for llama.cpp, report such a cut as "stop") or held only reasoning. A
    whole, readable reply is never discarded, whatever its length."""
    split = reply_split(result.text, result.reasoning)
    empty = not split.answer.strip()
    parsed: ParsedReply | None = None
    error: str | None = None
    if result.finish_reason != "length" and not empty:
        try:
            parsed = parse_reply(
                split.answer, finish_reason=result.finish_reason, max_grade=max_grade
            )
        except ReplyParseError as exc:
            error = exc.reason
    if parsed is not None:
        return _Attempt(result, budget, why, split.answer, split.reasoning, False, parsed, None)
    cut = (
        result.finish_reason == "length"
        or (not empty and result.completion_tokens >= budget)
        or (empty and bool(split.reasoning))
    )
    if result.finish_reason == "length" or (cut and not empty):
        error = (
            f"reply cut off at its budget of {budget} tokens ({result.completion_tokens} "
            f"used, finish_reason={result.finish_reason or 'none'})"
        )
    elif cut:
        error = (
            f"no answer after the reasoning (finish_reason={result.finish_reason or 'none'}; "
            "the budget went on reasoning, or the server's reasoning parser kept the answer)"
        )
    elif empty:
        error = "no answer: the reply was empty"
    return _Attempt(result, budget, why, split.answer, split.reasoning, cut, None, error)


def _budget_grown(
    client: LLMClient, messages: list[ChatMessage], budget: int, cap: int
) -> int | None:
    """Twice ``budget``, at most ``cap`` and what the context leaves after ``messages``; None
    when that is no larger than ``budget`` (asking again would only repeat the cut)."""
    room = client.context_window - prompt_token_count(client, messages)
    grown = min(2 * budget, cap, room)
    return grown if grown > budget else None


def turn_ask(
    *,
    client: LLMClient,
    build: BuildMessages,
    chunk: str,
    settings: TurnSettings,
    round: int,
    agent: str,
    stance: str,
) -> TurnRecord:
    """Ask ``client`` for one turn (attempts and re-asks: the module docstring) and return it.

    ``build(chunk)`` gives the turn's messages for a (possibly cut) chunk. LLM errors
    (TransientLLMError, PermanentLLMError, ContextTooLongError) propagate unchanged; replies
    answered before an error are lost with the turn (the caller meters every answered call).
    """
    budget = max(1, min(settings.max_tokens, client.context_window // 2))
    result, messages, truncated = _fitted_call(client, build, chunk, settings, budget)
    attempts = [_attempt_read(result, budget, "first", settings.max_grade)]
    grown = reasked = False
    while attempts[-1].parsed is None:
        last = attempts[-1]
        if last.cut:
            bigger = None
            if not grown:
                bigger = _budget_grown(client, messages, last.budget, settings.max_tokens_cap)
            if bigger is None:
                break
            grown = True
            result = _call(client, messages, settings, bigger)
            attempts.append(_attempt_read(result, bigger, "budget", settings.max_grade))
            continue
        if reasked:
            break
        reasked = True
        # Only the answer goes back (never the reasoning), cleaned: a lone surrogate cannot
        # even be encoded into the request.
        bad = text_storable(last.answer)

        def build_reask(text: str, bad: str = bad) -> list[ChatMessage]:
            return prompts.reask_messages(build(text), bad, settings.max_grade)

        # The re-ask carries the bad reply too, so it is fitted on its own.
        result, messages, again = _fitted_call(client, build_reask, chunk, settings, last.budget)
        truncated = truncated or again
        attempts.append(_attempt_read(result, last.budget, "format", settings.max_grade))
    return _turn_record(
        attempts,
        truncated=truncated,
        round=round,
        agent=agent,
        stance=stance,
        max_grade=settings.max_grade,
    )


def _log_entry(attempt: _Attempt) -> dict[str, Any]:
    result = attempt.result
    entry: dict[str, Any] = {
        "why": attempt.why,
        "max_tokens": attempt.budget,
        "finish_reason": text_storable(result.finish_reason or ""),
        "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens,
        "reasoning_tokens": result.reasoning_tokens,
        "cached_tokens": result.cached_tokens,
        "error": text_storable(attempt.error) if attempt.error else None,
        "reasoning": text_storable(text_capped(attempt.reasoning, REASONING_CAP)),
    }
    # The reasoning is kept capped, escaped too (a model may think for 30k tokens).
    capped_reasoning = text_capped(result.reasoning, REASONING_CAP)
    for name, text in (("raw_escaped", result.text), ("reasoning_escaped", capped_reasoning)):
        escaped = text_escaped(text)
        if escaped is not None:
            entry[name] = escaped
    return entry


def _probability(attempt: _Attempt, max_grade: int | None) -> float | None:
    """P(label) of a parsed attempt from its logprobs; None without a label or logprobs."""
    if attempt.parsed is None:
        return None
    values = (0, 1) if max_grade is None else tuple(range(max_grade + 1))
    return label_probability(
        text=attempt.result.text,
        label=attempt.parsed.label,
        logprobs=attempt.result.logprobs,
        values=values,
    )


def _turn_record(
    attempts: list[_Attempt],
    *,
    truncated: bool,
    round: int,
    agent: str,
    stance: str,
    max_grade: int | None = None,
) -> TurnRecord:
    last = attempts[-1]
    parsed = last.parsed
    results = [a.result for a in attempts]
    return TurnRecord(
        round=round,
        agent=agent,
        stance=stance,
        label=parsed.label if parsed else None,
        argument=text_storable(parsed.argument) if parsed else "",
        evidence=tuple(text_storable(e) for e in parsed.evidence) if parsed else (),
        raw=text_storable(last.result.text),
        raw_attempts=tuple(text_storable(r.text) for r in results),
        model=text_storable(last.result.model),
        prompt_tokens=sum(r.prompt_tokens for r in results),
        completion_tokens=sum(r.completion_tokens for r in results),
        latency_ms=float(sum(r.latency_ms for r in results)),
        attempts=len(results),
        parse_error=text_storable(last.error) if parsed is None and last.error else None,
        chunk_truncated=truncated,
        finish_reason=text_storable(last.result.finish_reason or ""),
        reasoning=text_storable(text_capped(last.reasoning, REASONING_CAP)),
        reasoning_tokens=sum(r.reasoning_tokens for r in results),
        cached_tokens=sum(r.cached_tokens for r in results),
        cut_off=parsed is None and last.cut,
        attempt_log=tuple(_log_entry(a) for a in attempts),
        label_probability=_probability(last, max_grade),
    )
