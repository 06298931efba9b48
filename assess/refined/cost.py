"""What every final label cost, so a job's owner can compare LLM and human labelling: LLM
calls, tokens and money, human seconds and money, and the cost per final label by source.
Pure: no database.

Prices come from two settings (or environment variables of the same name):

- ``DREAM_LLM_PRICES``: JSON mapping ``"backend:model"`` (or ``"backend"`` for every model of
  a backend) to money per 1,000 prompt and completion tokens, and optionally per 1,000
  cached prompt tokens (``cached_prompt``: input the server served from its prefix cache,
  billed at a fraction by OpenAI; absent: the prompt price), e.g.
  ``{"openai:gpt-4o-mini": {"prompt": 0.00015, "cached_prompt": 0.000075, "completion":
  0.0006}, "embedded": {"prompt": 0, "completion": 0}}``. A model with no price has unknown
  LLM money (None), never 0. Reasoning tokens are part of the completion tokens (OpenAI,
  vLLM and SGLang count them there) and are priced as such.
- ``DREAM_HUMAN_PRICE_PER_HOUR``: money per hour of human time on task (the seconds the
  judging page measured, summed over live judgments); unset: unknown.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from debates.llm.config import backend_and_model

#: The sources a final label can have (assess.refined.labels), in display order.
SOURCES = ("consensus", "human", "adjudicated")


@dataclass(frozen=True, slots=True)
class Price:
    """Money per 1,000 prompt, per 1,000 completion and (None: as prompt) per 1,000 cached
    prompt tokens."""

    prompt: float
    completion: float
    cached_prompt: float | None = None

    def of(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float:
        """Money for the tokens: the uncached prompt tokens at the prompt price, the
        ``cached_tokens`` (part of ``prompt_tokens``) at the cached price, the completion
        tokens at theirs; each price per 1,000 tokens."""
        cached = min(max(cached_tokens, 0), prompt_tokens)
        cached_price = self.prompt if self.cached_prompt is None else self.cached_prompt
        return (
            (prompt_tokens - cached) / 1000 * self.prompt
            + cached / 1000 * cached_price
            + completion_tokens / 1000 * self.completion
        )


def _setting(name: str) -> Any:
    value = getattr(settings, name, None)
    return os.environ.get(name, "") if value in (None, "") else value


def parse_llm_prices(value: str | dict | None) -> dict[str, Price]:
    """``DREAM_LLM_PRICES`` as ``{"backend:model" or "backend": Price}``. Raises ValueError
    naming the key for a malformed entry (not JSON, a missing or negative price)."""
    if not value:
        return {}
    raw = json.loads(value) if isinstance(value, str) else value
    if not isinstance(raw, dict):
        raise ValueError("DREAM_LLM_PRICES must be a JSON object of backend:model -> prices")
    out = {}
    for key, entry in raw.items():
        try:
            cached = entry.get("cached_prompt")
            price = Price(
                float(entry["prompt"]),
                float(entry["completion"]),
                None if cached is None else float(cached),
            )
        except (AttributeError, KeyError, TypeError, ValueError):
            raise ValueError(
                f"DREAM_LLM_PRICES[{key!r}] needs numbers 'prompt' and 'completion', and "
                "optionally 'cached_prompt' (money per 1,000 tokens)"
            ) from None
        numbers = [price.prompt, price.completion, price.cached_prompt or 0.0]
        if min(numbers) < 0 or not math.isfinite(sum(numbers)):
            raise ValueError(f"DREAM_LLM_PRICES[{key!r}]: prices must be finite and >= 0")
        out[str(key)] = price
    return out


def llm_prices() -> dict[str, Price]:
    """The configured LLM prices (:func:`parse_llm_prices` of ``DREAM_LLM_PRICES``)."""
    return parse_llm_prices(_setting("DREAM_LLM_PRICES"))


def human_price_per_hour() -> float | None:
    """``DREAM_HUMAN_PRICE_PER_HOUR`` as a number, or None when unset or not a number >= 0."""
    try:
        value = float(_setting("DREAM_HUMAN_PRICE_PER_HOUR"))
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value >= 0 else None


def price_for(config: dict[str, Any] | None, prices: dict[str, Price]) -> Price | None:
    """The price of an agent's stored backend config: ``"backend:model"``, else
    ``"backend"``; None when neither is priced or the config cannot be read."""
    backend, model = backend_and_model(config)
    return prices.get(f"{backend}:{model}") or prices.get(backend)


@dataclass(frozen=True, slots=True)
class LabelCost:
    """What one final label cost: its ``source``, the LLM calls and tokens of its debate, the
    LLM money (None: a price is unknown) and the human seconds on task behind it;
    ``cached_tokens`` and ``reasoning_tokens`` are parts of the prompt and completion
    tokens."""

    source: str
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_money: float | None = 0.0
    human_seconds: float = 0.0
    cached_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass(frozen=True, slots=True)
class SourceCost:
    """Sums over the final labels of one source (or all: source "all"). Money is None when a
    price is unknown; ``per_label`` is the total money over ``labels`` (None if unknown or
    no label)."""

    source: str
    labels: int
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    llm_money: float | None
    human_seconds: float
    human_money: float | None
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def money(self) -> float | None:
        if self.llm_money is None or self.human_money is None:
            return None
        return self.llm_money + self.human_money

    @property
    def per_label(self) -> float | None:
        money = self.money
        return money / self.labels if money is not None and self.labels else None


def cost_by_source(
    labels: Iterable[LabelCost], *, human_per_hour: float | None
) -> dict[str, SourceCost]:
    """Sum ``labels`` per source (consensus, human, adjudicated) and over all ("all").

    Human money is seconds / 3600 * ``human_per_hour`` (None when the price is unknown and
    any human second was spent; 0 when none was). A human or adjudicated label also
    carries the LLM cost of the debate before it: every final label pays for its debate.
    """
    rows: dict[str, list[LabelCost]] = {s: [] for s in (*SOURCES, "all")}
    for label in labels:
        rows.setdefault(label.source, []).append(label)
        rows["all"].append(label)
    out = {}
    for source, group in rows.items():
        seconds = sum(g.human_seconds for g in group)
        llm = [g.llm_money for g in group]
        if seconds == 0:
            human_money: float | None = 0.0
        else:
            human_money = seconds / 3600 * human_per_hour if human_per_hour is not None else None
        out[source] = SourceCost(
            source=source,
            labels=len(group),
            llm_calls=sum(g.llm_calls for g in group),
            prompt_tokens=sum(g.prompt_tokens for g in group),
            completion_tokens=sum(g.completion_tokens for g in group),
            llm_money=None if any(m is None for m in llm) else sum(m or 0.0 for m in llm),
            human_seconds=seconds,
            human_money=human_money,
            cached_tokens=sum(g.cached_tokens for g in group),
            reasoning_tokens=sum(g.reasoning_tokens for g in group),
        )
    return out


def _money(value: float | None) -> str:
    return "price not set" if value is None else f"{value:.4f}"


def _parts(c: SourceCost) -> str:
    # The cached and reasoning parts, when a server reported any.
    parts = [f"{c.cached_tokens:,} prompt cached"] if c.cached_tokens else []
    parts += [f"{c.reasoning_tokens:,} completion reasoning"] if c.reasoning_tokens else []
    return f"; {', '.join(parts)}" if parts else ""


def format_costs(costs: dict[str, SourceCost]) -> list[str]:
    """Plain-text lines: per source and in all, labels, LLM calls, tokens and money, human
    seconds and money, and the cost per final label."""
    lines = []
    for source in (*SOURCES, "all"):
        c = costs.get(source)
        if c is None or (not c.labels and source != "all"):
            continue
        lines.append(
            f"  {source}: {c.labels:,} labels, {c.llm_calls:,} LLM calls, "
            f"{c.prompt_tokens + c.completion_tokens:,} tokens ({c.prompt_tokens:,} prompt + "
            f"{c.completion_tokens:,} completion{_parts(c)}), LLM money "
            f"{_money(c.llm_money)}, human {c.human_seconds:,.0f} s, human money "
            f"{_money(c.human_money)}; per final label {_money(c.per_label)}"
        )
    return lines


def cost_rows(costs: dict[str, SourceCost]) -> list[SourceCost]:
    """The rows a page shows: each source with labels, then "all"."""
    return [costs[s] for s in (*SOURCES, "all") if s in costs and (costs[s].labels or s == "all")]
