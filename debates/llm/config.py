"""An agent's LLM backend config, typed: :class:`AgentConfig`.

A debate job stores one backend config per agent as JSON (``DebateJob.agent_a`` and
``agent_b``). That JSON is parsed here, at the edge, into an :class:`AgentConfig` (validated,
defaults filled in) and written back with :meth:`AgentConfig.dump`; nothing else reads the raw
dict. A config is safe to store and to show: it never holds an API key, only the NAME of the
environment variable that holds it.

- ``{"backend": "embedded"}``: SmolLM2-135M-Instruct in-process (the default when nothing is
  configured). ``{"backend": "embedded", "model_path": "/models/qwen2.5-7b-q4_k_m.gguf"}``:
  any local GGUF chat model in-process instead; its absolute path is then its ``model`` (so
  jobs, turns and RAG generators name it and two files are never confused). Optional:
  ``n_ctx`` (tokens; ``context_window`` is accepted for it).
- ``{"backend": "openai", "model": "gpt-4o-mini", "base_url": "https://api.openai.com/v1",
  "api_key_env": "OPENAI_API_KEY"}``: any OpenAI-compatible server (OpenAI, vLLM, Ollama,
  llama.cpp server, LM Studio). Optional: ``timeout`` (seconds), ``context_window`` (tokens;
  absent = what the server reports, else :data:`DEFAULT_CONTEXT_WINDOW`), ``rpm`` (requests
  per minute allowed across all workers; absent = unlimited). For reasoning models:
  ``reasoning_effort`` ("none", "minimal", "low", "medium" or "high"; OpenAI's o-series and
  gpt-5, gpt-oss) and ``extra_body``, a JSON object sent into every request as it is (vLLM:
  ``{"chat_template_kwargs": {"enable_thinking": false}}`` or a ``thinking_token_budget``);
  both are stored with the job and named in every label's provenance.
- ``{"backend": "test", ...}``: the test suite's scripted backends, accepted only while the
  environment variable ``DREAM_TEST_LLM_FACTORY`` names their factory; the other fields are
  the factory's own and are kept as given (:attr:`AgentConfig.options`).
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from pathlib import Path
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from debates.llm import gguf

BACKENDS = ("embedded", "openai", "simulated")
SIMULATED_BACKEND: Final = "simulated"
# Every simulated agent's model name starts so: each turn, label provenance and export row
# that names the model says the labels are simulated.
SIMULATED_MODEL_PREFIX: Final = "simulated:"
SIMULATED_RATES = ("sensitivity", "specificity", "persistence")
SIMULATED_DEFAULTS: dict[str, float] = {"sensitivity": 0.9, "specificity": 0.8, "persistence": 0.3}
_SLUG = re.compile(r"[-a-zA-Z0-9_]+\Z")
TEST_BACKEND: Final = "test"
TEST_FACTORY_ENV = "DREAM_TEST_LLM_FACTORY"
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
    "openai": {
        "backend",
        "model",
        "base_url",
        "api_key_env",
        "timeout",
        "context_window",
        "rpm",
        "reasoning_effort",
        "extra_body",
    },
    "simulated": {"backend", "model", "truth", "dataset", *SIMULATED_RATES, "seed"},
}
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")
EXTRA_BODY_MAX_CHARS = 4000
# Request fields the client sets from the job's own settings: an extra_body may not override
# them, or a label's provenance would name settings its requests did not have.
_RESERVED_BODY_FIELDS = (
    "model",
    "messages",
    "stream",
    "n",
    "response_format",
    "temperature",
    "max_tokens",
    "max_completion_tokens",
    "seed",
    "reasoning_effort",
)


def extra_body_check(value: Any) -> dict[str, Any]:
    """An ``extra_body`` given as a dict or as JSON text, checked: a JSON object of at most
    :data:`EXTRA_BODY_MAX_CHARS` characters, holding no field the client sets itself
    (``temperature``, ``max_tokens``, ...) and nothing named like a secret. Returns the dict.
    Raises ValueError naming the fault, e.g. ``extra_body: not JSON (Expecting value at char
    0)``."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"extra_body: not JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(value, dict):
        raise ValueError(f"extra_body: must be a JSON object, got {type(value).__name__}")
    try:
        text = json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"extra_body: not storable as JSON ({exc})") from None
    if len(text) > EXTRA_BODY_MAX_CHARS:
        raise ValueError(f"extra_body: longer than {EXTRA_BODY_MAX_CHARS} characters as JSON")
    for field in value:
        if field in _RESERVED_BODY_FIELDS:
            raise ValueError(
                f"extra_body: {field!r} is set from the job's own settings; it cannot be "
                "overridden here"
            )
        if str(field).lower() in _SECRET_FIELDS:
            raise ValueError(f"extra_body: {field!r} would hold a secret; it is never stored")
    return value


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
    rpm 1-1,000,000, n_ctx 256-32768), a ``reasoning_effort`` not in
    :data:`REASONING_EFFORTS`, an ``extra_body`` refused by :func:`extra_body_check`.
    ``context_window``, ``rpm``, ``reasoning_effort`` and ``extra_body`` are kept only when
    given.

    An embedded ``model_path`` is made absolute and, with ``check_file`` (the default), must
    be a readable GGUF file with a chat template; the message names the path and the fault,
    e.g. ``model_path /m/x.gguf: not a GGUF file (...)``, never a byte of the file. Its
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
    if backend == SIMULATED_BACKEND:
        return _simulated_config(config, check_file=check_file)
    return _openai_config(config)


