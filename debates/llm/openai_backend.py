"""The ``openai`` backend: the official ``openai`` SDK against any OpenAI-compatible server.

Works with OpenAI, vLLM, Ollama, the llama.cpp servers and LM Studio. The SDK's own retries
are off (``max_retries=0``): :mod:`debates.retry` retries, honouring Retry-After, so that the
shared rate limit sees every attempt. The API key comes from the caller or from an environment
variable whose NAME is configured; it is passed to the SDK and never stored or shown.

Structured output is asked for as ``{"type": "json_schema", ...}`` (OpenAI, vLLM, Ollama, LM
Studio, llama.cpp's C++ server). A server that rejects it (HTTP 400/422, or a 500 that names
``response_format``, as llama-cpp-python's server answers) is asked again with
``{"type": "json_object", "schema": ...}`` (llama-cpp-python's server, Anyscale), then plain
``{"type": "json_object"}``; the first mode that works is remembered for this client.

Context window: a configured ``context_window`` is used as given. Without one the client asks
the server once (:func:`server_context_window`: vLLM's ``max_model_len`` in ``GET /models``,
llama.cpp's ``n_ctx`` in ``GET /props`` where the caller allows that URL, ...) and falls back to
:data:`DEFAULT_CONTEXT_WINDOW`. llama-cpp-python's server reports its context nowhere, but its
rejection of a long prompt says "maximum context length is N tokens", as OpenAI's and vLLM's
do: the client then lowers its window to N (the engine fits the chunk again once) and the
error names ``--context-window``.

Reasoning models: the reply's ``reasoning`` or ``reasoning_content`` field (vLLM, SGLang,
llama.cpp) is returned as :attr:`LLMResult.reasoning`, with the usage's
``completion_tokens_details.reasoning_tokens`` and ``prompt_tokens_details.cached_tokens``.
``reasoning_effort`` and ``extra_body`` (per agent, :class:`debates.llm.config.AgentConfig`)
go into every request as given. OpenAI's reasoning models refuse ``max_tokens`` ("use
``max_completion_tokens``") and any temperature but 1: on that refusal the client asks again
with ``max_completion_tokens``, or without ``temperature`` (the server's default, logged once),
and keeps doing so for this client.

Label probabilities: every request asks for ``logprobs`` with ``top_logprobs``
(:data:`~debates.llm.base.TOP_LOGPROBS`), read into :attr:`LLMResult.logprobs`
(:mod:`debates.llm.logprobs`). A server that refuses them (a 400/422, or a 500, naming
``logprobs``) is asked again without, and this client never asks for them again; a reply
without them has ``logprobs`` None. Logprobs never fail a call.
"""

from __future__ import annotations

import email.utils
import functools
import json
import logging
import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from debates.llm.base import (
    TOP_LOGPROBS,
    ChatMessage,
    ContextTooLongError,
    GenerationParams,
    LLMResult,
    PermanentLLMError,
    TransientLLMError,
)
from debates.llm.logprobs import choice_logprobs, logprobs_refused
from debates.llm.policy import DEFAULT_ENDPOINT

_SCHEMA_MODES = ("json_schema", "json_object_schema", "json_object")
_CONTEXT_PATTERNS = re.compile(
    r"context[_ ]length|context window|maximum context|too many tokens|prompt is too long"
    r"|exceeds? (the )?(model'?s? )?(max|context)",
    re.IGNORECASE,
)
_BODY_VALIDATION = re.compile(r"validation error.*'loc': \('body'", re.DOTALL)
_TRANSIENT_STATUS = {408, 409, 425, 429}
_NO_KEY = "no-key"  # local servers ignore the key, but the SDK insists on one
_SERVER_MAXIMUM = re.compile(r"maximum context length is (\d+)", re.IGNORECASE)
DEFAULT_CONTEXT_WINDOW = 8192  # when neither the config nor the server says (same as registry)
PROBE_TIMEOUT_S = 10.0
# Fields naming a model's serving context in GET /models entries: vLLM ``max_model_len``,
# OpenRouter and others ``context_length``, Groq ``context_window``, LM Studio
# ``loaded_context_length`` / ``max_context_length``. llama.cpp's ``meta.n_ctx_train`` is the
# training context, not the server's, so it is not used.
_MODEL_CONTEXT_FIELDS = (
    "max_model_len",
    "loaded_context_length",
    "context_length",
    "context_window",
    "max_context_length",
)

