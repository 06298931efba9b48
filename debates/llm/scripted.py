"""Test doubles for :class:`~debates.llm.base.LLMClient`: scripted and rule-based replies.

No model, no network. Both clients record every call's messages and params in ``calls``
and count tokens deterministically (whitespace-separated words), so token-budget tests can
be exact. Replies given as plain strings are wrapped in an :class:`LLMResult` whose prompt
tokens are the counted words of all messages, completion tokens the words of the reply,
latency ``latency_ms`` and finish reason "stop".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from debates.llm.base import ChatMessage, GenerationParams, LLMResult

Reply = str | Exception | LLMResult


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One call made to a test double: a copy of the messages and the params."""

    messages: list[ChatMessage]
    params: GenerationParams

    @property
    def system(self) -> str:
        """Content of the first system message ("" when there is none)."""
        return next((m["content"] for m in self.messages if m["role"] == "system"), "")

    @property
    def last_user(self) -> str:
        """Content of the last user message ("" when there is none)."""
        users = [m["content"] for m in self.messages if m["role"] == "user"]
        return users[-1] if users else ""


def word_count(text: str) -> int:
    """Whitespace-separated words of ``text``: the test doubles' deterministic tokenizer."""
    return len(text.split())


class _Recorder:
    model: str
    context_window: int

    def __init__(self, *, model: str, context_window: int, latency_ms: float) -> None:
        self.model = model
        self.context_window = context_window
        self.latency_ms = latency_ms
        self.calls: list[RecordedCall] = []

    def count_tokens(self, text: str) -> int:
        """Whitespace-separated words of ``text``."""
        return word_count(text)

    def _record(self, messages: list[ChatMessage], params: GenerationParams) -> None:
        self.calls.append(RecordedCall([dict(m) for m in messages], params))  # type: ignore[misc]

    def _result(self, reply: Reply, messages: list[ChatMessage]) -> LLMResult:
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, LLMResult):
            return reply
        return LLMResult(
            text=reply,
            model=self.model,
            prompt_tokens=sum(self.count_tokens(m["content"]) for m in messages),
            completion_tokens=self.count_tokens(reply),
            latency_ms=self.latency_ms,
            finish_reason="stop",
        )


class ScriptedClient(_Recorder):
    """Returns ``replies`` in order; an Exception instance in the list is raised instead.

    Raises AssertionError when called more often than scripted. ``remaining`` tells how many
    scripted replies were not used.
    """

    def __init__(
        self,
        replies: Iterable[Reply],
        *,
        model: str = "scripted",
        context_window: int = 100_000,
        latency_ms: float = 10.0,
    ) -> None:
        super().__init__(model=model, context_window=context_window, latency_ms=latency_ms)
        self._replies = list(replies)
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._replies) - self._next

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        self._record(messages, params)
        if self._next >= len(self._replies):
            raise AssertionError(
                f"{self.model}: call {len(self.calls)} but only {len(self._replies)} scripted"
            )
        reply = self._replies[self._next]
        self._next += 1
        return self._result(reply, messages)


class RuleClient(_Recorder):
    """Replies with ``rule(messages)``: a string, an LLMResult, or an Exception to raise.

    For property-style tests, e.g. a rule that answers according to the stance it is given.
    ``max_calls`` (optional) turns runaway loops into an AssertionError.
    """

    def __init__(
        self,
        rule: Callable[[list[ChatMessage]], Reply],
        *,
        model: str = "rule",
        context_window: int = 100_000,
        latency_ms: float = 10.0,
        max_calls: int | None = None,
    ) -> None:
        super().__init__(model=model, context_window=context_window, latency_ms=latency_ms)
        self.rule = rule
        self.max_calls = max_calls

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        self._record(messages, params)
        if self.max_calls is not None and len(self.calls) > self.max_calls:
            raise AssertionError(f"{self.model}: more than {self.max_calls} calls")
        return self._result(self.rule(messages), messages)
