"""Webhooks of debate jobs, the pure part: which callback URLs are allowed, which addresses a
callback may reach, when a failed delivery is tried again, and the exact bytes sent.

No database, no network: the services (:mod:`debates.services.webhooks`) resolve host names
and send; everything decided here is a function of its arguments, tested without a database.

Allowed hosts (``settings.DREAM_WEBHOOK_ALLOWED_HOSTS``) are host names, matched exactly, or
``*.example.org`` patterns, matching any name below ``example.org`` (not ``example.org``
itself). Names compare case-insensitively, without a trailing dot. An empty list allows no
callback at all.

A resolved address that is loopback, private, link-local, multicast, reserved, unspecified or
otherwise not globally routable is refused, unless the URL's host is listed by exact name
(``127.0.0.1``, ``localhost``, ``hooks.internal``): a pattern never opens an internal address,
so a name under an allowed suffix that resolves to 10.x is refused.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

ALLOWED_HOSTS_SETTING = "DREAM_WEBHOOK_ALLOWED_HOSTS"
URL_MAX_CHARS = 500

# Seconds to wait after failed attempt n (1-based) before attempt n + 1: 10 s, 1 min, 5 min,
# 30 min, 2 h. After the sixth attempt fails the delivery is given up.
RETRY_DELAYS = (10.0, 60.0, 300.0, 1800.0, 7200.0)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1


class CallbackRefused(ValueError):
    """A callback URL or address this server will not send to; the message says why."""


@dataclass(frozen=True)
class CallbackTarget:
    """Where a callback URL points: ``scheme`` "http"/"https", ``host`` (lower case, no
    trailing dot, IPv6 without brackets), ``port`` (the scheme's default when absent)."""

    scheme: str
    host: str
    port: int


def _normal(host: str) -> str:
    return host.strip().lower().rstrip(".")


def allowed_hosts_parse(value: str | Iterable[str]) -> tuple[str, ...]:
    """The allowed-host entries of ``value`` (a comma-separated string or a list), each
    stripped and lower-cased, empty entries dropped."""
    items = value.split(",") if isinstance(value, str) else value
    return tuple(entry for entry in (_normal(str(item)) for item in items) if entry)


def host_listed(host: str, allowed: Sequence[str]) -> bool:
    """True if ``host`` is in ``allowed`` by exact name (patterns do not count)."""
    name = _normal(host)
    return bool(name) and any(_normal(entry) == name for entry in allowed)


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    """True if ``host`` is listed exactly or lies below a ``*.suffix`` pattern of
    ``allowed``. ``*.example.org`` matches ``a.example.org`` and ``a.b.example.org``, never
    ``example.org`` nor ``badexample.org``."""
    name = _normal(host)
    if not name:
        return False
    for entry in allowed:
        pattern = _normal(entry)
        if pattern.startswith("*."):
            suffix = pattern[1:]  # ".example.org"
            if len(suffix) > 1 and name.endswith(suffix) and len(name) > len(suffix):
                return True
        elif pattern == name:
            return True
    return False


def callback_url_parse(url: str, *, allowed: Sequence[str]) -> CallbackTarget:
    """Check a callback URL without resolving it: http or https, a host, no user name or
    password, no whitespace or control character, at most :data:`URL_MAX_CHARS` characters,
    and a host that :func:`host_allowed` by ``allowed``. Returns its target. Raises
    :class:`CallbackRefused` naming the fault (and the setting, for a host not allowed)."""
    if len(url) > URL_MAX_CHARS:
        raise CallbackRefused(f"callback URL: longer than {URL_MAX_CHARS} characters")
    if any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in url):
        raise CallbackRefused("callback URL: holds whitespace or a control character")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise CallbackRefused(f"callback URL: not a valid URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise CallbackRefused(f"callback URL: only http and https are allowed, not {scheme!r}")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise CallbackRefused(
            "callback URL: must not hold a user name or password (the callback is signed)"
        )
    host = _normal(parts.hostname or "")
    if not host:
        raise CallbackRefused("callback URL: has no host")
    if not host_allowed(host, allowed):
        raise CallbackRefused(
            f"callback URL: host {host!r} is not allowed; list it in {ALLOWED_HOSTS_SETTING} "
            f"(allowed now: {', '.join(allowed) or 'none'})"
        )
    return CallbackTarget(scheme, host, port or (443 if scheme == "https" else 80))


def address_refusal(address: str) -> str | None:
    """Why a callback may not reach ``address`` (an IPv4 or IPv6 address as text): "loopback",
    "link-local", "multicast", "unspecified", "reserved", "private" or "not globally
    routable"; None for a public address. An IPv4 address mapped into IPv6 is judged as the
    IPv4 address. Raises ValueError for text that is no address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone ("fe80::1%eth0")
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for reason, hit in (
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("unspecified", ip.is_unspecified),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
        ("not globally routable", not ip.is_global),
    ):
        if hit:
            return reason
    return None


def addresses_check(
    target: CallbackTarget, addresses: Sequence[str], *, allowed: Sequence[str]
) -> list[str]:
    """The addresses ``target``'s host resolved to, if the callback may reach them: every
    one must be public (:func:`address_refusal`) unless the host is listed by exact name in
    ``allowed``. Raises :class:`CallbackRefused` for no address or a refused one (naming it
    and why); checking all of them, not one, keeps a name with one public and one internal
    address from reaching the internal one."""
    if not addresses:
        raise CallbackRefused(f"callback URL: host {target.host!r} has no address")
    if host_listed(target.host, allowed):
        return list(addresses)
    for address in addresses:
        reason = address_refusal(address)
        if reason is not None:
            raise CallbackRefused(
                f"callback URL: host {target.host!r} resolves to {address}, a {reason} "
                f"address; only a host listed by exact name in {ALLOWED_HOSTS_SETTING} may "
                "reach one"
            )
    return list(addresses)


def retry_delay(attempts: int) -> float | None:
    """Seconds to wait before the next attempt after ``attempts`` failed attempts (10, 60,
    300, 1800, 7200 for 1..5; 0 before the first), or None when :data:`MAX_ATTEMPTS` (6)
    were made: give up."""
    if attempts < 1:
        return 0.0
    if attempts >= MAX_ATTEMPTS:
        return None
    return RETRY_DELAYS[attempts - 1]


def body_encode(payload: dict[str, Any], *, sent_at: datetime) -> bytes:
    """The exact bytes POSTed: ``payload`` with ``"sent_at"`` (ISO 8601, UTC, seconds) as
    compact UTF-8 JSON with sorted keys. The signature covers these bytes, so a receiver
    must verify the raw body before parsing it."""
    document = {**payload, "sent_at": sent_at.replace(microsecond=0).isoformat()}
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )
