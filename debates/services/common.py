"""What more than one section of the debate services shares: the refusal error
:class:`DebateJobError`, the attempt limit :data:`MAX_ATTEMPTS`, the readers of the
``DREAM_DEBATE_*``/``DREAM_LLM_*`` settings (lease, LLM retries, retry delay), the stored error
text of an exception, and the canonical pair order (query id, then doc id, by code point). It
imports nothing from the other service modules."""

from __future__ import annotations

import os

from django.conf import settings
from django.db import connection
from django.db.models.functions import Collate

from corpora.models import Pair, Pool

MAX_ATTEMPTS = 3
ERROR_CHARS = 4000


class DebateJobError(ValueError):
    """A job action that is refused (bad settings, a job in the wrong status, ...)."""


def _setting(name: str, default: float) -> float:
    value = getattr(settings, name, None)
    if value is None:
        value = os.environ.get(name, default)
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


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]


def _code_point(field_name: str):
    # PostgreSQL sorts by the database locale unless told otherwise; "C" is code-point order,
    # the canonical (query id, doc id) order used everywhere.
    if connection.vendor == "postgresql":
        return Collate(field_name, "C")
    return field_name


def _pairs_in_order(pool: Pool):
    return Pair.objects.filter(pool=pool).order_by(
        _code_point("query__query_id"), _code_point("document__doc_id")
    )
