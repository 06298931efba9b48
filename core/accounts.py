"""Login rate limiting, kept in Django's cache (shared between processes only with Redis).

Each login attempt counts against its username (case-folded) and its client address. After
``settings.LOGIN_RATE_LIMIT`` failures for either within ``settings.LOGIN_RATE_WINDOW``
seconds (counted from the first failure), further attempts are refused without checking the
password until the window ends. An attempt is counted *before* the password is checked and
uncounted unless the check failed, so parallel guesses cannot all slip in under the limit.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.dispatch import receiver
from django.http import HttpRequest

_PREFIX = "login-failures"
_FAILED_ATTR = "_dream_login_failed"


@receiver(user_login_failed, dispatch_uid="core.accounts.login_failed")
def _mark_failed_login(sender, credentials, request=None, **kwargs) -> None:
    # authenticate() says when every backend refused the credentials; success, an already
    # logged-in user being sent on, or an incomplete form check no password and count nothing.
    if request is not None:
        setattr(request, _FAILED_ATTR, True)


def _keys(username: str, client_ip: str) -> list[str]:
    # Hashed: usernames may hold characters some cache backends refuse in keys.
    name = hashlib.sha256(username.strip().casefold().encode("utf-8")).hexdigest()
    address = hashlib.sha256(client_ip.encode("utf-8")).hexdigest()
    return [f"{_PREFIX}:user:{name}", f"{_PREFIX}:ip:{address}"]


def _increment(key: str, window: int) -> int:
    for _ in range(3):
        cache.add(key, 0, timeout=window)
        try:
            return cache.incr(key)
        except ValueError:
            # Expired between add and incr: start a new window.
            continue
    return 1


def client_ip(request: HttpRequest) -> str:
    """The client's address: ``REMOTE_ADDR``, or the last entry of the header named by
    ``settings.LOGIN_CLIENT_IP_HEADER`` (the entry the trusted proxy itself wrote)."""
    header = getattr(settings, "LOGIN_CLIENT_IP_HEADER", "")
    if header and request.META.get(header):
        return request.META[header].split(",")[-1].strip()
    return request.META.get("REMOTE_ADDR", "")


def login_attempt_start(*, username: str, client_ip: str) -> bool:
    """Count one login attempt for ``username`` and ``client_ip``; False when refused.

    Refused means either counter now exceeds ``settings.LOGIN_RATE_LIMIT`` (5) within
    ``settings.LOGIN_RATE_WINDOW`` seconds (900): the caller must answer 429 and not check
    the password. Always call :func:`login_attempt_finish` after handling the request.
    """
    limit = settings.LOGIN_RATE_LIMIT
    window = settings.LOGIN_RATE_WINDOW
    keys = _keys(username, client_ip)
    counts = [_increment(key, window) for key in keys]
    if all(count <= limit for count in counts):
        return True
    # A refused attempt checks no password, so it is no failure: a user sharing a blocked
    # address does not lock their own name by retrying.
    _uncount(keys)
    return False


def login_attempt_finish(*, username: str, client_ip: str, request: HttpRequest) -> None:
    """Close the attempt started by :func:`login_attempt_start`: it stays counted only if a
    password was checked and was wrong during ``request`` (Django's ``user_login_failed``)."""
    if not getattr(request, _FAILED_ATTR, False):
        _uncount(_keys(username, client_ip))


def _uncount(keys: list[str]) -> None:
    for key in keys:
        try:
            cache.decr(key)
        except ValueError:
            pass  # the window ended meanwhile; nothing to uncount


def login_failures(*, username: str, client_ip: str) -> tuple[int, int]:
    """Failures counted in the current window: ``(for the username, for the address)``."""
    user_key, ip_key = _keys(username, client_ip)
    return cache.get(user_key, 0), cache.get(ip_key, 0)
