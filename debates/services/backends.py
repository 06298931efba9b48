"""LLM backends for debate agents: :func:`agent_config_validate` parses an agent's backend
config into a typed, storable :class:`~debates.llm.config.AgentConfig` (no API key; the
``"test"`` backend only when ``DREAM_TEST_LLM_FACTORY`` names a factory), and
:func:`agent_client_get` builds the client for a config once per process, config and API key.
The other service modules call it as ``backends.agent_client_get`` (a module attribute), so
tests patch ``debates.services.backends.agent_client_get`` to swap every agent's client at
once.

:func:`agent_config_permit` is the rule for a config that came from the browser or the HTTP
API: only the endpoints, key variables and model files the server's operator listed
(:mod:`debates.llm.policy`); the management commands do not call it."""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings

from debates.llm import policy, registry
from debates.llm.base import LLMClient, PermanentLLMError
from debates.llm.config import (
    DEFAULT_API_KEY_ENV,
    TEST_BACKEND,
    TEST_FACTORY_ENV,
    AgentConfig,
    model_shown,
    truth_file_shown,
)
from debates.services.common import AgentConfigError, AgentFieldError, DebateJobError

__all__ = [
    "TEST_BACKEND",
    "TEST_FACTORY_ENV",
    "agent_client_get",
    "agent_config_permit",
    "agent_config_validate",
    "allowed_endpoints",
    "endpoint_listed",
    "stored_agents_permit",
    "stored_agents_refusal",
    "allowed_key_envs",
    "model_file_permitted",
    "simulation_dirs",
    "truth_file_permit",
]

ENDPOINTS_SETTING = "DREAM_LLM_ALLOWED_ENDPOINTS"
KEY_ENVS_SETTING = "DREAM_LLM_KEY_ENVS"
MODELS_DIR_SETTING = "DREAM_MODELS_DIR"
SIMULATION_DIRS_SETTING = "DREAM_SIMULATION_DIRS"


