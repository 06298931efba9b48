"""LLM prices: what a model's tokens cost, for the cost of every final label
(:mod:`assess.refined.cost`, which re-exports these names) and the job form's estimate of a job
before it starts (:mod:`debates.estimate`). :class:`Price`, :func:`parse_llm_prices` and
:func:`price_for` are pure; :func:`llm_prices` reads the setting.

``DREAM_LLM_PRICES`` (a Django setting, or the environment variable of the same name) is a JSON
object mapping ``"backend:model"`` (or ``"backend"`` for every model of a backend) to money per
1,000 tokens:

- ``prompt`` and ``completion`` (required);
- ``cached_prompt`` (optional): prompt tokens the server served from its prefix cache
  (``usage.prompt_tokens_details.cached_tokens``), billed at a fraction by OpenAI; absent: the
  prompt price;
- ``batch_prompt`` and ``batch_completion`` (optional): tokens of requests sent through a Batch
  API (a batch-mode job, :attr:`debates.models.DebateJob.batch`); absent: the normal prices.
  No discount is assumed: OpenAI's Batch API bills half the normal price, other providers and
  a local ``vllm run-batch`` bill what they bill, so the prices say it.

E.g. ``{"openai:gpt-4o-mini": {"prompt": 0.00015, "cached_prompt": 0.000075, "completion":
0.0006, "batch_prompt": 0.000075, "batch_completion": 0.0003}, "embedded": {"prompt": 0,
"completion": 0}}``. A model with no price has unknown money (None), never 0. Reasoning tokens
are part of the completion tokens (OpenAI, vLLM and SGLang count them there) and are priced as
such.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings

from debates.llm.config import AgentConfig

PRICES_SETTING = "DREAM_LLM_PRICES"
_OPTIONAL = ("cached_prompt", "batch_prompt", "batch_completion")


@dataclass(frozen=True, slots=True)
class Price:
    """Money per 1,000 tokens of one model: ``prompt``, ``completion``, and optionally
    ``cached_prompt`` (None: as ``prompt``), ``batch_prompt`` and ``batch_completion`` (None:
    as ``prompt`` and ``completion``)."""

    prompt: float
    completion: float
    cached_prompt: float | None = None
    batch_prompt: float | None = None
    batch_completion: float | None = None

    @property
    def has_batch_prices(self) -> bool:
        """Whether a batch price was given (else a batch costs what direct calls cost)."""
        return self.batch_prompt is not None or self.batch_completion is not None

    def of(
        self,
        prompt_tokens: float,
        completion_tokens: float,
        cached_tokens: float = 0,
        *,
        batch: bool = False,
    ) -> float:
        """Money for the tokens (counted, or estimated and so possibly fractional) of calls
        made directly or, with ``batch``, through a Batch API.

        Direct: the uncached prompt tokens at ``prompt``, the ``cached_tokens`` (part of
        ``prompt_tokens``, clamped to 0..prompt_tokens) at ``cached_prompt`` (absent:
        ``prompt``), the completion tokens at ``completion``. Batch: the uncached prompt tokens
        at ``batch_prompt`` (absent: ``prompt``), the cached ones at ``cached_prompt`` (absent:
        ``batch_prompt``, then ``prompt``), the completion tokens at ``batch_completion``
        (absent: ``completion``). Cached tokens in a batch keep the one cached price: the
        simple rule; a provider that discounts them further in batches (OpenAI lists a batch
        cached-input price for some models) is priced high by at most that discount.
        """
        cached = min(max(cached_tokens, 0), prompt_tokens)
        prompt, completion = self.prompt, self.completion
        if batch:
            prompt = self.prompt if self.batch_prompt is None else self.batch_prompt
            completion = self.completion if self.batch_completion is None else self.batch_completion
        cached_price = prompt if self.cached_prompt is None else self.cached_prompt
        return (
            (prompt_tokens - cached) / 1000 * prompt
            + cached / 1000 * cached_price
            + completion_tokens / 1000 * completion
        )


def setting_or_env(name: str) -> Any:
    """A Django setting, or the environment variable of the same name when it is unset."""
    value = getattr(settings, name, None)
    return os.environ.get(name, "") if value in (None, "") else value


def _price(entry: Any) -> Price:
    # Raises AttributeError, KeyError, TypeError or ValueError for a malformed entry.
    optional = [entry.get(name) for name in _OPTIONAL]
    cached, batch_prompt, batch_completion = (None if v is None else float(v) for v in optional)
    return Price(
        float(entry["prompt"]), float(entry["completion"]), cached, batch_prompt, batch_completion
    )


def parse_llm_prices(value: str | dict[str, Any] | None) -> dict[str, Price]:
    """``DREAM_LLM_PRICES`` (JSON text or its parsed object) as ``{"backend:model" or
    "backend": Price}``; empty for an empty value. Raises ValueError naming the key for a
    malformed entry (not JSON, a missing price, a price that is not a finite number >= 0)."""
    if not value:
        return {}
    raw = json.loads(value) if isinstance(value, str) else value
    if not isinstance(raw, dict):
        raise ValueError("DREAM_LLM_PRICES must be a JSON object of backend:model -> prices")
    out = {}
    for key, entry in raw.items():
        try:
            price = _price(entry)
        except (AttributeError, KeyError, TypeError, ValueError):
            raise ValueError(
                f"DREAM_LLM_PRICES[{key!r}] needs numbers 'prompt' and 'completion', and "
                "optionally 'cached_prompt', 'batch_prompt' and 'batch_completion' (money per "
                "1,000 tokens)"
            ) from None
        numbers = [price.prompt, price.completion]
        numbers += [getattr(price, name) or 0.0 for name in _OPTIONAL]
        if min(numbers) < 0 or not math.isfinite(sum(numbers)):
            raise ValueError(f"DREAM_LLM_PRICES[{key!r}]: prices must be finite and >= 0")
        out[str(key)] = price
    return out


def llm_prices() -> dict[str, Price]:
    """The configured LLM prices (:func:`parse_llm_prices` of ``DREAM_LLM_PRICES``, read at
    each call so a changed setting counts at once). Raises ValueError as that does."""
    return parse_llm_prices(setting_or_env(PRICES_SETTING))


def prices_stamp(prices: dict[str, Price]) -> str:
    """12 hex digits naming ``prices`` (the sha256 of their canonical JSON): what a file that
    states money (the labels JSONL's ``llm_money``) depends on beyond its rows, so a changed
    price makes a stored file out of date."""
    canonical = json.dumps(
        {key: asdict(price) for key, price in prices.items()}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


def price_for(config: AgentConfig, prices: dict[str, Price]) -> Price | None:
    """The price of an agent's backend config: ``"backend:model"``, else ``"backend"``; None
    when neither is priced. A stored config is parsed by its reader
    (:meth:`AgentConfig.stored_or_named`, which keeps naming one this code no longer
    accepts)."""
    return prices.get(f"{config.backend}:{config.model}") or prices.get(config.backend)
