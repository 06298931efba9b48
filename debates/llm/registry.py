"""The factory that turns an agent's backend config (:class:`debates.llm.config.AgentConfig`,
which also documents the fields) into an LLM client, and one-line descriptions of a config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debates.llm.base import LLMClient
from debates.llm.config import (  # noqa: F401 (the names callers knew the registry by)
    BACKENDS,
    DEFAULT_API_KEY_ENV,
    DEFAULT_CONFIG,
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_EMBEDDED_N_CTX,
    DEFAULT_TIMEOUT_S,
    EMBEDDED_MODEL,
    GGUF_N_CTX_CAP,
    MAX_MODEL_PATH,
    AgentConfig,
    gguf_info,
    validate_backend_config,
)


def backend_key(config: AgentConfig | dict[str, Any] | None) -> str:
    """Key naming one backend for the shared rate limit, e.g. ``openai:https://h/v1:gpt-4o``
    (:meth:`AgentConfig.key`). Raises ValueError for an invalid config."""
    return AgentConfig.load(config, check_file=False).key()


def describe_backend(config: AgentConfig | dict[str, Any] | None) -> str:
    """One line for pages and logs, e.g. ``openai gpt-4o-mini at https://api.openai.com/v1``
    (:meth:`AgentConfig.describe`). Does not look at an embedded model's file (it may be gone
    since the job ran). Raises ValueError for an invalid config."""
    return AgentConfig.load(config, check_file=False).describe()


def client_from_config(
    config: AgentConfig | dict[str, Any] | None,
    *,
    api_key: str | None = None,
    limiter: Any = None,
) -> LLMClient:
    """Build the LLM client a backend config describes.

    ``api_key`` (openai only) wins over the environment variable named by ``api_key_env``; it
    is handed to the SDK and kept nowhere else. Embedded clients share one loaded model per
    process. A config with ``rpm`` gives a client that first takes a slot from the shared rate
    limit (``limiter``, default :func:`debates.llm.ratelimit.default_limiter`).

    Raises ValueError for an invalid config (see :func:`validate_backend_config`; also a
    ``model_path`` that is missing or not a GGUF file) and PermanentLLMError if the bundled
    model file is missing or llama.cpp cannot load a GGUF file.
    """
    # A config given as a dict is checked in full (its file too); a typed one already was.
    cfg = config if isinstance(config, AgentConfig) else AgentConfig.load(config)
    if cfg.backend == "embedded":
        from debates.llm.embedded import EmbeddedClient

        assert cfg.n_ctx is not None  # filled in by validation
        path = cfg.model_path
        return EmbeddedClient(n_ctx=cfg.n_ctx, model_path=Path(path) if path else None)
    if cfg.backend != "openai":
        raise ValueError(f"backend: no client for {cfg.backend!r} here")
    from debates.llm.openai_backend import OpenAIClient

    client: LLMClient = OpenAIClient(
        model=cfg.model,
        base_url=cfg.base_url,
        api_key=api_key,
        api_key_env=cfg.api_key_env or DEFAULT_API_KEY_ENV,
        timeout=cfg.timeout if cfg.timeout is not None else DEFAULT_TIMEOUT_S,
        context_window=cfg.context_window,
        reasoning_effort=cfg.reasoning_effort,
        extra_body=cfg.extra_body_dict,
    )
    if cfg.rpm:
        from debates.llm.ratelimit import RateLimitedClient

        client = RateLimitedClient(client, key=cfg.key(), rpm=cfg.rpm, limiter=limiter)
    return client