def _setting_list(name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    value = getattr(settings, name, default)
    if isinstance(value, str):
        value = value.split(",")
    return tuple(item.strip() for item in value if item and item.strip())


def allowed_endpoints() -> tuple[str, ...]:
    """``settings.DREAM_LLM_ALLOWED_ENDPOINTS`` (a list or a comma-separated string), read
    each time so a changed setting applies at once."""
    return _setting_list(ENDPOINTS_SETTING, (policy.DEFAULT_ENDPOINT,))


def allowed_key_envs() -> tuple[str, ...]:
    """``settings.DREAM_LLM_KEY_ENVS`` (a list or a comma-separated string): the names of
    the environment variables a job made in the browser or the API may take its key from."""
    return _setting_list(KEY_ENVS_SETTING, (DEFAULT_API_KEY_ENV,))


def _bundled_model() -> str | None:
    from debates.llm.embedded import smollm2_gguf_path

    try:
        return str(smollm2_gguf_path())
    except PermanentLLMError:  # the package is missing: no bundled file to allow
        return None


def model_file_permitted(*, path: str) -> bool:
    """True when ``path`` may be an embedded agent's ``model_path`` in a job made in the
    browser or the API: a regular file inside ``DREAM_MODELS_DIR`` once symlinks are
    followed, or the bundled SmolLM2 file (:func:`debates.llm.policy.model_file_allowed`).
    Opens no file."""
    folder = str(getattr(settings, MODELS_DIR_SETTING, "") or "")
    if folder:
        folder = os.path.expanduser(folder)
    return policy.model_file_allowed(path=path, folder=folder, bundled=_bundled_model())


def simulation_dirs() -> tuple[str, ...]:
    """``settings.DREAM_SIMULATION_DIRS`` (a list or a comma-separated string): the folders a
    simulated agent's truth file must lie in; empty, the simulated backend is refused."""
    return _setting_list(SIMULATION_DIRS_SETTING, ())


def truth_file_permit(*, path: str | None, agent: str, shown_in_full: bool = True) -> None:
    """Refuse a simulated agent's ``truth`` file unless it lies in one of the folders of
    ``DREAM_SIMULATION_DIRS`` (symlinks followed; :func:`debates.llm.policy.truth_file_allowed`).
    Opens no file. Raises DebateJobError naming the agent, the field and the setting; with
    the backend off, the environment variable to set and the truth file's folder as its
    example value (``agent A: truth: the simulated backend is off until the server's operator
    sets the environment variable DREAM_SIMULATION_DIRS to the truth files' folders
    (comma-separated), e.g. DREAM_SIMULATION_DIRS=/abs/truth``). ``shown_in_full`` False
    (a refusal stored on a debate, which researchers read): the file by its name only
    (:func:`debates.llm.config.truth_file_shown`) and no folder of the server's."""
    folders = simulation_dirs()
    named = path if shown_in_full else truth_file_shown(path)
    if not folders:
        example = (
            os.path.dirname(os.path.abspath(path))
            if path and shown_in_full
            else "/folder/of/truth/files"
        )
        raise AgentFieldError(
            agent=agent,
            message=f"truth: the simulated backend is off until the server's operator sets "
            f"the environment variable {SIMULATION_DIRS_SETTING} to the truth files' folders "
            f"(comma-separated), e.g. {SIMULATION_DIRS_SETTING}={example}",
        )
    if not path or not policy.truth_file_allowed(path=path, folders=folders):
        raise AgentFieldError(
            agent=agent,
            message=f"truth {named} is not a file in the folders the server's operator allows "
            f"({SIMULATION_DIRS_SETTING})",
        )


def agent_config_permit(
    *, config: AgentConfig | dict[str, Any] | None, agent: str, shown_in_full: bool = True
) -> None:
    """Refuse a backend config from the browser or the HTTP API that names what the server's
    operator did not allow: an openai ``base_url`` (absent: https://api.openai.com/v1) not
    matching ``DREAM_LLM_ALLOWED_ENDPOINTS``, an ``api_key_env`` (absent: OPENAI_API_KEY)
    not in ``DREAM_LLM_KEY_ENVS``, an embedded ``model_path`` outside ``DREAM_MODELS_DIR``.

    Checked before anything is sent, read or opened: no variable's value is looked at and
    no model file is read. Raises DebateJobError naming the agent, the field and the
    setting, e.g. ``agent A: base_url http://127.0.0.1:9000/v1 is not one of the endpoints
    the server's operator allows (DREAM_LLM_ALLOWED_ENDPOINTS)``; and AgentConfigError for a
    config that is invalid (worded as :func:`agent_config_validate` words it). The scripted
    test backend passes (it exists only while ``DREAM_TEST_LLM_FACTORY`` is set).
    ``shown_in_full`` False (a refusal stored on a job, which researchers read): a model or
    truth file by its name only (:func:`debates.llm.config.model_shown`), no folder of the
    server's."""
    try:
        parsed = AgentConfig.load(config, check_file=False)
    except ValueError as exc:
        raise AgentConfigError(agent=agent, message=str(exc)) from None
    if parsed.backend == "openai":
        if not policy.endpoint_allowed(base_url=parsed.base_url, allowed=allowed_endpoints()):
            shown = parsed.base_url or policy.DEFAULT_ENDPOINT
            raise DebateJobError(
                f"agent {agent}: base_url {shown} is not one of the endpoints the server's "
                f"operator allows ({ENDPOINTS_SETTING})"
            )
        name = parsed.api_key_env or DEFAULT_API_KEY_ENV
        allowed = allowed_key_envs()
        if not policy.key_env_allowed(name=name, allowed=allowed):
            # The name is not repeated: a key typed into the wrong field would be echoed.
            listed = ", ".join(allowed) or "none"
            raise DebateJobError(
                f"agent {agent}: api_key_env is not one of the variables the server's operator "
                f"allows for keys ({KEY_ENVS_SETTING}: {listed})"
            )
    if parsed.is_simulated:
        truth_file_permit(path=parsed.truth, agent=agent, shown_in_full=shown_in_full)
    if parsed.backend == "embedded" and parsed.model_path:
        if not model_file_permitted(path=parsed.model_path):
            if getattr(settings, MODELS_DIR_SETTING, ""):
                why = "is not a file in the models folder the server's operator set"
            else:
                why = (
                    "is refused: only the bundled model may be used until the server's "
                    "operator sets a models folder"
                )
            named = parsed.model_path if shown_in_full else model_shown(parsed.model_path)
            raise DebateJobError(f"agent {agent}: model_path {named} {why} ({MODELS_DIR_SETTING})")


def stored_agents_permit(
    *, agents: tuple[dict[str, Any], dict[str, Any]], shown_in_full: bool = True
) -> None:
    """Refuse to run a stored job's agents again from the browser or the HTTP API (resume,
    retry failed), or on a worker for a job made there (:func:`stored_agents_refusal`),
    unless the operator allows them now (:func:`agent_config_permit`, agent A then B): a
    setting withdrawn since the launch must stop the job's calls, and a job a command made
    with an endpoint of its own is resumed by a command. Reads no variable and opens no
    file. Raises DebateJobError naming the agent, the field and the setting (a file by its
    name only unless ``shown_in_full``)."""
    for name, raw in zip(("A", "B"), agents, strict=True):
        agent_config_permit(config=raw, agent=name, shown_in_full=shown_in_full)


def stored_agents_refusal(*, agents: tuple[str, str]) -> str:
    """What a worker asks before it calls for a debate of a job made in the browser or the
    API: "" when the operator's settings as they are now allow its agents (``agents``: agent
    A's and B's stored configs as JSON text), else :func:`stored_agents_permit`'s refusal
    with a file by its name only (stored on the job, which researchers read), e.g. ``agent A:
    base_url http://gpu1:8000/v1 is not one of the endpoints the server's operator allows
    (DREAM_LLM_ALLOWED_ENDPOINTS)``. Answered once per process, configs and settings (the
    settings are part of the key, so a changed setting applies at once). Opens no file."""
    return _refusal(agents, _policy_now())


def _policy_now() -> tuple[Any, ...]:
    """The settings :func:`agent_config_permit` reads, as they are now."""
    folder = str(getattr(settings, MODELS_DIR_SETTING, "") or "")
    return (
        allowed_endpoints(),
        allowed_key_envs(),
        folder,
        simulation_dirs(),
        os.environ.get(TEST_FACTORY_ENV, ""),
    )


@functools.lru_cache(maxsize=256)
def _refusal(agents: tuple[str, str], _policy: tuple[Any, ...]) -> str:
    try:
        raw = (json.loads(agents[0]), json.loads(agents[1]))
        stored_agents_permit(agents=raw, shown_in_full=False)
    except DebateJobError as exc:
        return str(exc)
    return ""


def agent_config_validate(
    config: AgentConfig | dict[str, Any] | None, *, agent: str = "A", check_file: bool = True
) -> AgentConfig:
    """Parse and check an agent's backend config (:meth:`AgentConfig.load`; None is the
    embedded default; ``check_file=False`` does not read an embedded model file). A simulated
    config given as a dict (an edge: API, form, command) with ``check_file`` has its truth file
    checked against ``DREAM_SIMULATION_DIRS`` before it is opened, then read, every query and
    document id of it in its dataset (:func:`debates.simulated_client.truth_file_load`).
    Raises DebateJobError naming the agent and the field, e.g. ``agent B: model: required for
    the openai backend`` or ``agent A: truth /t/q.tsv:3: query 'q9' is not in scifact``."""
    try:
        if check_file and isinstance(config, dict) and config.get("backend") == "simulated":
            # Checked before the file is opened, for every edge (commands too).
            parsed = AgentConfig.load(config, check_file=False)
            truth_file_permit(path=parsed.truth, agent=agent)
        loaded = AgentConfig.load(config, check_file=check_file)
        if check_file and isinstance(config, dict) and loaded.is_simulated:
            from debates.simulated_client import truth_file_load

            # Every id of the truth must be the dataset's: a typo is refused at the edge,
            # naming its file and line, rather than answered as "not relevant" in a job.
            truth_file_load(path=loaded.truth or "", dataset=loaded.dataset or "")
        return loaded
    except DebateJobError:
        raise  # already names the agent (truth_file_permit): never "agent A: agent A: ..."
    except ValueError as exc:
        raise AgentFieldError(agent=agent, message=str(exc)) from None


# The fields a form or a command's flags give per backend (a form shows every backend's
# fields; those of another backend are left out).
AGENT_FIELDS: dict[str, tuple[str, ...]] = {
    "embedded": ("model_path", "context_window"),
    "openai": (
        "model",
        "base_url",
        "api_key_env",
        "context_window",
        "timeout",
        "rpm",
        "reasoning_effort",
        "extra_body",
    ),
    # The job form does not offer the simulated backend (API and commands only).
    "simulated": ("truth", "dataset", "sensitivity", "specificity", "persistence", "seed"),
}
AGENT_FIELD_NAMES = (
    "backend",
    *dict.fromkeys(AGENT_FIELDS["openai"] + AGENT_FIELDS["embedded"] + AGENT_FIELDS["simulated"]),
)


def agent_fields_given(values: Mapping[str, Any]) -> dict[str, Any]:
    """The backend config that flat values describe (form fields or command flags, by the
    names of :data:`AGENT_FIELD_NAMES`): ``backend`` (default "embedded") and the fields that
    backend takes, leaving out those not given (None or blank text) and stripping text."""
    backend = values.get("backend") or "embedded"
    config: dict[str, Any] = {"backend": backend}
    for name in AGENT_FIELDS.get(backend, ()):
        value = values.get(name)
        if isinstance(value, str):
            value = value.strip()
        if value is not None and value != "":
            config[name] = value
    return config


def agent_config_build(
    *,
    fields: AgentConfig | Mapping[str, Any] | None,
    agent: str = "A",
    untrusted: bool = False,
    check_file: bool = True,
) -> AgentConfig:
    """The one way an agent's backend config given at an edge (the HTTP API's JSON, the job
    form's fields or a command's flags through :func:`agent_fields_given`) becomes an
    :class:`AgentConfig`: with ``untrusted`` (the browser, the API) first refused unless the
    operator allows its endpoint, key variable and model file (:func:`agent_config_permit`,
    before any file is read), then parsed and checked (:func:`agent_config_validate`; with
    ``check_file=False`` an embedded model file is not read, for a config only described).
    None is the embedded default. Raises DebateJobError naming the agent and the field."""
    raw = fields if fields is None or isinstance(fields, AgentConfig) else dict(fields)
    if untrusted:
        agent_config_permit(config=raw, agent=agent)
    return agent_config_validate(raw, agent=agent, check_file=check_file)


_clients: dict[tuple[int, str, str], LLMClient] = {}
# N threads starting N debates at once would otherwise each build the same client (and import
# its SDK at the same time); one builds it while the others wait, then all share it.
_clients_lock = threading.Lock()


def agent_client_get(*, config: AgentConfig, api_key: str | None = None) -> LLMClient:
    """The LLM client for a backend config, built once per process, config and key.

    ``api_key`` is a key typed in the job form (decrypted by the caller, see
    :mod:`debates.api_keys`); without one the key comes from the environment variable the
    config names. The cache is keyed by the key's SHA-256, never the key itself; threads
    asking at once get the same client.
    Raises ValueError for a backend without a client and PermanentLLMError for a missing
    model.
    """
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
    if config.is_simulated:
        from debates.simulated_client import SimulatedClient

        try:  # a stored job's folder may have been withdrawn since it was made
            # The refusal becomes the debate's last error, which researchers read.
            truth_file_permit(path=config.truth, agent="simulated", shown_in_full=False)
        except DebateJobError as exc:
            raise PermanentLLMError(str(exc)) from None
        return SimulatedClient(config)
    return registry.client_from_config(
        config, api_key=api_key or None, props_allowed=endpoint_listed
    )


def endpoint_listed(url: str) -> bool:
    """True when ``url`` matches ``DREAM_LLM_ALLOWED_ENDPOINTS`` as it is now
    (:func:`debates.llm.policy.endpoint_allowed`). The context-window probe asks llama.cpp's
    ``/props`` (beside ``/v1``, outside a listed ``.../v1``) only then, with the key, for every
    job, a command's too: list the server's root (``http://gpu1:8080``) for it, or give the
    agent a ``context_window``."""
    return policy.endpoint_allowed(base_url=url, allowed=allowed_endpoints())
