"""LLM backends for debate agents: :func:`agent_config_validate` parses an agent's backend
config into a typed, storable :class:`~debates.llm.config.AgentConfig` (no API key; the
``"test"`` backend only when ``DREAM_TEST_LLM_FACTORY`` names a factory), and
:func:`agent_client_get` builds the client for a config once per process, config and API key.
The other service modules call it as ``backends.agent_client_get`` (a module attribute), so
tests patch ``debates.services.backends.agent_client_get`` to swap every agent's client at
once."""

from __future__ import annotations

import hashlib
import importlib
import os
import threading
from collections.abc import Callable
from typing import Any

from debates.llm import registry
from debates.llm.base import LLMClient
from debates.llm.config import TEST_BACKEND, TEST_FACTORY_ENV, AgentConfig
from debates.services.common import DebateJobError

__all__ = [
    "TEST_BACKEND",
    "TEST_FACTORY_ENV",
    "agent_client_get",
    "agent_config_validate",
]


def agent_config_validate(
    config: AgentConfig | dict[str, Any] | None, *, agent: str = "A"
) -> AgentConfig:
    """Parse and check an agent's backend config (:meth:`AgentConfig.load`; None is the
    embedded default). Raises DebateJobError naming the agent and the field, e.g.
    ``agent B: model: required for the openai backend``."""
    try:
        return AgentConfig.load(config)
    except ValueError as exc:
        raise DebateJobError(f"agent {agent}: {exc}") from None


_clients: dict[tuple[int, str, str], LLMClient] = {}
# N threads starting N debates at once would otherwise each build the same client (and import
# its SDK at the same time); one builds it while the others wait, then all share it.
_clients_lock = threading.Lock()


def agent_client_get(
    *, config: AgentConfig | dict[str, Any], api_key: str | None = None
) -> LLMClient:
    """The LLM client for a backend config, built once per process, config and key.

    ``api_key`` is a key typed in the job form (decrypted by the caller, see
    :mod:`debates.api_keys`); without one the key comes from the environment variable the
    config names. The cache is keyed by the key's SHA-256, never the key itself; threads
    asking at once get the same client.
    Raises ValueError for an invalid config and PermanentLLMError for a missing model.
    """
    if not isinstance(config, AgentConfig):
        config = AgentConfig.stored(config)
    fingerprint = hashlib.sha256(api_key.encode("utf-8")).hexdigest() if api_key else ""
    key = (os.getpid(), repr(config), fingerprint)
    client = _clients.get(key)
    if client is not None:
        return client
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = _client_build(config, api_key)
    return client


def _client_build(config: AgentConfig, api_key: str | None) -> LLMClient:
    if config.backend == TEST_BACKEND:
        path = os.environ.get(TEST_FACTORY_ENV, "")
        module, _, name = path.partition(":")
        if not module or not name:
            raise ValueError(f"{TEST_FACTORY_ENV} must be 'module:function', got {path!r}")
        factory: Callable[[dict[str, Any]], LLMClient] = getattr(
            importlib.import_module(module), name
        )
        return factory(config.dump())
    return registry.client_from_config(config, api_key=api_key or None)
