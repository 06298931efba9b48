"""The factory that turns an agent's backend config (:class:`debates.llm.config.AgentConfig`,
which also documents the fields) into an LLM client, and one-line descriptions of a config."""

from __future__ import annotations

from collections.abc import Callable
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


def backend_key(config: AgentConfig) -> str:
    """Key naming one backend for the shared rate limit, e.g. ``openai:https://h/v1:gpt-4o``
    (:meth:`AgentConfig.key`)."""
    return config.key()


def describe_backend(config: AgentConfig) -> str:
    """One line for pages and logs, e.g. ``openai gpt-4o-mini at https://api.openai.com/v1``
    (:meth:`AgentConfig.describe`). Does not look at an embedded model's file (it may be gone
    since the job ran)."""
    return config.describe()


def client_from_config(
    config: AgentConfig,
    *,
    api_key: str | None = None,
    limiter: Any = None,
    props_allowed: Callable[[str], bool] | None = None,
) -> LLMClient:
    """Build the LLM client a backend config (parsed and checked by :meth:`AgentConfig.load`)
    describes.

    ``api_key`` (openai only) wins over the environment variable named by ``api_key_env``; it
    is handed to the SDK and kept nowhere else. Embedded clients share one loaded model per
    process. A config with ``rpm`` gives a client that first takes a slot from the shared rate
    limit (``limiter``, default :func:`debates.llm.ratelimit.default_limiter`).
    ``props_allowed`` (openai only) says whether a URL outside the base URL (llama.cpp's
    ``/props``) may be asked for the context window
    (:func:`debates.llm.openai_backend.server_context_window`); None, it is not.

    Raises ValueError for a backend without a client here (the test backend) and
    PermanentLLMError if the bundled model file is missing or llama.cpp cannot load a GGUF
    file.
    """
    if config.backend == "embedded":
        from debates.llm.embedded import EmbeddedClient

        assert config.n_ctx is not None  # filled in by validation
        path = config.model_path
        return EmbeddedClient(n_ctx=config.n_ctx, model_path=Path(path) if path else None)
    if config.backend != "openai":
        raise ValueError(f"backend: no client for {config.backend!r} here")
    from debates.llm.openai_backend import OpenAIClient

    client: LLMClient = OpenAIClient(
        model=config.model,
        base_url=config.base_url,
        api_key=api_key,
        api_key_env=config.api_key_env or DEFAULT_API_KEY_ENV,
        timeout=config.timeout if config.timeout is not None else DEFAULT_TIMEOUT_S,
        context_window=config.context_window,
        reasoning_effort=config.reasoning_effort,
        extra_body=config.extra_body_dict,
        props_allowed=props_allowed,
    )
    if config.rpm:
        from debates.llm.ratelimit import RateLimitedClient

        client = RateLimitedClient(client, key=config.key(), rpm=config.rpm, limiter=limiter)
    return client
