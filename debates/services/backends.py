"""LLM backends for debate agents: :func:`agent_config_validate` makes an agent's backend
config safe to store (no API key; the ``"test"`` backend only when ``DREAM_TEST_LLM_FACTORY``
names a factory), and :func:`agent_client_get` builds the client for a stored config once per
process, config and API key. The other service modules call it as
``backends.agent_client_get`` (a module attribute), so tests patch
``debates.services.backends.agent_client_get`` to swap every agent's client at once."""

from __future__ import annotations

import hashlib
import importlib
import os
import threading
from typing import Any

from debates.llm import registry
from debates.llm.base import LLMClient
from debates.services.common import DebateJobError

TEST_BACKEND = "test"
TEST_FACTORY_ENV = "DREAM_TEST_LLM_FACTORY"


def agent_config_validate(config: dict[str, Any] | None, *, agent: str = "A") -> dict[str, Any]:
    """A backend config made safe to store (see :func:`registry.validate_backend_config`).

    ``{"backend": "test", ...}`` is accepted only when the environment variable
    ``DREAM_TEST_LLM_FACTORY`` names a factory (the test suite's slowed or counting
    backends); it is stored as given. Raises DebateJobError naming the agent and field.
    """
    if isinstance(config, dict) and config.get("backend") == TEST_BACKEND:
        if not os.environ.get(TEST_FACTORY_ENV):
            raise DebateJobError(
                f"agent {agent}: backend 'test' exists only when {TEST_FACTORY_ENV} is set"
            )
        return dict(config)
    try:
        return registry.validate_backend_config(config)
    except ValueError as exc:
        raise DebateJobError(f"agent {agent}: {exc}") from None


_clients: dict[tuple[int, str, str], LLMClient] = {}
# N threads starting N debates at once would otherwise each build the same client (and import
# its SDK at the same time); one builds it while the others wait, then all share it.
_clients_lock = threading.Lock()


def agent_client_get(*, config: dict[str, Any], api_key: str | None = None) -> LLMClient:
    """The LLM client for a stored backend config, built once per process, config and key.

    ``api_key`` is a key typed in the job form (decrypted by the caller, see
    :mod:`debates.api_keys`); without one the key comes from the environment variable the
    config names. The cache is keyed by the key's SHA-256, never the key itself; threads
    asking at once get the same client.
    Raises ValueError for an invalid config and PermanentLLMError for a missing model.
    """
    fingerprint = hashlib.sha256(api_key.encode("utf-8")).hexdigest() if api_key else ""
    key = (os.getpid(), repr(sorted(config.items())), fingerprint)
    client = _clients.get(key)
    if client is not None:
        return client
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = _client_build(config, api_key)
    return client


def _client_build(config: dict[str, Any], api_key: str | None) -> LLMClient:
    if config.get("backend") == TEST_BACKEND:
        path = os.environ.get(TEST_FACTORY_ENV, "")
        module, _, name = path.partition(":")
        if not module or not name:
            raise ValueError(f"{TEST_FACTORY_ENV} must be 'module:function', got {path!r}")
        return getattr(importlib.import_module(module), name)(config)
    return registry.client_from_config(config, api_key=api_key or None)
