"""Backend configurations as plain dicts, and the factory that turns one into an LLM client.

A backend config is what a job stores per agent, so it must be safe to store and to show:
it never holds an API key, only the NAME of the environment variable that holds it.

- ``{"backend": "embedded"}``: SmolLM2-135M-Instruct in-process (the default when nothing is
  configured). ``{"backend": "embedded", "model_path": "/models/qwen2.5-7b-q4_k_m.gguf"}``:
  any local GGUF chat model in-process instead; its absolute path is then its ``model`` (so
  jobs, turns and RAG generators name it and two files are never confused). Optional:
  ``n_ctx`` (tokens; ``context_window`` is accepted for it).
- ``{"backend": "openai", "model": "gpt-4o-mini", "base_url": "https://api.openai.com/v1",
  "api_key_env": "OPENAI_API_KEY"}``: any OpenAI-compatible server (OpenAI, vLLM, Ollama,
  llama.cpp server, LM Studio). Optional: ``timeout`` (seconds), ``context_window`` (tokens;
  absent = what the server reports, else :data:`DEFAULT_CONTEXT_WINDOW`), ``rpm`` (requests
  per minute allowed across all workers; absent = unlimited).
"""

from __future__ import annotations

import functools
import math
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from debates.llm import gguf
from debates.llm.base import LLMClient

BACKENDS = ("embedded", "openai")
DEFAULT_CONFIG: dict[str, Any] = {"backend": "embedded"}
EMBEDDED_MODEL = "SmolLM2-135M-Instruct-Q4_1"  # same as debates.llm.embedded.MODEL_NAME
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_CONTEXT_WINDOW = 8192
DEFAULT_EMBEDDED_N_CTX = 2048
# A local GGUF runs with min(its training context, this) unless n_ctx says otherwise: the KV
# cache of a 7-8B model at 4096 tokens is 0.25-0.5 GB, at 32768 tokens several GB.
GGUF_N_CTX_CAP = 4096
MAX_MODEL_PATH = 200  # Turn.model's length

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SECRET_FIELDS = ("api_key", "key", "token", "secret", "password", "authorization")
_ALLOWED = {
    "embedded": {"backend", "model", "n_ctx", "model_path", "context_window"},
    "openai": {"backend", "model", "base_url", "api_key_env", "timeout", "context_window", "rpm"},
}


