"""A job's LLM money so far, for its page: its debates' tokens at ``DREAM_LLM_PRICES`` (per
backend and model, :mod:`debates.prices`), priced as the cost of every final label prices
each debate (:mod:`assess.refined.debate_cost`): both agents at one price, the job's tokens
at it; at two prices, each agent's tokens (summed over its turns) at its own; a batch-mode
job at the batch prices.

``DREAM_PRICE_PER_1K_TOKENS`` (one price per 1,000 tokens, prompt and completion alike) is
the documented older setting: it is read only when ``DREAM_LLM_PRICES`` prices neither or
only one of the job's agents, so a deployment that set it keeps its figure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db.models import Sum

from debates.llm.config import AgentConfig, agents_simulated
from debates.models import DebateJob, Turn
from debates.prices import PRICES_SETTING, Price, llm_prices, price_for, setting_or_env
from debates.services.progress import JobProgress

FALLBACK_SETTING = "DREAM_PRICE_PER_1K_TOKENS"


@dataclass(frozen=True)
class JobCost:
    """What the job page says of a job's money. ``money`` and ``per_pair`` (per finished
    debate) are in the prices' currency, None when unknown; ``note`` says which prices gave
    them, or how to get a figure; ``simulated``: an agent is a simulated debater, so the
    calls and tokens are the simulation's, not a server's."""

    money: float | None
    per_pair: float | None
    note: str
    simulated: bool


def fallback_price() -> float | None:
    """``DREAM_PRICE_PER_1K_TOKENS`` (setting or environment): money per 1,000 tokens, prompt
    and completion alike; None when unset, not a number, negative or not finite."""
    try:
        price = float(str(setting_or_env(FALLBACK_SETTING)).strip())
    except ValueError:
        return None
    return price if math.isfinite(price) and price >= 0 else None


def _agent_tokens(job: DebateJob) -> dict[str, tuple[int, int, int]]:
    """``{"A" or "B": (prompt, completion, cached tokens)}`` summed over the job's turns."""
    rows = (
        Turn.objects.filter(debate__job=job)
        .values_list("agent")
        .annotate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"), k=Sum("cached_tokens"))
        .order_by()
    )
    return {agent: (p or 0, c or 0, k or 0) for agent, p, c, k in rows}


def _priced(job: DebateJob, progress: JobProgress, pair: tuple[Price, Price]) -> float:
    price_a, price_b = pair
    if price_a == price_b:
        tokens = (progress.prompt_tokens, progress.completion_tokens, progress.cached_tokens)
        return price_a.of(*tokens, batch=job.batch)
    per_agent = _agent_tokens(job)
    return sum(
        price.of(*per_agent.get(agent, (0, 0, 0)), batch=job.batch)
        for agent, price in (("A", price_a), ("B", price_b))
    )


def debate_job_cost(*, job: DebateJob, progress: JobProgress) -> JobCost:
    """The job's LLM money so far (``progress``: :func:`debate_job_progress` of ``job``): at
    ``DREAM_LLM_PRICES`` when it prices both agents, else at ``DREAM_PRICE_PER_1K_TOKENS``
    when that is set, else none, the note naming ``DREAM_LLM_PRICES`` and the unpriced
    models. Reads the job's turns only for agents at two different prices."""
    configs = [AgentConfig.stored_or_named(raw) for raw in (job.agent_a, job.agent_b)]
    simulated = agents_simulated(job.agent_a, job.agent_b)
    models = list(dict.fromkeys(config.label for config in configs))
    try:
        prices = llm_prices()
        problem = ""
    except ValueError as exc:
        prices, problem = {}, f"{PRICES_SETTING} cannot be read: {exc}"
    pair = (price_for(configs[0], prices), price_for(configs[1], prices))
    money: float | None = None
    if pair[0] is not None and pair[1] is not None:
        money = _priced(job, progress, (pair[0], pair[1]))
        batch = " batch" if job.batch else ""
        note = f"At {' and '.join(models)}'s{batch} prices ({PRICES_SETTING})."
    else:
        missing = [c.label for c, p in zip(configs, pair, strict=True) if p is None]
        problem = problem or f"price not set for {' and '.join(dict.fromkeys(missing))}"
        fallback = fallback_price()
        if fallback is None:
            note = f"No estimated cost: {problem}; set {PRICES_SETTING} (per backend and model)."
        else:
            tokens = progress.prompt_tokens + progress.completion_tokens
            money = tokens / 1000 * fallback
            note = (
                f"At {fallback:g} per 1,000 tokens, prompt and completion alike "
                f"({FALLBACK_SETTING}, read because {PRICES_SETTING} gives no price: {problem})."
            )
    per_pair = money / progress.done if money is not None and progress.done else None
    return JobCost(money=money, per_pair=per_pair, note=note, simulated=simulated)
