"""What more than one section of the debate services shares: the refusal errors
:class:`DebateJobError` and :class:`DebateJobOptionError` (one that names a job option), the
attempt limit :data:`MAX_ATTEMPTS`, the readers of the ``DREAM_DEBATE_*``/``DREAM_LLM_*``
settings (lease, LLM retries, retry delay), the stored error text of an exception, the
canonical pair order (query id, then doc id, by code point), the default concurrency and
Celery queue of a job's agents, and the database connection around an LLM call. It imports
nothing from the other service modules."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.db.models import F, QuerySet

from core.broker import DEFAULT_QUEUE
from core.fixes import option_flag
from corpora.models import Pair, Pool
from corpora.ordering import code_point
from debates.llm.config import AgentConfig

T = TypeVar("T")

MAX_ATTEMPTS = 3
ERROR_CHARS = 4000
MAX_CONCURRENCY = 256
# Known-answer pairs above half of an annotator's work would measure more than they label.
MAX_GOLD_SHARE = 0.5
REMOTE_CONCURRENCY = 16  # default for jobs whose agents are all remote (openai)
REMOTE_QUEUE = "llm_remote"  # debates whose agents all answer from a server (not simulated)
LOCAL_QUEUE = DEFAULT_QUEUE  # Celery's default queue: debates with an embedded (in-process) agent

log = logging.getLogger(__name__)


class DebateJobError(ValueError):
    """A job action that is refused (bad settings, a job in the wrong status, ...)."""


# A config's refusal starts with the field it is about: "model: why", or, for a file, the
# field and its value, "model_path /m/x.txt: not a GGUF file" (:mod:`debates.llm.config`).
_FIELD_FIRST = re.compile(r"([a-z_][a-z0-9_]*)(: | )(.+)", flags=re.DOTALL)


class AgentFieldError(DebateJobError):
    """One agent's backend config refused by a field's value (a config that does not parse,
    a file that cannot be read, a truth file or endpoint the operator does not allow):
    ``agent`` ("A" or "B"), ``field`` (the config's key ``message`` starts with, e.g.
    ``model``, ``model_path`` in ``model_path /m/x.txt: not a GGUF file``; "" when it starts
    with none) and ``reason`` (after ``field: ``; the whole message when the field's value
    follows it). ``str()`` is ``agent A: model: must be a string, got 5``, as
    :class:`DebateJobError` words it; a command adds the flag that sets the field."""

    def __init__(self, *, agent: str, message: str) -> None:
        found = _FIELD_FIRST.match(message)
        self.agent = agent
        self.field = found.group(1) if found else ""
        self.reason = found.group(3) if found and found.group(2) == ": " else message
        super().__init__(f"agent {agent}: {message}")


class AgentConfigError(AgentFieldError):
    """An agent's backend config that does not parse (a field's type or range, an unknown
    field, a missing model), with :class:`AgentFieldError`'s ``agent``, ``field`` and
    ``reason``; the HTTP API answers it as a 422 naming ``agent_a.model``."""


class DebateJobOptionError(DebateJobError):
    """A job option's value refused, the message starting with the option's name:
    ``str()`` names it as the services, the form and the API do (``stage0_beta must be
    ...``); :meth:`worded` for "cli" names the flag the user typed (``--stage0-beta must be
    ...``, :func:`core.fixes.option_flag`), as :func:`core.fixes.error_worded` asks."""

    def __init__(self, option: str, rest: str) -> None:
        self.option, self.rest = option, rest
        super().__init__(f"{option} {rest}")

    def worded(self, interface: str, form: Any = None) -> str:
        """The message for ``interface`` (:data:`core.fixes.INTERFACES`); ``form`` unused."""
        name = option_flag(self.option) if interface == "cli" else self.option
        return f"{name} {self.rest}"


def _setting(name: str, default: float) -> float:
    value = getattr(settings, name, None)
    if value is None:
        return float(os.environ.get(name, default))
    return float(value)


def lease_seconds() -> float:
    """How long a claimed debate stays reserved without a sign of life (seconds).

    ``DREAM_DEBATE_LEASE_SECONDS`` (setting or environment), default 600. The lease is renewed
    before every LLM call, so it must exceed the longest single call including its retries.
    """
    return _setting("DREAM_DEBATE_LEASE_SECONDS", 600)


def llm_retry_attempts() -> int:
    """Calls per LLM request before a transient error fails the attempt
    (``DREAM_LLM_RETRY_ATTEMPTS``, default 5)."""
    return int(_setting("DREAM_LLM_RETRY_ATTEMPTS", 5))


def retry_countdown(attempts: int) -> float:
    """Seconds before a debate whose attempt failed is run again: 30 s, 60 s, ... (setting
    ``DREAM_DEBATE_RETRY_SECONDS`` is the first delay)."""
    return _setting("DREAM_DEBATE_RETRY_SECONDS", 30) * 2 ** max(attempts - 1, 0)


def error_text(exc: BaseException) -> str:
    """How a failure is stored on a debate: "TypeName: message", at most ERROR_CHARS."""
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]


def pairs_in_order(pool: Pool) -> QuerySet[Pair]:
    """The pool's pairs in judging order: the pool strategy's order (``Pair.pool_order``)
    where one is stored, then the canonical order (query id, then doc id, by code point)."""
    return Pair.objects.filter(pool=pool).order_by(
        F("pool_order").asc(nulls_last=True),
        code_point("query__query_id"),
        code_point("document__doc_id"),
    )


def default_concurrency(agent_a: AgentConfig, agent_b: AgentConfig) -> int:
    """Debates run at once by default: 1 when an agent is the embedded model (one llama.cpp
    context per process), else :data:`REMOTE_CONCURRENCY` (16) requests in flight."""
    if agent_a.is_remote and agent_b.is_remote:
        return REMOTE_CONCURRENCY
    return 1


# A turn's first budget by default (tokens): a reasoning model served over the openai backend
# may think for thousands of tokens before it answers; SmolLM2 answers in under 200.
REMOTE_MAX_TOKENS = 2048
LOCAL_MAX_TOKENS = 384


def default_max_tokens(agent_a: AgentConfig, agent_b: AgentConfig) -> int:
    """A turn's first budget when the job does not set one: :data:`REMOTE_MAX_TOKENS` (2048)
    when an agent is served over the openai backend (it may be a reasoning model), else
    :data:`LOCAL_MAX_TOKENS` (384, the embedded model and the test backends). A re-ask of a
    reply cut at that budget gets twice it (see :mod:`debates.turns`)."""
    if "openai" in (agent_a.backend, agent_b.backend):
        return REMOTE_MAX_TOKENS
    return LOCAL_MAX_TOKENS


def debate_queue(*, agent_a: AgentConfig, agent_b: AgentConfig) -> str:
    """The Celery queue of a job's debates: :data:`REMOTE_QUEUE` ("llm_remote", for a
    thread-pool worker keeping many requests in flight) when both agents are remote and one
    of them waits on a server, else :data:`LOCAL_QUEUE` ("celery", a prefork worker: one
    embedded model per process). Simulated debaters answer at once with no network call: a
    job of two of them has no request to keep in flight and runs on the default queue, which
    every worker the manual starts takes."""
    agents = (agent_a, agent_b)
    if all(a.is_remote for a in agents) and not all(a.is_simulated for a in agents):
        return REMOTE_QUEUE
    return LOCAL_QUEUE


def database_release() -> None:
    """Close this thread's database connection before an LLM call, unless a transaction is
    open (tests wrapped in one, or a caller's atomic block).

    An LLM call may take a minute; an idle connection held that long is closed by
    PostgreSQL's ``idle_session_timeout``, PgBouncer and managed databases, and each idle
    one takes a server slot. Django reopens the connection on the next query.
    """
    if not connection.in_atomic_block:
        connection.close()


def with_connection_retry(write: Callable[[], T], *, tries: int = 3) -> T:
    """Run ``write`` (its own transaction), reopening the connection and trying again when
    the server closed it (idle timeout, a pooler or a restart: OperationalError or
    InterfaceError). Inside a caller's transaction nothing is retried."""
    for attempt in range(1, tries + 1):
        try:
            return write()
        except (OperationalError, InterfaceError):
            if connection.in_atomic_block or attempt == tries:
                raise
            log.warning("database connection lost; reconnecting (try %d/%d)", attempt, tries)
            connection.close()
    raise AssertionError("unreachable")
