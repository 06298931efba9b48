"""The one interface every LLM backend implements.

Callers build chat messages, call :meth:`LLMClient.chat`, and get an :class:`LLMResult`; no
module outside ``debates/llm/`` imports a provider SDK. Errors are split so callers can decide:
:class:`TransientLLMError` (timeout, connection, 429, 5xx: retry with backoff, honouring
``retry_after``) and :class:`PermanentLLMError` (auth, bad request, context too long: do not
retry). Neither is ever turned into a relevance label.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypedDict, runtime_checkable

# Alternatives asked for per generated token (``top_logprobs``): enough to hold every value
# of a binary or 0..3 graded label; OpenAI allows up to 20, vLLM's default cap is 20.
TOP_LOGPROBS = 5


class ChatMessage(TypedDict):
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class TokenLogprob:
    """One generated token as a server scored it, provider-neutral.

    ``token`` is the token's text, ``logprob`` its natural-log probability (<= 0) and
    ``top`` the server's most likely alternatives at that position as (text, logprob),
    most likely first (empty when the server listed none). Read from OpenAI's chat shape
    ``choices[0].logprobs.content[i] = {token, logprob, bytes, top_logprobs: [...]}``, which
    vLLM, llama.cpp's server, SGLang and llama-cpp-python follow.
    """

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class LLMResult:
    """One completion. Tokens are counts; ``latency_ms`` is wall time of the call.

    ``text`` is the message content verbatim ("" when the server sent none); a reasoning
    model's ``<think>…</think>`` stays in it (:func:`debates.replies.reply_split` separates
    it). ``reasoning`` is the reasoning a server returned in a field of its own (vLLM's
    ``reasoning``, older vLLM's and SGLang's ``reasoning_content``), verbatim; "" when none.
    ``reasoning_tokens`` (part of ``completion_tokens``) and ``cached_tokens`` (part of
    ``prompt_tokens``, served from the server's prefix cache) are what the server reported
    in ``usage.completion_tokens_details`` and ``usage.prompt_tokens_details``; 0 when it
    reported nothing. ``logprobs`` are the content's tokens in order with their natural-log
    probabilities and the server's top alternatives (:class:`TokenLogprob`), or None when
    the server sent none (it refused or ignored ``logprobs``; reasoning models often do).
    """

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    finish_reason: str  # "stop", "length", ... as the provider reports it
    reasoning: str = ""
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    logprobs: tuple[TokenLogprob, ...] | None = None


class LLMError(Exception):
    """Base class of backend errors."""


class TransientLLMError(LLMError):
    """Worth retrying: timeout, connection error, HTTP 429 or 5xx.

    ``retry_after`` is the server's Retry-After in seconds, when it sent one.
    """

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentLLMError(LLMError):
    """Not worth retrying: authentication, bad request, context too long, missing model."""


class ContextTooLongError(PermanentLLMError):
    """The request would not fit the model's context window.

    ``context_window`` is the context size (tokens) the server stated in its rejection, when
    it stated one.
    """

    def __init__(self, message: str, *, context_window: int | None = None) -> None:
        super().__init__(message)
        self.context_window = context_window


@dataclass(frozen=True, slots=True)
class GenerationParams:
    temperature: float = 0.0
    max_tokens: int = 512
    json_schema: dict[str, Any] | None = None  # constrain output when the backend supports it
    seed: int | None = 0
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class LLMClient(Protocol):
    """What the debate engine needs from a backend. ``model`` and ``context_window``
    (tokens) are read-only here: a wrapper may expose its inner client's as properties."""

    @property
    def model(self) -> str: ...

    @property
    def context_window(self) -> int: ...

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        """Complete ``messages``. Raises TransientLLMError or PermanentLLMError."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes with this model's tokenizer (an upper bound is acceptable)."""
        ...