log = logging.getLogger(__name__)


# Pieces a BPE tokenizer never merges across: letter runs, single digits, punctuation marks,
# newline runs, runs of 2+ spaces/tabs, single non-ASCII characters.
_PIECES = re.compile(
    r"[A-Za-z]+|[0-9]|[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]|\n+|[ \t]{2,}|[^\x00-\x7f]"
)
# In a letter run of length L: the (L-1)//3 complete groups of 3 letters after its first, and
# the run itself when it has a capital after its first letter.
_LETTER_GROUPS = re.compile(r"(?<=[A-Za-z])[A-Za-z]{3}")
_INNER_CAPITAL = re.compile(r"(?<![A-Za-z])[A-Za-z][a-z]*[A-Z][A-Za-z]*")


def estimate_tokens(text: str) -> int:
    """Token count estimate without a tokenizer, meant as an upper bound.

    A letter run of length L counts ceil(L/3), plus 1 if it has a capital after its first
    letter (acronyms split finely); each digit, punctuation mark, newline run and run of 2+
    spaces counts 1; a non-ASCII character counts its UTF-8 bytes (byte fallback); plus 3.
    Measured against SmolLM2's 49k-vocabulary tokenizer (less efficient than those of hosted
    models) on 28,673 texts (bundled SciFact, plus up to 3,000 documents and 3,000 queries of
    each shared dataset): never below the real count (largest real/estimate ratio 0.943, mean
    0.544), so the measured margin is at least 6% of the estimate and about 45% on average.
    Tokenizers with larger vocabularies (Llama 3, GPT-4o, Qwen: 128k-200k entries) need fewer
    tokens for the same text, so the bound holds for them with more room. Not guaranteed for
    every tokenizer: give the client a ``tokenizer`` when an exact count matters, and a server
    rejection is still caught (see the module docstring).
    """
    # Every piece counts 1; a letter run of length L counts ceil(L/3) = 1 + (L-1)//3 (plus 1
    # for a capital after its first letter); a non-ASCII character its UTF-8 bytes, i.e.
    # 1 + (bytes - 1). Counted by regular expressions, not a Python loop over the pieces.
    count = 3 + _PIECES.subn("", text)[1]  # subn counts in C, making no match objects
    count += _LETTER_GROUPS.subn("", text)[1] + _INNER_CAPITAL.subn("", text)[1]
    if not text.isascii():
        count += len(text.encode("utf-8")) - len(text)
    return count


# estimate_tokens of the texts counted last: every call of a debate counts its system prompt,
# one of a few fixed texts, beside a user prompt seen once; three regular expressions over the
# system prompt per call were a measurable share of the LLM stage's CPU at 64 in flight.
_estimate_recent = functools.lru_cache(maxsize=256)(estimate_tokens)


