"""Batch files and the client that replays a debate from them. Pure: no database.

A batch-mode job makes no direct LLM calls. Its debates advance round by round: the engine
(:func:`debates.engine.debate_pair`) runs with a :class:`BatchClient` per agent that answers
every request whose reply has come back in an output file and, for the first one that has
not, records the request and stops the debate (:class:`BatchPending`). So round 1 of every
pending pair is one batch; round 2 one batch for the pairs that disagreed; a re-ask joins the
next batch; and labels, prompts, rounds and provenance are the direct path's own for the same
replies, because the same engine decides them.

File formats (OpenAI's Batch API and ``vllm run-batch``):

- a request line: ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``;
- an output line: ``{"id", "custom_id", "response": {"status_code", "request_id", "body"},
  "error"}``; a failed request has ``response`` null or a non-200 ``status_code``, and/or an
  ``error`` object.

``custom_id`` names job, debate, round, agent and attempt: ``dream-j12-d345-r2-A-a1``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from debates.llm.base import ChatMessage, GenerationParams, LLMResult

CHAT_URL = "/v1/chat/completions"
_CUSTOM_ID = re.compile(r"\Adream-j(\d+)-d(\d+)-r(\d+)-([AJB])-a(\d+)\Z")


class BatchPending(Exception):
    """A debate needs a reply that has not come back yet: its request is recorded as due."""


class BatchFileError(ValueError):
    """A batch output file that cannot be read; the message names the line."""


def custom_id(*, job: int, debate: int, round: int, agent: str, attempt: int) -> str:
    """The ``custom_id`` of one request: ``dream-j{job}-d{debate}-r{round}-{agent}-a{attempt}``."""
    return f"dream-j{job}-d{debate}-r{round}-{agent}-a{attempt}"


def custom_id_parse(value: str) -> tuple[int, int, int, str, int] | None:
    """``(job, debate, round, agent, attempt)`` of a custom_id this code made, else None."""
    match = _CUSTOM_ID.match(value)
    if match is None:
        return None
    job, debate, round, agent, attempt = match.groups()
    return int(job), int(debate), int(round), agent, int(attempt)


def request_line(*, custom_id: str, body: Mapping[str, Any]) -> str:
    """One request line of a batch input file (compact JSON, no trailing newline)."""
    line = {"custom_id": custom_id, "method": "POST", "url": CHAT_URL, "body": body}
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True, slots=True)
class OutputLine:
    """One line of a batch output file, read: ``body`` is the chat completion when the
    request succeeded, else None and ``error`` says why."""

    line: int
    custom_id: str
    body: dict[str, Any] | None
    error: str


def _line_error(record: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    response = record.get("response")
    error = record.get("error")
    if isinstance(response, dict) and response.get("status_code") == 200 and not error:
        body = response.get("body")
        if isinstance(body, dict) and body.get("choices") == []:
            # A server that produced no completion (seen under load): no reply to read, so
            # the request is asked again, as after a 500, rather than failing its debate.
            return None, "HTTP 200 without a completion (choices: [])"
        if isinstance(body, dict):
            return body, ""
        return None, "response without a body"
    if isinstance(error, dict):
        return None, f"{error.get('code') or 'error'}: {error.get('message') or error}"
    if isinstance(response, dict):
        detail = response.get("body")
        if isinstance(detail, dict) and isinstance(detail.get("error"), dict):
            detail = detail["error"].get("message", detail)
        return None, f"HTTP {response.get('status_code')}: {str(detail)[:300]}"
    return None, str(error or "no response")


def output_lines(lines: Iterable[str], *, name: str) -> list[OutputLine]:
    """Read a whole output file (``lines`` as read, ``name`` for messages). Raises
    :class:`BatchFileError` naming ``name:line`` for a line that is not a JSON object with a
    string ``custom_id`` (a truncated last line included), naming both lines for one
    custom_id answered twice differently, and naming ``name`` for a file without a single
    line (0 bytes); nothing is returned then, so a caller applies a file whole or not at all.
    Blank lines are skipped; a line repeated exactly counts as it is (the import ignores the
    second)."""
    out: list[OutputLine] = []
    seen: dict[str, OutputLine] = {}
    number = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BatchFileError(
                f"{name}:{number}: not JSON ({exc.msg}; a truncated file?)"
            ) from None
        if not isinstance(record, dict) or not isinstance(record.get("custom_id"), str):
            raise BatchFileError(f"{name}:{number}: not an output line (no custom_id)")
        body, error = _line_error(record)
        line = OutputLine(number, record["custom_id"], body, error)
        first = seen.setdefault(line.custom_id, line)
        if (first.body, first.error) != (line.body, line.error):
            # Which of the two is the model's reply cannot be told: refuse rather than guess.
            raise BatchFileError(
                f"{name}:{first.line} and {name}:{number}: two different answers under "
                f"custom_id {line.custom_id!r}; keep one of them"
            )
        out.append(line)
    if number == 0:
        raise BatchFileError(f"{name}: the file is empty (0 bytes): it holds no output line")
    return out


# Builds a request's JSON body (OpenAIClient.request_body) and reads a reply's body
# (OpenAIClient.result_from_body).
BodyBuilder = Callable[[list[ChatMessage], GenerationParams], dict[str, Any]]
BodyReader = Callable[[dict[str, Any], list[ChatMessage]], LLMResult]


class BatchClient:
    """An LLM client for one agent of one debate that answers from replies already in hand
    and records the first request that has none (then raises :class:`BatchPending`).

    ``answers`` maps custom_id to a reply's body; ``build`` and ``read`` make request bodies
    and read replies exactly as the direct path's client does; ``due`` collects
    ``(custom_id, body)`` of the requests to send. ``model``, ``context_window`` and
    ``count_tokens`` are the direct client's, so prompts are fitted the same way.
    """

    def __init__(
        self,
        *,
        job: int,
        debate: int,
        agent: str,
        answers: Mapping[str, dict[str, Any]],
        build: BodyBuilder,
        read: BodyReader,
        model: str,
        context_window: int,
        count_tokens: Callable[[str], int],
        due: list[tuple[str, dict[str, Any]]],
    ) -> None:
        self.job, self.debate, self.agent = job, debate, agent
        self.answers, self.build, self.read, self.due = answers, build, read, due
        self.model = model
        self.context_window = context_window
        self._count = count_tokens
        self.round, self.attempt = 1, 0

    def turn_begin(self, round: int) -> None:
        """The engine starts this agent's turn of ``round``: attempts count from 1 again."""
        self.round, self.attempt = round, 0

    def count_tokens(self, text: str) -> int:
        """The direct client's token count of ``text``."""
        return self._count(text)

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        """The reply to this request if it came back, else record it and raise BatchPending."""
        self.attempt += 1
        cid = custom_id(
            job=self.job,
            debate=self.debate,
            round=self.round,
            agent=self.agent,
            attempt=self.attempt,
        )
        body = self.answers.get(cid)
        if body is not None:
            return self.read(body, messages)
        self.due.append((cid, self.build(messages, params)))
        raise BatchPending(cid)


PairResult = tuple[Any, BaseException | None]


def batch_pair_runner(
    first: Callable[[], Any], second: Callable[[], Any]
) -> tuple[PairResult, PairResult]:
    """A :data:`debates.engine.PairRunner` for replays: asks both turns of a round (so both
    agents' requests join the same batch), one after the other; a pending reply is returned
    as the turn's error, any other error propagates."""
    results: list[PairResult] = []
    for ask in (first, second):
        try:
            results.append((ask(), None))
        except BatchPending as exc:
            results.append((None, exc))
    return results[0], results[1]
