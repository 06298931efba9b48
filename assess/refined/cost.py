"""What every final label cost, so a job's owner can compare LLM and human labelling: LLM
calls, tokens and money, human seconds and money, and the cost per final label by source.
Pure: no database.

Prices come from two settings (or environment variables of the same name):

- ``DREAM_LLM_PRICES``: money per 1,000 prompt, cached prompt, completion and (for batch-mode
  jobs) batch prompt and batch completion tokens, per ``"backend:model"`` or ``"backend"``.
  Parsed and applied by :mod:`debates.prices` (the job form's estimate needs them too, and
  debates cannot import assess); :class:`Price`, :func:`parse_llm_prices`,
  :func:`llm_prices` and :func:`price_for` are re-exported here for this module's callers.
  The debates of a batch-mode job are priced at the batch prices (:meth:`Price.of` with
  ``batch=True``). A model with no price has unknown LLM money (None), never 0.
- ``DREAM_HUMAN_PRICE_PER_HOUR``: money per hour of human time on task, summed over live
  judgments: the active seconds the judging page measured (page visible, input within the
  idle cut-off), or a judgment's wall seconds when its active time was not measured; unset:
  unknown.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from assess.models.simulated import simulated_tag
from debates.prices import Price, llm_prices, parse_llm_prices, price_for, setting_or_env

__all__ = [
    "SIMULATED_COST_NOTE",
    "SOURCES",
    "LabelCost",
    "Price",
    "SourceCost",
    "cost_by_source",
    "cost_rows",
    "format_costs",
    "human_price_per_hour",
    "llm_prices",
    "parse_llm_prices",
    "price_for",
]

#: The sources a final label can have (assess.refined.labels), in display order.
SOURCES = ("consensus", "stage0", "human", "adjudicated")
#: Said beside the costs of labels of simulated debaters (the datasheet, the pipeline).
SIMULATED_COST_NOTE = (
    "The simulated backend's calls and tokens are counted as a model's would be, to plan a "
    "study's cost; it calls no model and spends nothing."
)


def human_price_per_hour() -> float | None:
    """``DREAM_HUMAN_PRICE_PER_HOUR`` as a number, or None when unset or not a number >= 0."""
    try:
        value = float(setting_or_env("DREAM_HUMAN_PRICE_PER_HOUR"))
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value >= 0 else None


@dataclass(frozen=True, slots=True)
class LabelCost:
    """What one final label cost: its ``source``, the LLM calls and tokens of its debate, the
    LLM money (None: a price is unknown) and the human active seconds behind it;
    ``cached_tokens`` and ``reasoning_tokens`` are parts of the prompt and completion
    tokens; ``batch``: its debate's job ran in batch mode, so the money is at batch prices."""

    source: str
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_money: float | None = 0.0
    human_seconds: float = 0.0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    batch: bool = False


@dataclass(frozen=True, slots=True)
class SourceCost:
    """Sums over the final labels of one source (or all: source "all"). Money is None when a
    price is unknown; ``per_label`` is the total money over ``labels`` (None if unknown or
    no label); ``batch_labels`` of the labels had their debate priced at batch prices."""

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
    batch_labels: int = 0

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
            batch_labels=sum(1 for g in group if g.batch),
        )
    return out


def _money(value: float | None) -> str:
    return "price not set" if value is None else f"{value:.4f}"


def _parts(c: SourceCost) -> str:
    # The cached and reasoning parts, when a server reported any.
    parts = [f"{c.cached_tokens:,} prompt cached"] if c.cached_tokens else []
    parts += [f"{c.reasoning_tokens:,} completion reasoning"] if c.reasoning_tokens else []
    return f"; {', '.join(parts)}" if parts else ""


def _batch(c: SourceCost) -> str:
    # Which LLM money is at batch prices, when any is: the reader must not compare it with
    # direct-call money unawares.
    if not c.batch_labels:
        return ""
    if c.batch_labels == c.labels:
        return " (batch prices)"
    return f" ({c.batch_labels:,} labels at batch prices)"


def format_costs(
    costs: dict[str, SourceCost], *, simulated: Mapping[str, int] | None = None
) -> list[str]:
    """Plain-text lines: per source and in all, labels, LLM calls, tokens and money (marked
    "batch prices" for labels of batch-mode jobs), human seconds and money, and the cost per
    final label. ``simulated``: how many of each source's labels are simulated (``{source:
    n}``), each line's count marked so (:func:`assess.models.simulated.simulated_tag`)."""
    simulated = dict(simulated or {})
    simulated["all"] = sum(n for source, n in simulated.items() if source in SOURCES)
    lines = []
    for source in (*SOURCES, "all"):
        c = costs.get(source)
        if c is None or (not c.labels and source != "all"):
            continue
        mark = simulated_tag(simulated.get(source, 0), c.labels)
        lines.append(
            f"  {source}: {c.labels:,} labels{mark}, {c.llm_calls:,} LLM calls, "
            f"{c.prompt_tokens + c.completion_tokens:,} tokens ({c.prompt_tokens:,} prompt + "
            f"{c.completion_tokens:,} completion{_parts(c)}), LLM money "
            f"{_money(c.llm_money)}{_batch(c)}, human {c.human_seconds:,.0f} s, human money "
            f"{_money(c.human_money)}; per final label {_money(c.per_label)}"
        )
    return lines


def cost_rows(costs: dict[str, SourceCost]) -> list[SourceCost]:
    """The rows a page shows: each source with labels, then "all"."""
    return [costs[s] for s in (*SOURCES, "all") if s in costs and (costs[s].labels or s == "all")]