def parse_retry_after(headers: Any, *, now: float | None = None) -> float | None:
    """Seconds to wait from a response's ``retry-after-ms`` or ``Retry-After`` header.

    ``headers`` is any mapping of header names (any case) to values.
    ``Retry-After`` may be delta-seconds or an HTTP date (RFC 9110 §10.2.3); a date in the
    past gives 0. Returns None when no usable header is present.
    """
    if headers is None:
        return None
    headers = {str(name).lower(): value for name, value in headers.items()}
    raw_ms = headers.get("retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if raw is None:
        return None
    raw = raw.strip()
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _strict_schema(schema: Any) -> tuple[Any, bool]:
    """The schema with ``additionalProperties: false`` on every object, and whether strict mode
    can be asked for (OpenAI's strict mode needs every property required)."""
    strict = True

    def walk(node: Any) -> Any:
        nonlocal strict
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {key: walk(value) for key, value in node.items()}
        if out.get("type") == "object" and isinstance(out.get("properties"), dict):
            out.setdefault("additionalProperties", False)
            if set(out.get("required", ())) != set(out["properties"]):
                strict = False
        return out

    return walk(schema), strict


def _response_format_build(mode: str, schema: Any) -> dict[str, Any]:
    if mode == "json_schema":
        strict_schema, strict = _strict_schema(schema)
        return {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": strict_schema, "strict": strict},
        }
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_object"}


# Built response formats by (mode, id(schema)), with the schema they were built from (an id
# is only reused once its object is gone, and the entry keeps it alive): a debate's calls
# pass one of a few schema objects (debates.prompts.reply_json_schema), and walking the schema
# for its strict form on every call was a measurable share of a call's CPU.
_FORMATS: dict[tuple[str, int], tuple[Any, dict[str, Any]]] = {}
_FORMATS_MAX = 64


def response_format(mode: str, schema: Any) -> dict[str, Any]:
    """The ``response_format`` of a request in structured-output ``mode`` (one of
    :data:`_SCHEMA_MODES`) for JSON ``schema``: built once per mode and schema object and
    shared by every request after (never changed; the SDK serialises it as given). A schema
    changed in place after its first use is not seen: schemas are constants
    (:func:`debates.prompts.reply_json_schema`)."""
    key = (mode, id(schema))
    entry = _FORMATS.get(key)
    if entry is not None and entry[0] is schema:
        return entry[1]
    built = _response_format_build(mode, schema)
    if len(_FORMATS) >= _FORMATS_MAX:
        _FORMATS.clear()  # schemas made per call by a caller: kept bounded, built again
    _FORMATS[key] = (schema, built)
    return built


def _error_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(body.get("detail"), list | str):
            return str(body["detail"])[:500]
    return str(exc.message)[:500]


def _is_context_error(exc: openai.APIStatusError) -> bool:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("code") == "context_length_exceeded":
            return True
    return bool(_CONTEXT_PATTERNS.search(_error_message(exc)))


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value > 0:
        return value
    if isinstance(value, float) and value.is_integer() and value > 0:
        return int(value)
    return None


def _context_from_models(payload: Any, model: str) -> int | None:
    entries = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(entries, list):
        return None
    entries = [e for e in entries if isinstance(e, dict)]
    chosen = [e for e in entries if e.get("id") == model] or (entries if len(entries) == 1 else [])
    for entry in chosen:
        for holder in (entry, entry.get("meta") if isinstance(entry.get("meta"), dict) else {}):
            for name in _MODEL_CONTEXT_FIELDS:
                found = _positive_int(holder.get(name))
                if found:
                    return found
    return None


def _context_from_props(payload: Any) -> int | None:
    if not isinstance(payload, dict):
        return None
    settings = payload.get("default_generation_settings")
    if isinstance(settings, dict) and _positive_int(settings.get("n_ctx")):
        return _positive_int(settings.get("n_ctx"))
    return _positive_int(payload.get("n_ctx"))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Follows no redirect: urllib would resend the Authorization header to wherever the
    server points, also to a host the operator never allowed."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_PROBE_OPENER = urllib.request.build_opener(_NoRedirect)


def props_url(base_url: str) -> str:
    """The URL of llama.cpp's ``/props`` for an OpenAI-compatible ``base_url``: the base URL
    without a trailing slash and without its ``/v1``, then ``/props``, e.g.
    ``http://gpu1:8080/v1`` -> ``http://gpu1:8080/props``."""
    return f"{base_url.rstrip('/').removesuffix('/v1')}/props"


def server_context_window(
    *,
    base_url: str,
    model: str,
    api_key: str | None = None,
    timeout: float = PROBE_TIMEOUT_S,
    props_allowed: Callable[[str], bool] | None = None,
) -> int | None:
    """The context window (tokens) an OpenAI-compatible server says it serves ``model`` with,
    or None when it does not say.

    Asks ``GET {base_url}/models`` (the entry whose id is ``model``, or the only entry) for
    vLLM's ``max_model_len`` or the other fields of :data:`_MODEL_CONTEXT_FIELDS`, then
    ``GET {base_url without /v1}/props`` (:func:`props_url`) for llama.cpp's
    ``default_generation_settings.n_ctx``, but only when ``props_allowed(url)`` is true: that
    URL lies outside ``base_url`` (``/props`` beside ``/v1``), and an operator who listed only
    ``http://host:port/v1`` must see no request, and no key, go anywhere else. The key goes
    with it when it is asked, as llama.cpp's server wants it there when started with
    ``--api-key``. ``props_allowed`` None: ``/props`` is never asked.
    Any failure (connection, HTTP error, a redirect, not JSON) counts as "does not say"; nothing
    is raised.
    Servers checked: vLLM (``max_model_len``), llama.cpp's C++ server (``/props``);
    llama-cpp-python's server (the test server) reports neither.
    """
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    probes = [(f"{base_url.rstrip('/')}/models", "models")]
    if props_allowed is not None and props_allowed(props_url(base_url)):
        probes.append((props_url(base_url), "props"))
    for url, kind in probes:
        try:
            request = urllib.request.Request(url, headers=headers)
            with _PROBE_OPENER.open(request, timeout=timeout) as response:
                payload = json.loads(response.read(1_000_000))
        except (OSError, ValueError) as exc:  # URLError, HTTPError, timeouts, not JSON
            log.debug("context probe %s: %s", url, type(exc).__name__)
            continue
        if kind == "models":
            found = _context_from_models(payload, model)
        else:
            found = _context_from_props(payload)
        if found:
            return found
    return None


def refusal_adaptation(message: str, sent: dict[str, Any]) -> tuple[bool, bool]:
    """``(use max_completion_tokens, leave temperature out)``: what a request ``sent`` (its
    JSON body or keyword arguments) must change after a 400 saying ``message``, as OpenAI's
    reasoning models word it ("Unsupported parameter: 'max_tokens' ... Use
    'max_completion_tokens' instead."; "Unsupported value: 'temperature' does not support 0
    ..."). ``(False, False)`` for any other refusal (a too-large budget, a bad format)."""
    lowered = message.lower()
    switch = "max_tokens" in sent and (
        "unsupported parameter: 'max_tokens'" in lowered or "use 'max_completion_tokens'" in lowered
    )
    omit = (
        "temperature" in sent
        and "temperature" in lowered
        and ("unsupported value" in lowered or "does not support" in lowered)
    )
    return switch, omit


def _text_field(message: Any, name: str) -> str:
    """A text field of a reply message, declared by the SDK or not (a server's own field
    arrives in ``model_extra``); "" when absent, null or not text."""
    if message is None:
        return ""
    value = getattr(message, name, None)
    if value is None:
        value = (getattr(message, "model_extra", None) or {}).get(name)
    return value if isinstance(value, str) else ""


def _count(value: Any) -> int:
    """A token count a server reported, or 0 (absent, null, negative or not a number)."""
    return _positive_int(value) or 0


def server_maximum_context(message: str) -> int | None:
    """The context size a server's rejection states ("maximum context length is N tokens", as
    OpenAI, vLLM and llama-cpp-python's server word it), or None."""
    match = _SERVER_MAXIMUM.search(message)
    return int(match.group(1)) if match else None


class OpenAIClient:
    """An OpenAI-compatible chat endpoint (implements :class:`debates.llm.base.LLMClient`).

    ``base_url`` None means OpenAI itself. ``timeout`` is seconds per request.
    ``context_window`` is the model's context in tokens; None asks the server once, on first
    use of :attr:`context_window` (:func:`server_context_window`; never for OpenAI itself), and
    falls back to :data:`DEFAULT_CONTEXT_WINDOW`. A rejection stating a smaller maximum lowers
    it. ``tokenizer`` maps text to a token count; without one :func:`estimate_tokens` is used.
    ``props_allowed`` decides whether that probe may ask llama.cpp's ``/props``, which lies
    outside ``base_url`` (:func:`server_context_window`); None, it is never asked.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        context_window: int | None = None,
        tokenizer: Callable[[str], int] | None = None,
        reasoning_effort: str | None = None,
        extra_body: dict[str, Any] | None = None,
        props_allowed: Callable[[str], bool] | None = None,
    ) -> None:
        self.model = model
        self._props_allowed = props_allowed
        self.reasoning_effort = reasoning_effort
        self.extra_body = dict(extra_body or {})
        # What this server refused once and is asked differently ever after (see the module
        # docstring): the name of the budget field, and whether temperature is left out.
        # OpenAI itself takes max_completion_tokens for every chat model (its reasoning
        # models refuse max_tokens, and a batch is never told); other servers max_tokens.
        self._budget_field = "max_completion_tokens" if base_url is None else "max_tokens"
        self._omit_temperature = False
        # Whether logprobs are asked for: until the server refuses them once.
        self._ask_logprobs = True
        self.configured_context_window = context_window
        self._context_window: int | None = context_window
        self.context_source = "configured" if context_window else ""
        self.timeout = timeout
        self.base_url = base_url
        self.api_key_env = api_key_env
        self._tokenizer = tokenizer
        key = api_key or os.environ.get(api_key_env) or None
        self._key_missing = key is None
        # The endpoint is always named: without one the SDK would read OPENAI_BASE_URL from
        # the worker's environment and send a job the allow-list checked as the OpenAI API
        # (debates.services.backends.agent_config_permit) somewhere else.
        self._sdk = openai.OpenAI(
            base_url=base_url or DEFAULT_ENDPOINT,
            api_key=key or _NO_KEY,
            timeout=timeout,
            max_retries=0,
        )
        self._schema_mode = _SCHEMA_MODES[0]
        self._mode_lock = threading.Lock()

    @property
    def context_window(self) -> int:
        """Tokens of the model's context: configured, else reported by the server (asked once),
        else :data:`DEFAULT_CONTEXT_WINDOW`; lowered by a rejection stating a smaller one."""
        if self._context_window is None:
            with self._mode_lock:
                if self._context_window is None:
                    found = None
                    if self.base_url is not None:
                        found = server_context_window(
                            base_url=self.base_url,
                            model=self.model,
                            api_key=self._sdk.api_key if not self._key_missing else None,
                            timeout=min(self.timeout, PROBE_TIMEOUT_S),
                            props_allowed=self._props_allowed,
                        )
                    self.context_source = "server" if found else "default"
                    self._context_window = found or DEFAULT_CONTEXT_WINDOW
        return self._context_window

    def __repr__(self) -> str:  # never the key
        return f"OpenAIClient(model={self.model!r}, base_url={self.base_url!r})"

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text``: the given tokenizer's count, else :func:`estimate_tokens`."""
        if self._tokenizer is not None:
            return self._tokenizer(text)
        return _estimate_recent(text)

    @staticmethod
    def _response_format(mode: str, params: GenerationParams) -> dict[str, Any]:
        return response_format(mode, params.json_schema)

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        """Complete ``messages``; ``latency_ms`` is the wall time of the successful request.

        Raises TransientLLMError (timeout, connection error, HTTP 408/409/425/429/5xx, with
        ``retry_after`` from the response headers), ContextTooLongError (the server says the
        prompt does not fit) or PermanentLLMError (auth, bad request, unknown model, ...).
        """
        mode = self._schema_mode
        while True:
            kwargs = self._request(messages, params)
            if params.json_schema is not None:
                kwargs["response_format"] = self._response_format(mode, params)
            start = time.perf_counter()
            try:
                response = self._post(kwargs)
            except openai.APIStatusError as exc:
                if self._logprobs_refusal(exc, kwargs) or self._adapt_to_refusal(exc, kwargs):
                    continue
                fallback = self._next_mode(mode, exc) if params.json_schema is not None else None
                if fallback is None:
                    if params.json_schema is not None and _is_context_error(exc):
                        # The server read this response format before it counted the prompt.
                        with self._mode_lock:
                            self._schema_mode = mode
                    raise self._map_status_error(exc) from exc
                mode = fallback
                continue
            except openai.APITimeoutError as exc:
                raise TransientLLMError(f"{self._where()}: request timed out") from exc
            except openai.APIConnectionError as exc:
                raise TransientLLMError(f"{self._where()}: connection failed: {exc}") from exc
            latency_ms = (time.perf_counter() - start) * 1000.0
            break
        if params.json_schema is not None and mode != self._schema_mode:
            with self._mode_lock:
                self._schema_mode = mode
        if not response.choices:
            raise TransientLLMError(f"{self._where()}: response without choices")
        return self._result(response, messages, latency_ms)

    def _post(self, kwargs: dict[str, Any]) -> ChatCompletion:
        """POST one chat request (:meth:`_request`'s keyword arguments) as
        ``chat.completions.create(**kwargs)`` would, through the SDK's public low-level
        ``post``: the same path, JSON body, headers (bearer auth only, as ``create`` asks)
        and parsed ``ChatCompletion``, without ``create``'s per-call ``maybe_transform`` of
        the body, which only copies plain dicts like these (~0.45 ms of CPU a call at 64 in
        flight, ``bench/llm_throughput_bench.py --profile``). ``extra_body`` is merged into
        the body by the SDK, as for ``create``."""
        body = dict(kwargs)
        options: openai.RequestOptions = {"security": {"bearer_auth": True}}
        extra = body.pop("extra_body", None)
        if extra is not None:
            options["extra_json"] = extra
        return self._sdk.post(
            "/chat/completions", cast_to=ChatCompletion, body=body, options=options, stream=False
        )

    def _request(self, messages: list[ChatMessage], params: GenerationParams) -> dict[str, Any]:
        """The keyword arguments of one chat request (without ``response_format``)."""
        kwargs: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        kwargs[self._budget_field] = params.max_tokens
        if not self._omit_temperature:
            kwargs["temperature"] = params.temperature
        if params.seed is not None:
            kwargs["seed"] = params.seed
        if self.reasoning_effort:
            kwargs["reasoning_effort"] = self.reasoning_effort
        if self._ask_logprobs:
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = TOP_LOGPROBS
        extra = {**self.extra_body, **params.extra}
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    def request_body(self, messages: list[ChatMessage], params: GenerationParams) -> dict[str, Any]:
        """The JSON body the direct path would POST to ``/v1/chat/completions`` for these
        messages (``extra_body`` merged in, the structured-output mode this client uses):
        what a batch file's request line carries (:mod:`debates.batch`)."""
        kwargs = self._request(messages, params)
        extra = kwargs.pop("extra_body", {})
        if params.json_schema is not None:
            kwargs["response_format"] = self._response_format(self._schema_mode, params)
        return {**kwargs, **extra}

    def result_from_body(
        self, body: dict[str, Any], messages: list[ChatMessage], latency_ms: float = 0.0
    ) -> LLMResult:
        """The LLMResult of a chat completion given as its JSON body (a batch output line's
        ``response.body``), read exactly as a direct reply is. Raises ValueError for a body
        that is not a chat completion, or has no choice."""
        try:
            response = openai.types.chat.ChatCompletion.model_validate(body)
        except Exception as exc:  # pydantic's ValidationError and friends
            raise ValueError(f"not a chat completion: {exc}") from None
        if not response.choices:
            raise ValueError("a chat completion without choices")
        return self._result(response, messages, latency_ms)

    def _logprobs_refusal(self, exc: openai.APIStatusError, sent: dict[str, Any]) -> bool:
        """True when ``exc`` refuses the logprobs the request ``sent`` asked for: this client
        stops asking for them (logged once) and the request is sent again without them."""
        if _is_context_error(exc):
            return False
        message = _error_message(exc)
        if not logprobs_refused(status=exc.status_code, message=message, sent=sent):
            return False
        with self._mode_lock:
            was_asking, self._ask_logprobs = self._ask_logprobs, False
        if was_asking:
            log.warning(
                "%s refuses logprobs (%s): asking without them from now on; its turns get no "
                "label probability",
                self._where(),
                message[:200],
            )
        return True

    def _adapt_to_refusal(self, exc: openai.APIStatusError, sent: dict[str, Any]) -> bool:
        """True when ``exc`` is a reasoning model's refusal of the ``max_tokens`` or the
        temperature the request ``sent`` carried, now adapted to (send it again). Decided from
        what this request sent, not from the client's current setting: of 16 requests in
        flight, each refused one is sent again, none is mistaken for a response-format
        refusal. A context-length error is never one."""
        if exc.status_code != 400 or _is_context_error(exc):
            return False
        switch, omit = refusal_adaptation(_error_message(exc), sent)
        if switch:
            with self._mode_lock:
                self._budget_field = "max_completion_tokens"
        if omit:
            if not self._omit_temperature:
                log.warning(
                    "%s refuses a temperature: asking with the server's default from now on",
                    self._where(),
                )
            with self._mode_lock:
                self._omit_temperature = True
        return switch or omit

    def _result(self, response: Any, messages: list[ChatMessage], latency_ms: float) -> LLMResult:
        """The LLMResult of a chat completion: content, reasoning field, usage details."""
        choice = response.choices[0]
        message = choice.message
        text = _text_field(message, "content")
        reasoning = _text_field(message, "reasoning") or _text_field(message, "reasoning_content")
        usage = response.usage
        completion = getattr(usage, "completion_tokens_details", None)
        prompt = getattr(usage, "prompt_tokens_details", None)
        return LLMResult(
            text=text,
            model=response.model or self.model,
            prompt_tokens=usage.prompt_tokens
            if usage and usage.prompt_tokens is not None
            else sum(self.count_tokens(m["content"]) for m in messages),
            completion_tokens=usage.completion_tokens
            if usage and usage.completion_tokens is not None
            else self.count_tokens(text + reasoning),
            latency_ms=latency_ms,
            finish_reason=choice.finish_reason or "stop",
            reasoning=reasoning,
            reasoning_tokens=_count(getattr(completion, "reasoning_tokens", None)),
            cached_tokens=_count(getattr(prompt, "cached_tokens", None)),
            logprobs=choice_logprobs(choice),
        )

    def _next_mode(self, mode: str, exc: openai.APIStatusError) -> str | None:
        # A rejected request (400/422) not about length may be the response format; so may a
        # 500 naming response_format (llama-cpp-python's server wraps its validation error so).
        rejected = exc.status_code in (400, 422) or (
            exc.status_code == 500 and "response_format" in _error_message(exc)
        )
        if not rejected or _is_context_error(exc):
            return None
        index = _SCHEMA_MODES.index(mode)
        return _SCHEMA_MODES[index + 1] if index + 1 < len(_SCHEMA_MODES) else None

    def _where(self) -> str:
        return f"{self.model} at {self.base_url or 'api.openai.com'}"

    def _map_status_error(self, exc: openai.APIStatusError) -> Exception:
        status = exc.status_code
        message = f"{self._where()}: HTTP {status}: {_error_message(exc)}"
        if status >= 500 and _BODY_VALIDATION.search(_error_message(exc)):
            # llama-cpp-python's server answers a malformed request with 500; resending the
            # same body cannot succeed.
            return PermanentLLMError(message)
        if status in _TRANSIENT_STATUS or status >= 500:
            return TransientLLMError(message, retry_after=parse_retry_after(exc.response.headers))
        if status == 401 and self._key_missing:
            message += f" (no API key: set ${self.api_key_env} or enter one in the job form)"
        if status in (400, 413, 422) and _is_context_error(exc):
            return self._context_error(message, server_maximum_context(_error_message(exc)))
        return PermanentLLMError(message)

    def _context_error(self, message: str, maximum: int | None) -> ContextTooLongError:
        """The error for a prompt the server refused as too long; a stated maximum below the
        window the prompt was fitted to becomes this client's window (the caller may fit the
        prompt again), and the message says how to configure it."""
        fitted = self.context_window
        if maximum is not None and maximum < fitted:
            with self._mode_lock:
                self._context_window = min(maximum, self._context_window or maximum)
                self.context_source = "server rejection"
            hint = (
                f" (the prompt was fitted to a context window of {fitted} tokens; the server's "
                f"is {maximum}: set --context-window {maximum} or context_window in the backend "
                "config)"
            )
        else:
            hint = (
                f" (the prompt was fitted to a context window of {fitted} tokens: set "
                "--context-window, or context_window in the backend config, to the server's "
                "context)"
            )
        return ContextTooLongError(message + hint, context_window=maximum)
