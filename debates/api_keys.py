"""API keys typed in the job form, kept only encrypted.

The issue asks for keys "from the environment or the job form", never stored in plain text
nor shown back. A key typed in the form is encrypted with Fernet (AES-128-CBC + HMAC-SHA256,
from the ``cryptography`` package) under a key derived from Django's ``SECRET_KEY`` with
HKDF-SHA256 (RFC 5869), stored in ``DebateJob.api_keys_encrypted`` and decrypted only when a
worker builds the agent's LLM client. ``SECRET_KEY_FALLBACKS`` still decrypt (key rotation).
Whoever holds both the database and ``SECRET_KEY`` can read the keys: that is the limit of
this protection, the same as Django's signed cookies. Under the public development key
(``settings.SECRET_KEY_IS_DEVELOPMENT``) that limit is no limit at all, so no key is stored
then, whichever edge (job form, HTTP API) typed it.
"""

from __future__ import annotations

import base64
import json

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.views.decorators.debug import sensitive_variables

_SALT = b"dream-assess"
_INFO = b"debate-job-api-keys-v1"
AGENTS = ("A", "B")
#: Why a typed key is not stored under the public development SECRET_KEY (the form's field
#: error; the API's 400 after "api_keys: ").
DEVELOPMENT_KEY_REFUSAL = (
    "not stored: SECRET_KEY is the public development key, so an encrypted key would not be "
    "protected; set SECRET_KEY, or give the name of an environment variable holding the key "
    "instead"
)


class ApiKeyError(ValueError):
    """Stored keys that cannot be read back (SECRET_KEY changed, or the token is damaged)."""


def _fernet(secret: str) -> Fernet:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT, info=_INFO).derive(
        secret.encode("utf-8")
    )
    return Fernet(base64.urlsafe_b64encode(derived))


def _cipher() -> MultiFernet:
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return MultiFernet([_fernet(str(s)) for s in secrets])


@sensitive_variables("keys")
def api_keys_encrypt(*, keys: dict[str, str]) -> str:
    """One Fernet token (ASCII text) holding ``keys`` = ``{agent "A"/"B": API key}``.

    Empty keys are left out; no key at all gives "" (nothing to store). Raises ValueError for
    an agent other than A or B, and (:data:`DEVELOPMENT_KEY_REFUSAL`) for any key while
    ``SECRET_KEY`` is the public development key: anyone could decrypt it.
    """
    kept = {agent: key for agent, key in keys.items() if key}
    unknown = sorted(set(kept) - set(AGENTS))
    if unknown:
        raise ValueError(f"agent must be A or B, got {unknown[0]!r}")
    if not kept:
        return ""
    if getattr(settings, "SECRET_KEY_IS_DEVELOPMENT", False):
        raise ValueError(DEVELOPMENT_KEY_REFUSAL)
    return _cipher().encrypt(json.dumps(kept, sort_keys=True).encode("utf-8")).decode("ascii")


@sensitive_variables("token")
def api_keys_decrypt(*, token: str) -> dict[str, str]:
    """The ``{agent: API key}`` a token of :func:`api_keys_encrypt` holds ({} for "").

    Raises ApiKeyError when the token cannot be decrypted with ``SECRET_KEY`` or its
    fallbacks (the message never contains the token).
    """
    if not token:
        return {}
    try:
        data = json.loads(_cipher().decrypt(token.encode("ascii")))
    except (InvalidToken, ValueError, UnicodeError):
        raise ApiKeyError(
            "the API key typed in the job form cannot be decrypted (SECRET_KEY changed?): "
            "launch the job again with the key, or give it through the environment"
        ) from None
    return {str(agent): str(key) for agent, key in data.items()}