def _number(config: dict[str, Any], field: str, *, default: float, lo: float, hi: float) -> float:
    value = config.get(field, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{field}: must be a number, got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{field}: must be between {lo:g} and {hi:g}, got {value!r}")
    return float(value)


def _integer(config: dict[str, Any], field: str, *, default: int | None, lo: int, hi: int) -> int:
    value = config.get(field, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{field}: must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{field}: must be between {lo} and {hi}, got {value!r}")
    return value


def validate_backend_config(
    config: dict[str, Any] | None, *, check_file: bool = True
) -> dict[str, Any]:
    """Check a backend config and return it normalised (defaults filled in, safe to store).

    ``None`` or ``{}`` means the default embedded backend. Raises ValueError naming the bad
    field: unknown backend, unknown field, a field that would hold a secret (``api_key`` ...),
    missing ``model``, a base URL that is not http(s), an invalid environment variable name,
    or a number out of range (timeout 0.1-3600 s, context_window 256-10,000,000 tokens,
    rpm 1-1,000,000, n_ctx 256-32768). ``context_window`` and ``rpm`` are kept only when given.

    An embedded ``model_path`` is made absolute and, with ``check_file`` (the default), must
    be a readable GGUF file with a chat template; the message names the path and the fault,
    e.g. ``model_path /m/x.gguf: not a GGUF file (starts with b'PK\\x03\\x04')``. Its
    ``n_ctx`` defaults to min(training context, :data:`GGUF_N_CTX_CAP`) and may not exceed
    the training context. ``check_file=False`` only normalises (describing a stored config
    whose file has gone).
    """
    if not config:
        config = dict(DEFAULT_CONFIG)
    if not isinstance(config, dict):
        raise ValueError(f"backend: config must be a dict, got {type(config).__name__}")
    for field in config:
        if str(field).lower() in _SECRET_FIELDS:
            raise ValueError(
                f"{field}: secrets are never stored in a backend config; pass the key when "
                "building the client or name its environment variable in api_key_env"
            )
    backend = config.get("backend", "embedded")
    if backend not in BACKENDS:
        raise ValueError(f"backend: must be one of {', '.join(BACKENDS)}, got {backend!r}")
    unknown = sorted(set(config) - _ALLOWED[backend])
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown field for the {backend} backend")

    if backend == "embedded":
        return _embedded_config(config, check_file=check_file)

    model = config.get("model")
    if not isinstance(model, str) or not model.strip():
        raise ValueError("model: required for the openai backend (e.g. gpt-4o-mini)")
    out: dict[str, Any] = {"backend": "openai", "model": model.strip()}
    base_url = config.get("base_url")
    if base_url is not None and base_url != "":
        if not isinstance(base_url, str):
            raise ValueError(f"base_url: must be a string, got {base_url!r}")
        parts = urlsplit(base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url: must be an http(s) URL, got {base_url!r}")
        if parts.username or parts.password:
            raise ValueError("base_url: must not contain credentials")
        out["base_url"] = base_url.strip().rstrip("/")
    else:
        out["base_url"] = None  # the SDK's default, https://api.openai.com/v1
    env = config.get("api_key_env", DEFAULT_API_KEY_ENV)
    if not isinstance(env, str) or not _ENV_NAME.match(env):
        raise ValueError(f"api_key_env: must be an environment variable name, got {env!r}")
    out["api_key_env"] = env
    out["timeout"] = _number(config, "timeout", default=DEFAULT_TIMEOUT_S, lo=0.1, hi=3600)
    if config.get("context_window") is not None:
        # Absent: the client asks the server, else uses DEFAULT_CONTEXT_WINDOW.
        out["context_window"] = _integer(
            config, "context_window", default=None, lo=256, hi=10_000_000
        )
    if config.get("rpm") is not None:
        out["rpm"] = _integer(config, "rpm", default=None, lo=1, hi=1_000_000)
    return out


@functools.lru_cache(maxsize=64)
def _gguf_info(path: str, size: int, mtime_ns: int) -> gguf.GGUFInfo:
    # Keyed by size and modification time too, so a file replaced in place is read again.
    return gguf.model_info(Path(path))


def gguf_info(path: Path) -> gguf.GGUFInfo:
    """The GGUF header facts of ``path`` (:func:`debates.llm.gguf.model_info`), cached per
    path, size and modification time: reading a 150k-token vocabulary takes a while.
    Raises :class:`debates.llm.gguf.GGUFError`."""
    gguf.file_check(path)
    stat = path.stat()
    return _gguf_info(str(path), stat.st_size, stat.st_mtime_ns)


def _embedded_config(config: dict[str, Any], *, check_file: bool) -> dict[str, Any]:
    if config.get("context_window") is not None:
        if config.get("n_ctx") is not None and config["n_ctx"] != config["context_window"]:
            raise ValueError("n_ctx: give n_ctx or context_window, not two different values")
        config = {**config, "n_ctx": config["context_window"]}
    raw_path = config.get("model_path")
    if raw_path is None or raw_path == "":
        model = config.get("model", EMBEDDED_MODEL)
        if model != EMBEDDED_MODEL:
            raise ValueError(
                f"model: the embedded backend runs {EMBEDDED_MODEL} unless model_path names "
                "a GGUF file"
            )
        n_ctx = _integer(config, "n_ctx", default=DEFAULT_EMBEDDED_N_CTX, lo=256, hi=32768)
        return {"backend": "embedded", "model": EMBEDDED_MODEL, "n_ctx": n_ctx}
    if not isinstance(raw_path, str | os.PathLike):
        raise ValueError(f"model_path: must be the path of a GGUF file, got {raw_path!r}")
    # Absolute, but symlinks kept: a link's name (e.g. into a Hugging Face cache) is the
    # readable one.
    path = Path(os.path.abspath(os.path.expanduser(os.fspath(raw_path))))
    model = str(path)
    if len(model) > MAX_MODEL_PATH:
        # The path is the model's name in every turn (a 200-character column): a cut name
        # could make two files look like one.
        raise ValueError(
            f"model_path {model[:60]}...: longer than {MAX_MODEL_PATH} characters; link the "
            "file from a shorter path"
        )
    if config.get("model") not in (None, "", model):
        raise ValueError(
            f"model: with model_path the model is named by its path ({model}), "
            f"got {config['model']!r}"
        )
    if not check_file:
        n_ctx = _integer(config, "n_ctx", default=GGUF_N_CTX_CAP, lo=256, hi=10_000_000)
        return {"backend": "embedded", "model": model, "model_path": model, "n_ctx": n_ctx}
    try:
        info = gguf_info(path)
    except gguf.GGUFError as exc:
        raise ValueError(f"model_path {exc}") from None
    if info.chat_template is None:
        raise ValueError(
            f"model_path {path}: no chat template ({gguf.CHAT_TEMPLATE_KEY}) in the GGUF "
            "metadata; the debates need an instruction-tuned model's chat format"
        )
    train = info.context_length or GGUF_N_CTX_CAP
    n_ctx = _integer(config, "n_ctx", default=min(train, GGUF_N_CTX_CAP), lo=256, hi=10_000_000)
    if n_ctx > train:
        # Past its training context a model's positions are untrained: refused, not degraded.
        raise ValueError(
            f"n_ctx: must be at most {train}, the training context of {path.name}, got {n_ctx}"
        )
    return {"backend": "embedded", "model": model, "model_path": model, "n_ctx": n_ctx}


def backend_key(config: dict[str, Any] | None) -> str:
    """Key naming one backend for the shared rate limit, e.g. ``openai:https://h/v1:gpt-4o``."""
    cfg = validate_backend_config(config, check_file=False)
    if cfg["backend"] == "embedded":
        return f"embedded:{cfg['model']}"
    return f"openai:{cfg['base_url'] or 'default'}:{cfg['model']}"


def describe_backend(config: dict[str, Any] | None) -> str:
    """One line for pages and logs, e.g. ``openai gpt-4o-mini at https://api.openai.com/v1``.

    Does not look at an embedded model's file (it may be gone since the job ran)."""
    cfg = validate_backend_config(config, check_file=False)
    if cfg["backend"] == "embedded" and cfg.get("model_path"):
        return f"embedded {cfg['model_path']} (local GGUF in-process, context {cfg['n_ctx']})"
    if cfg["backend"] == "embedded":
        return f"embedded {cfg['model']} (in-process; for trying the pipeline, not a benchmark)"
    return f"openai {cfg['model']} at {cfg['base_url'] or 'https://api.openai.com/v1'}"


def client_from_config(
    config: dict[str, Any] | None, *, api_key: str | None = None, limiter: Any = None
) -> LLMClient:
    """Build the LLM client a backend config describes.

    ``api_key`` (openai only) wins over the environment variable named by ``api_key_env``; it
    is handed to the SDK and kept nowhere else. Embedded clients share one loaded model per
    process. A config with ``rpm`` gives a client that first takes a slot from the shared rate
    limit (``limiter``, default :func:`debates.ratelimit.default_limiter`).

    Raises ValueError for an invalid config (see :func:`validate_backend_config`; also a
    ``model_path`` that is missing or not a GGUF file) and PermanentLLMError if the bundled
    model file is missing or llama.cpp cannot load a GGUF file.
    """
    cfg = validate_backend_config(config)
    if cfg["backend"] == "embedded":
        from debates.llm.embedded import EmbeddedClient

        path = cfg.get("model_path")
        return EmbeddedClient(n_ctx=cfg["n_ctx"], model_path=Path(path) if path else None)
    from debates.llm.openai_backend import OpenAIClient

    client: LLMClient = OpenAIClient(
        model=cfg["model"],
        base_url=cfg["base_url"],
        api_key=api_key,
        api_key_env=cfg["api_key_env"],
        timeout=cfg["timeout"],
        context_window=cfg.get("context_window"),
    )
    if cfg.get("rpm"):
        from debates.ratelimit import RateLimitedClient

        client = RateLimitedClient(client, key=backend_key(cfg), rpm=cfg["rpm"], limiter=limiter)
    return client