def simulated_model_name(
    *, sensitivity: float, specificity: float, persistence: float, seed: int
) -> str:
    """The model name of a simulated agent, e.g. ``simulated:sens0.9-spec0.8-pers0.3-seed1``:
    every turn and label that names it says it is simulated (:data:`SIMULATED_MODEL_PREFIX`)."""
    return (
        f"{SIMULATED_MODEL_PREFIX}sens{sensitivity:g}-spec{specificity:g}-pers{persistence:g}"
        f"-seed{seed}"
    )


def is_simulated_model(model: str | None) -> bool:
    """True when ``model`` (a turn's, a label's or a stored config's) is a simulated agent's."""
    return bool(model) and str(model).startswith(SIMULATED_MODEL_PREFIX)


def _simulated_config(config: dict[str, Any], *, check_file: bool) -> dict[str, Any]:
    """A simulated backend config checked and normalised: ``truth`` an absolute path (with
    ``check_file`` a readable regular file), ``dataset`` a slug, the three rates in [0, 1]
    (defaults :data:`SIMULATED_DEFAULTS`), ``seed`` an integer (default 0); ``model`` is
    derived (:func:`simulated_model_name`) and a different one given is refused. Whether the
    file lies in a folder the operator allows is checked by the caller
    (:func:`debates.services.backends.agent_config_validate`)."""
    truth = config.get("truth")
    if not isinstance(truth, str) or not truth.strip():
        raise ValueError("truth: required for the simulated backend (the path of a qrels file)")
    if not os.path.isabs(truth.strip()):
        raise ValueError(f"truth: must be an absolute path, got {truth!r}")
    path = os.path.normpath(truth.strip())
    if len(path) > MAX_MODEL_PATH:
        raise ValueError(f"truth {path[:60]}...: longer than {MAX_MODEL_PATH} characters")
    dataset = config.get("dataset")
    if not isinstance(dataset, str) or not _SLUG.match(dataset):
        raise ValueError(
            f"dataset: the slug of the truth file's dataset is required, got {dataset!r}"
        )
    rates = {
        name: _number(config, name, default=SIMULATED_DEFAULTS[name], lo=0.0, hi=1.0)
        for name in SIMULATED_RATES
    }
    seed = _integer(config, "seed", default=0, lo=0, hi=2**63 - 1)
    model = simulated_model_name(seed=seed, **rates)
    if config.get("model") not in (None, "", model):
        raise ValueError(
            f"model: a simulated agent is named by its rates ({model}), got {config['model']!r}"
        )
    if check_file:
        try:
            with open(path, "rb") as handle:
                handle.read(1)
        except OSError as exc:
            raise ValueError(f"truth {path}: cannot read the file ({exc.strerror})") from None
        if not os.path.isfile(path):
            raise ValueError(f"truth {path}: not a regular file")
    return {
        "backend": SIMULATED_BACKEND,
        "model": model,
        "truth": path,
        "dataset": dataset,
        **rates,
        "seed": seed,
    }


