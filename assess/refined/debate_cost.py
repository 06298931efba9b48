"""The LLM money of debates at the configured prices (``DREAM_LLM_PRICES``,
:mod:`debates.prices`): one rule for the cost of every final label
(:func:`assess.refined.selectors.refined_label_costs`) and the labels JSONL's ``llm_money``
(:mod:`assess.refined.export_rows`), so the two always agree.

A debate is priced at its agents' prices: when both agents have the same price, its stored
tokens (``Debate.prompt_tokens``, ``cached_tokens``, ``completion_tokens``) at that price;
when they differ, each agent's tokens (summed over its turns) at its own price. A debate of a
batch-mode job (``DebateJob.batch``) is priced at the batch prices (:meth:`Price.of` with
``batch=True``). Money is None when an agent's price is unknown, never 0.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from django.db.models import Sum

from debates.llm.config import AgentConfig
from debates.models import Turn
from debates.prices import Price, price_for

#: Debates whose turns are summed per query (bounded: SQLite allows 32,766 parameters).
TURN_BATCH = 5000

#: ``{"A" or "B": (prompt, completion, cached tokens)}`` of one debate.
AgentTokens = dict[str, tuple[int, int, int]]


def agent_prices(
    agent_a: object, agent_b: object, prices: dict[str, Price]
) -> tuple[Price | None, Price | None]:
    """Agent A's and agent B's price from their stored backend configs (a dict, or its JSON
    text as raw SQL reads it; :func:`debates.prices.price_for`); None for a config that is
    not a JSON object."""

    def price(config: object) -> Price | None:
        if isinstance(config, str):
            try:
                config = json.loads(config)
            except ValueError:
                return None
        if not isinstance(config, dict):
            return None
        return price_for(AgentConfig.stored_or_named(config), prices)

    return price(agent_a), price(agent_b)


def needs_turns(pair: tuple[Price | None, Price | None]) -> bool:
    """Whether a debate with these agent prices is priced per agent from its turns: both known
    and different (one unknown makes the money None whatever the tokens)."""
    price_a, price_b = pair
    return price_a is not None and price_b is not None and price_a != price_b


def debate_money(
    *,
    prompt: int,
    completion: int,
    cached: int,
    pair: tuple[Price | None, Price | None],
    batch: bool,
    per_agent: AgentTokens | None = None,
) -> float | None:
    """The LLM money of one debate: its tokens (``prompt`` of which ``cached``, and
    ``completion``) at its agents' prices ``pair`` (A's, B's), at batch prices when
    ``batch``. With different prices ``per_agent`` holds each agent's tokens (missing: none
    spent). None when a price is unknown."""
    price_a, price_b = pair
    if price_a is None or price_b is None:
        return None
    if price_a == price_b:
        return price_a.of(prompt, completion, cached, batch=batch)
    tokens = per_agent or {}
    return sum(
        price.of(*tokens.get(agent, (0, 0, 0)), batch=batch)
        for agent, price in (("A", price_a), ("B", price_b))
    )


def turn_tokens(debate_ids: Iterable[int]) -> dict[int, AgentTokens]:
    """``{debate id: {agent: (prompt, completion, cached tokens)}}`` summed over the stored
    turns of each debate, read :data:`TURN_BATCH` debates a query."""
    ids = sorted(set(debate_ids))
    out: dict[int, AgentTokens] = {}
    for start in range(0, len(ids), TURN_BATCH):
        rows = (
            Turn.objects.filter(debate_id__in=ids[start : start + TURN_BATCH])
            .values_list("debate_id", "agent")
            .annotate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"), k=Sum("cached_tokens"))
            .order_by()
        )
        for debate_id, agent, prompt, completion, cached in rows:
            out.setdefault(debate_id, {})[agent] = (prompt or 0, completion or 0, cached or 0)
    return out
