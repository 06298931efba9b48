"""Idempotency keys of job creation (``POST /api/v1/jobs`` with ``Idempotency-Key``, as
payment APIs take them): the first request with a key creates the job; a repeat with the
same key and the same request from the same user gets the first answer again and creates
nothing; the same key with another request is refused.

Race-safe by a unique constraint, not a check-then-insert: the key's row is inserted first,
in the transaction that creates the job; a second request with the key, sent at the same
time, waits on that insert until the first commits (then finds the row and its answer) or
rolls back (then it creates the job itself).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction

from debates.models import DebateJob, JobIdempotencyKey
from debates.services.common import DebateJobError

MAX_KEY_LENGTH = 200

# (job, HTTP status, JSON body) of a request that created a job.
Created = tuple[DebateJob, int, dict[str, Any]]


class IdempotencyKeyError(DebateJobError):
    """An ``Idempotency-Key`` that is malformed (:class:`IdempotencyKeyReused`: reused with
    a different request)."""


class IdempotencyKeyReused(IdempotencyKeyError):
    """An ``Idempotency-Key`` used before with a different request."""


def idempotency_key_check(key: str) -> str:
    """``key`` if it is 1 to 200 printable ASCII characters (space to tilde); else
    IdempotencyKeyError naming the header, the key's length in characters and its first
    character that is not printable ASCII, e.g. ``Idempotency-Key: 1 to 200 printable ASCII
    characters, got 1 character(s): 'é' is not printable ASCII``."""
    bad = next((c for c in key if not " " <= c <= "~"), None)
    if not 1 <= len(key) <= MAX_KEY_LENGTH or bad is not None:
        why = "" if bad is None else f": {bad!r} is not printable ASCII"
        raise IdempotencyKeyError(
            f"Idempotency-Key: 1 to {MAX_KEY_LENGTH} printable ASCII characters, got "
            f"{len(key):,} character(s){why}"
        )
    return key


def request_hash(fields: dict[str, Any]) -> str:
    """SHA-256 (hex) of a request's fields as canonical JSON (sorted keys): the same
    request hashes the same however its JSON was spaced or ordered."""
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def job_create_idempotent(
    *, user: Any, key: str, fields: dict[str, Any], create: Callable[[], Created]
) -> tuple[int, dict[str, Any]]:
    """``(status, body)`` of the request ``fields`` sent by ``user`` with ``key``: the stored
    answer when this key was used before with the same fields; else ``create()``'s, stored
    under the key in the same transaction (an error ``create`` raises stores nothing, so a
    repeat tries again). Raises IdempotencyKeyError for a malformed key and
    IdempotencyKeyReused for one used before with other fields (naming the key and the job
    it made)."""
    key = idempotency_key_check(key)
    digest = request_hash(fields)
    with transaction.atomic():
        try:
            with transaction.atomic():
                row = JobIdempotencyKey.objects.create(user=user, key=key, request_hash=digest)
        except IntegrityError:
            stored = JobIdempotencyKey.objects.get(user=user, key=key)
            if stored.request_hash != digest:
                raise IdempotencyKeyReused(
                    f"Idempotency-Key {key!r} was used for another request (job "
                    f"{stored.job_id}); send a new key for a new job"
                ) from None
            return stored.status_code, stored.response or {}
        job, status, body = create()
        row.job, row.status_code, row.response = job, status, body
        row.save(update_fields=["job", "status_code", "response"])
    return status, body
