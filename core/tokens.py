"""API tokens and webhook secrets: make, check, revoke. Every write is a named action.

A token is ``dream_`` plus 43 URL-safe characters (32 random bytes). Only its SHA-256 is
stored, so a leaked database holds no usable token; :func:`api_token_create` returns the
token once, and nothing can show it again. :func:`api_token_user` turns a presented token
into its user (or None), marking when it was last used (at most once a minute per token,
so a busy script does not write on every request).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Any

from django.utils import timezone

from .models import ApiToken, WebhookSecret

TOKEN_PREFIX = "dream_"
_LAST_USED_EVERY = timedelta(minutes=1)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def api_token_create(*, user: Any, name: str = "") -> tuple[ApiToken, str]:
    """Make a new token for ``user``; returns (the stored row, the token itself). The token
    is returned only here: store it now (the row keeps its hash and first 10 characters)."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(
        user=user, name=name.strip()[:100], prefix=token[:10], key_hash=_hash(token)
    )
    return row, token


def api_token_user(*, token: str) -> Any | None:
    """The active user ``token`` belongs to, or None (unknown, revoked, or the user is not
    active). Compared by hash; records ``last_used``."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    row = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=_hash(token), revoked__isnull=True)
        .first()
    )
    if row is None or not row.user.is_active:
        return None
    now = timezone.now()
    if row.last_used is None or now - row.last_used > _LAST_USED_EVERY:
        ApiToken.objects.filter(pk=row.pk).update(last_used=now)
    return row.user


def api_tokens_of(*, user: Any) -> list[ApiToken]:
    """``user``'s tokens, newest first, revoked ones included (marked)."""
    return list(ApiToken.objects.filter(user=user))


def api_token_revoke(*, user: Any, token_id: int | None = None) -> int:
    """Revoke one of ``user``'s tokens (``token_id``) or, with None, all of them; returns how
    many were revoked (0: none active). A revoked token stays listed, marked."""
    tokens = ApiToken.objects.filter(user=user, revoked__isnull=True)
    if token_id is not None:
        tokens = tokens.filter(pk=token_id)
    return tokens.update(revoked=timezone.now())


def webhook_secret_get(*, user: Any) -> str:
    """``user``'s webhook secret, made on first use (64 hex characters)."""
    row, _ = WebhookSecret.objects.get_or_create(
        user=user, defaults={"secret": secrets.token_hex(32)}
    )
    return row.secret


def webhook_secret_rotate(*, user: Any) -> str:
    """Replace ``user``'s webhook secret with a new one and return it."""
    secret = secrets.token_hex(32)
    WebhookSecret.objects.update_or_create(user=user, defaults={"secret": secret})
    return secret


def webhook_signature(*, secret: str, body: bytes, timestamp: int) -> str:
    """The signature of a webhook: ``sha256=`` and the hex HMAC-SHA256 of
    ``"<timestamp>.<body>"`` under ``secret`` (the timestamp, seconds since the epoch, is
    signed too, so a captured callback cannot be replayed later unnoticed). A receiver
    recomputes it and compares with :func:`hmac.compare_digest`."""
    message = str(timestamp).encode("ascii") + b"." + body
    return "sha256=" + hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()