def _openai_config(config: dict[str, Any]) -> dict[str, Any]:
    """An openai backend config checked and normalised (see :func:`validate_backend_config`)."""
    model = config.get("model")
    if model is not None and not isinstance(model, str):
        raise ValueError(f"model: must be a string, got {model!r}")
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
    effort = config.get("reasoning_effort")
    if effort not in (None, ""):
        if effort not in REASONING_EFFORTS:
            raise ValueError(
                f"reasoning_effort: must be one of {', '.join(REASONING_EFFORTS)}, got {effort!r}"
            )
        out["reasoning_effort"] = effort
    extra = config.get("extra_body")
    if extra not in (None, "", {}):
        out["extra_body"] = extra_body_check(extra)
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


class AgentConfig(BaseModel):
    """One agent's backend, validated (see the module docstring for the fields).

    Build one with :meth:`load` (from what a user or a command gave, or from a stored job) and
    store :meth:`dump`. Immutable and hashable, so it can key a per-process client cache.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: Literal["embedded", "openai", "simulated", "test"]
    model: str = ""
    base_url: str | None = None
    api_key_env: str | None = None
    timeout: float | None = None
    context_window: int | None = None
    rpm: int | None = None
    n_ctx: int | None = None
    model_path: str | None = None
    reasoning_effort: str | None = None
    # The extra_body object as canonical JSON text (sorted keys), so the config stays
    # hashable; read it with :attr:`extra_body_dict`.
    extra_body: str | None = None
    # The simulated backend's (SimulatedClient): the truth qrels file, its dataset's slug,
    # the debaters' rates and the seed.
    truth: str | None = None
    dataset: str | None = None
    sensitivity: float | None = None
    specificity: float | None = None
    persistence: float | None = None
    seed: int | None = None
    # The test backend's own fields (name, rule, delay, inner), as given, in sorted order.
    options: tuple[tuple[str, Any], ...] = Field(default=())

    @classmethod
    def load(
        cls, raw: AgentConfig | dict[str, Any] | None, *, check_file: bool = True
    ) -> AgentConfig:
        """Parse a backend config. ``None`` or ``{}`` is the default embedded backend.

        Raises ValueError naming the field (see :func:`validate_backend_config`; the test
        backend without ``DREAM_TEST_LLM_FACTORY`` set is refused too). ``check_file=False``
        skips reading an embedded ``model_path`` (a stored job's file may be gone since).
        """
        if isinstance(raw, AgentConfig):
            return raw
        if isinstance(raw, dict) and raw.get("backend") == TEST_BACKEND:
            if not os.environ.get(TEST_FACTORY_ENV):
                raise ValueError(f"backend 'test' exists only when {TEST_FACTORY_ENV} is set")
            return _test_config(raw)
        fields = validate_backend_config(raw, check_file=check_file)
        if "extra_body" in fields:
            fields["extra_body"] = json.dumps(fields["extra_body"], sort_keys=True)
        return cls(**fields)

    @classmethod
    def stored(cls, raw: dict[str, Any]) -> AgentConfig:
        """A config as a job stored it (already validated once): not re-read from disk, and
        a test-backend config is accepted whatever the environment says. Parsed once per
        process and distinct config (readers call this once per debate row). Raises
        ValueError for a config that is not one."""
        return _stored(json.dumps(raw, sort_keys=True, default=str))

    @classmethod
    def stored_or_named(cls, raw: dict[str, Any]) -> AgentConfig:
        """:meth:`stored`, or for a config this code would no longer accept (a job stored by
        an older version) one holding only the backend and model it names
        (:func:`backend_and_model`), unchecked: enough to price and name the agent by, never
        to build a client from."""
        try:
            return cls.stored(raw)
        except ValueError:
            backend, model = backend_and_model(raw)
            return cls.model_construct(backend=backend, model=model)

    def dump(self) -> dict[str, Any]:
        """The JSON a job stores: the same keys :func:`validate_backend_config` returns."""
        if self.backend == TEST_BACKEND:
            return {"backend": TEST_BACKEND, **dict(self.options)}
        if self.backend == "embedded":
            out: dict[str, Any] = {"backend": "embedded", "model": self.model}
            if self.model_path:
                out["model_path"] = self.model_path
            out["n_ctx"] = self.n_ctx
            return out
        if self.backend == SIMULATED_BACKEND:
            return {
                "backend": SIMULATED_BACKEND,
                "model": self.model,
                "truth": self.truth,
                "dataset": self.dataset,
                "sensitivity": self.sensitivity,
                "specificity": self.specificity,
                "persistence": self.persistence,
                "seed": self.seed,
            }
        out = {
            "backend": "openai",
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "timeout": self.timeout,
        }
        if self.context_window is not None:
            out["context_window"] = self.context_window
        if self.rpm is not None:
            out["rpm"] = self.rpm
        out.update(self.generation_options())
        return out

    @property
    def extra_body_dict(self) -> dict[str, Any]:
        """The ``extra_body`` object sent in every request ({} when none)."""
        return json.loads(self.extra_body) if self.extra_body else {}

    def generation_options(self) -> dict[str, Any]:
        """The per-agent generation options given (``reasoning_effort``, ``extra_body``), as a
        label's provenance names them; {} when none."""
        out: dict[str, Any] = {}
        if self.reasoning_effort:
            out["reasoning_effort"] = self.reasoning_effort
        if self.extra_body:
            out["extra_body"] = self.extra_body_dict
        return out

    def option(self, name: str, default: Any = None) -> Any:
        """A test-backend field (``name``, ``rule``, ``delay``, ``inner``), or ``default``."""
        return dict(self.options).get(name, default)

    @property
    def is_remote(self) -> bool:
        """True when the model answers from a server (openai, or a test backend not wrapping
        the embedded model); False when it computes in this process (embedded)."""
        if self.backend == "embedded":
            return False
        return not (self.backend == TEST_BACKEND and self.option("inner") == "embedded")

    @property
    def is_simulated(self) -> bool:
        """True for a simulated debater (:mod:`debates.simulated_client`): its labels are
        simulated and must be marked so wherever they are shown."""
        return self.backend == SIMULATED_BACKEND

    @property
    def is_bundled_model(self) -> bool:
        """True for the bundled SmolLM2 (embedded without a ``model_path``)."""
        return self.backend == "embedded" and not self.model_path

    def key(self) -> str:
        """Names one backend for the shared rate limit, e.g. ``openai:https://h/v1:gpt-4o``."""
        if self.backend == "embedded":
            return f"embedded:{self.model}"
        if self.backend == TEST_BACKEND:
            return f"test:{self.options!r}"
        if self.backend == SIMULATED_BACKEND:
            return f"{self.model}:{self.dataset}:{self.truth}"
        return f"openai:{self.base_url or 'default'}:{self.model}"

    def describe(self, *, full_path: bool = False) -> str:
        """One line for pages and logs, e.g. ``openai gpt-4o-mini at https://api.openai.com/v1``.
        Does not look at an embedded model's file (it may be gone since the job ran), and
        names it by its file name only (:func:`model_shown`: pages, exports and the API are
        read by researchers) unless ``full_path`` (a command's output, for the operator)."""
        if self.backend == "embedded" and self.model_path:
            path = self.model_path if full_path else model_shown(self.model_path)
            return f"embedded {path} (local GGUF in-process, context {self.n_ctx})"
        if self.backend == "embedded":
            return f"embedded {self.model} (in-process; for trying the pipeline, not a benchmark)"
        if self.backend == TEST_BACKEND:
            return TEST_BACKEND
        if self.backend == SIMULATED_BACKEND:
            return (
                f"simulated debater (SIMULATED labels, not real judgments) from "
                f"{truth_file_shown(self.truth)} of {self.dataset}, sens {self.sensitivity:g} "
                f"spec {self.specificity:g} persistence {self.persistence:g} seed {self.seed}"
            )
        where = f"openai {self.model} at {self.base_url or 'https://api.openai.com/v1'}"
        if self.reasoning_effort:
            where += f", reasoning_effort {self.reasoning_effort}"
        if self.extra_body:
            where += f", extra_body {self.extra_body}"
        return where

    @property
    def label(self) -> str:
        """What a label's provenance names the agent by: the model (a GGUF file by its name,
        :func:`model_shown`), else the backend."""
        return model_shown(self.model) or self.backend


def backend_and_model(raw: dict[str, Any] | None) -> tuple[str, str]:
    """``(backend, model)`` of a stored config, read without validating it (prices and
    provenance name an agent by them, even for a config this code would no longer accept);
    ``("", "")`` for None."""
    raw = raw or {}
    return str(raw.get("backend", "")), str(raw.get("model", "") or "")


def agents_simulated(*agents: dict[str, Any] | None) -> bool:
    """Whether any of ``agents`` (agent configs as a job stores them, ``DebateJob.agent_a``
    and ``agent_b``) is a simulated debater: backend ``simulated``, or a model named with
    :data:`SIMULATED_MODEL_PREFIX`. Read without validating the configs, as provenance reads
    them: a consensus one simulated agent took part in is simulated."""
    for raw in agents:
        backend, model = backend_and_model(dict(raw) if raw else None)
        if backend == SIMULATED_BACKEND or is_simulated_model(model):
            return True
    return False


def truth_file_shown(truth: str | None) -> str:
    """A simulated agent's truth file as pages and the API show it: its name only, e.g.
    ``qrels.tsv`` for ``/srv/truths/qrels.tsv`` (the folder is the server's, one of
    ``DREAM_SIMULATION_DIRS``); "" for None."""
    return Path(truth or "").name


def model_shown(model: str | None) -> str:
    """A model as pages, exports and the API show it to their readers (researchers too): an
    embedded agent's GGUF file (its ``model_path``, which is its ``model`` too: an absolute
    path on the server) by its file name only, e.g. ``qwen2.5-7b-q4_k_m.gguf`` for
    ``/srv/models/qwen2.5-7b-q4_k_m.gguf``; any other name (``gpt-4o``, ``Qwen/Qwen3-8B``)
    as it is; "" for None."""
    text = model or ""
    return Path(text).name if Path(text).is_absolute() else text


def config_shown(raw: dict[str, Any] | None) -> dict[str, Any]:
    """A stored agent config (``DebateJob.agent_a``, ``agent_b``) as the API shows it to its
    readers (researchers too): a copy as stored, but a ``truth`` path by its file name only
    (:func:`truth_file_shown`) and an embedded ``model_path`` (and the ``model`` it names) by
    its file name only (:func:`model_shown`), as :meth:`AgentConfig.describe` names them on
    the job page. Read without validating, as provenance reads a config; ``{}`` for None."""
    shown = dict(raw or {})
    if isinstance(shown.get("truth"), str):
        shown["truth"] = truth_file_shown(shown["truth"])
    for name in ("model", "model_path"):
        if isinstance(shown.get(name), str):
            shown[name] = model_shown(shown[name])
    return shown


@functools.lru_cache(maxsize=256)
def _stored(text: str) -> AgentConfig:
    raw = json.loads(text)
    if isinstance(raw, dict) and raw.get("backend") == TEST_BACKEND:
        return _test_config(raw)  # stored once, so accepted whatever the environment says
    return AgentConfig.load(raw, check_file=False)


def _test_config(raw: dict[str, Any]) -> AgentConfig:
    # The test backend's own fields are kept as given, in sorted order.
    options = tuple(sorted((str(k), v) for k, v in raw.items() if k != "backend"))
    return AgentConfig(backend=TEST_BACKEND, options=options)
