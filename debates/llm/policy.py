"""What an agent config of a job made in the browser or over the HTTP API may reach.

An admin of the app is not the operator of the machine. The operator lists the LLM endpoints
(``DREAM_LLM_ALLOWED_ENDPOINTS``), the environment variables that may hold an API key
(``DREAM_LLM_KEY_ENVS``) and the folder of local models (``DREAM_MODELS_DIR``); a config that
names anything else is refused before any request is sent, any variable read or any file
opened. The management commands, run by whoever has a shell on the server, are not checked.

Pure matching: the lists are parameters (the caller reads the settings), there is no database
access and no network; only :func:`model_file_allowed` looks at the file system (to follow
symlinks).

- An endpoint matches an entry when scheme, host and port are equal and its path starts with
  the entry's path on a segment boundary (:func:`endpoint_allowed`). Hosts compare
  case-insensitively, without a trailing dot, non-ASCII names in their IDNA (``xn--``) form and
  IP addresses in their canonical form; the port defaults by scheme (80, 443). A URL with
  credentials, a query, a fragment, a ``.``/``..`` path segment, an encoded slash or a blank
  or control character never matches.
- A key variable matches when its name equals an entry exactly (names are case-sensitive, as
  the environment is) (:func:`key_env_allowed`).
- A model file matches when its real path (symlinks followed, ``..`` removed) is a regular
  file inside the real path of the models folder, or is the bundled model's own file
  (:func:`model_file_allowed`).
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

DEFAULT_ENDPOINT = "https://api.openai.com/v1"  # what the SDK calls when no base_url is given
DEFAULT_PORTS = {"http": 80, "https": 443}
# Blanks and control characters: urlsplit drops some of them silently while an HTTP client
# may not, so the URL checked could differ from the URL called.
_UNSAFE = re.compile(r"[\x00-\x20\x7f\\]")


@dataclass(frozen=True)
class Endpoint:
    """A base URL reduced to what decides where a request goes: ``scheme`` (http, https),
    ``host`` (normalised, see the module docstring), ``port`` (the default filled in) and
    the path's ``segments`` (percent-decoded, empty ones dropped)."""

    scheme: str
    host: str
    port: int
    segments: tuple[str, ...]


def _host_normalise(host: str) -> str:
    """``host`` lowercased, without a trailing dot, IDNA-encoded, IP addresses canonical.
    Raises ValueError when it is not a usable host name."""
    host = host.lower().removesuffix(".")
    if not host:
        raise ValueError("no host")
    if "%" in host:
        # An encoded host (or an IPv6 zone) could be decoded by the client to another name.
        raise ValueError("a percent sign in the host")
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    if not host.isascii():
        try:
            encoded = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise ValueError("a host name that is not valid IDNA") from None
        # A name that IDNA maps to another (e.g. "ß" to "ss") could be encoded differently
        # by the HTTP client; such a name must be given in its ASCII (xn--) form.
        if encoded.encode("ascii").decode("idna") != host:
            raise ValueError("a host name to give in its ASCII (xn--) form")
        host = encoded
    return host


def endpoint_parse(url: str) -> Endpoint:
    """The :class:`Endpoint` of an http(s) base URL such as ``http://gpu1:8000/v1``.

    Raises ValueError saying what is wrong (not http(s), no host, a bad port, credentials, a
    query or fragment, a ``.``/``..`` segment, an encoded slash, a blank or control
    character)."""
    if _UNSAFE.search(url):
        raise ValueError("a blank, control character or backslash in the URL")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError("not an http(s) URL")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ValueError("credentials in the URL")
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise ValueError("a query or fragment in the URL")
    try:
        port = parts.port
    except ValueError:
        raise ValueError("a port that is not a number from 0 to 65535") from None
    host = _host_normalise(parts.hostname or "")
    raw_segments = [s for s in parts.path.split("/") if s]
    segments = tuple(unquote(s) for s in raw_segments)
    if any(s in (".", "..") or "/" in s or "\\" in s for s in segments):
        raise ValueError("a '.' or '..' segment or an encoded slash in the path")
    return Endpoint(scheme, host, port or DEFAULT_PORTS[scheme], segments)


def endpoint_allowed(*, base_url: str | None, allowed: Iterable[str]) -> bool:
    """True when ``base_url`` (None or "": :data:`DEFAULT_ENDPOINT`) matches one of the
    ``allowed`` base URLs (see the module docstring). An allowed entry that cannot be parsed
    matches nothing; so does a base URL that cannot be parsed."""
    try:
        wanted = endpoint_parse(base_url or DEFAULT_ENDPOINT)
    except ValueError:
        return False
    for entry in allowed:
        try:
            listed = endpoint_parse(entry.strip())
        except ValueError:
            continue
        if (wanted.scheme, wanted.host, wanted.port) != (listed.scheme, listed.host, listed.port):
            continue
        if wanted.segments[: len(listed.segments)] == listed.segments:
            return True
    return False


def key_env_allowed(*, name: str, allowed: Iterable[str]) -> bool:
    """True when the environment variable ``name`` is one of ``allowed``, exactly (the
    environment's names are case-sensitive). Never reads the variable."""
    return any(name == entry.strip() for entry in allowed if entry.strip())


def model_file_allowed(*, path: str, folder: str, bundled: str | None = None) -> bool:
    """True when ``path`` resolves (symlinks followed, ``..`` removed) to a regular file
    inside the resolved ``folder`` ("" for none: nothing is inside), or to the resolved
    ``bundled`` file (the app's own model). Opens no file; a path that cannot be resolved is
    not allowed."""
    try:
        real = os.path.realpath(path, strict=True)
        if not os.path.isfile(real):
            return False
        if bundled and real == os.path.realpath(bundled):
            return True
        if not folder:
            return False
        root = os.path.realpath(folder, strict=True)
    except OSError:
        return False
    return os.path.commonpath([root, real]) == root and real != root


def truth_file_allowed(*, path: str, folders: Iterable[str]) -> bool:
    """True when ``path`` resolves (symlinks followed, ``..`` removed) to a regular file
    inside the resolved path of one of ``folders`` (none: nothing is allowed). Opens no
    file; a path that cannot be resolved is not allowed."""
    try:
        real = os.path.realpath(path, strict=True)
    except OSError:
        return False
    if not os.path.isfile(real):
        return False
    for folder in folders:
        if not folder.strip():
            continue
        try:
            root = os.path.realpath(os.path.expanduser(folder.strip()), strict=True)
        except OSError:
            continue
        if os.path.commonpath([root, real]) == root and real != root:
            return True
    return False
