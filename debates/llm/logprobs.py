"""Token log-probabilities as servers send them, read into :class:`~debates.llm.base.TokenLogprob`.

Every backend asks for ``logprobs=True, top_logprobs=TOP_LOGPROBS``
(:data:`debates.llm.base.TOP_LOGPROBS`) and reads the reply's
``choices[0].logprobs.content``: a list of ``{token, logprob, bytes, top_logprobs: [{token,
logprob, bytes}, ...]}``, the shape of OpenAI's chat completions API
(https://platform.openai.com/docs/api-reference/chat/object), which vLLM, SGLang, llama.cpp's
server and llama-cpp-python's ``create_chat_completion`` follow. The entries arrive as the
openai SDK's objects or as plain dicts (llama-cpp-python); both are read.

Reading never fails a call: a missing, null or malformed ``logprobs`` gives None, and an entry
without a usable token text or finite logprob is dropped with its alternatives.
"""

from __future__ import annotations

import math
from typing import Any

from debates.llm.base import TokenLogprob


def _field(entry: Any, name: str) -> Any:
    """``entry[name]`` of a dict, else the attribute (an SDK object), else None."""
    if isinstance(entry, dict):
        return entry.get(name)
    return getattr(entry, name, None)


def _logprob(value: Any) -> float | None:
    """A logprob as a float <= 0, or None (absent, not a number, NaN, positive). -inf (a
    token the server calls impossible) is kept: its probability is 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    if math.isnan(number) or number > 0.0:
        return None
    return number


def _entry(entry: Any) -> TokenLogprob | None:
    token, logprob = _field(entry, "token"), _logprob(_field(entry, "logprob"))
    if not isinstance(token, str) or logprob is None:
        return None
    top: list[tuple[str, float]] = []
    for alternative in _field(entry, "top_logprobs") or ():
        text, value = _field(alternative, "token"), _logprob(_field(alternative, "logprob"))
        if isinstance(text, str) and value is not None:
            top.append((text, value))
    top.sort(key=lambda item: -item[1])
    return TokenLogprob(token=token, logprob=logprob, top=tuple(top))


def choice_logprobs(choice: Any) -> tuple[TokenLogprob, ...] | None:
    """The token logprobs of one chat choice (an SDK object or a dict), in generation order;
    None when the server sent none (no ``logprobs``, null, no ``content`` list, or not one
    usable entry). Never raises."""
    try:
        holder = _field(choice, "logprobs")
        content = _field(holder, "content") if holder is not None else None
        if not isinstance(content, list | tuple):
            return None
        entries = tuple(item for item in (_entry(e) for e in content) if item is not None)
    except Exception:  # a server's odd shape must never fail the call that carried it
        return None
    return entries or None


def logprobs_refused(*, status: int, message: str, sent: dict[str, Any]) -> bool:
    """True when a server's error (HTTP ``status``, its ``message``) refuses the ``logprobs``
    or ``top_logprobs`` the request ``sent`` carried: a 400 or 422 naming them (OpenAI's
    reasoning models: "logprobs is not supported with this model"; a server capping
    ``top_logprobs``), or a 500 naming them (llama-cpp-python's server wraps its validation
    errors so). The caller asks again without them."""
    if "logprobs" not in sent:
        return False
    return status in (400, 422, 500) and "logprobs" in message.lower()
