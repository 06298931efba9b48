"""Read-only queries for the pages of refined qrel sets (:mod:`assess.refined.views`; the
exports' own are in :mod:`assess.refined.exports`) and for the refine form's pools and
suggested name (:mod:`assess.refined.forms`). Each returns model instances or plain values;
none writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from django.db.models import Count, Exists, OuterRef, QuerySet, Sum
from django.db.models.functions import Coalesce

from corpora.models import Dataset, Pool, QrelSet
from debates.models import Debate

from ..models import Judgment, LabelProvenance, Refinement
from ..models.simulated import (
    qrel_set_simulated_labels,
    qrel_set_simulated_rows,
    simulated_label_counts,
    sources_split,
)
from . import cost, debate_cost
from .refine import NAME_MAX, RefineError, refined_name_check


def qrel_set_find(*, dataset: Dataset, name: str) -> QrelSet | None:
    """The dataset's qrel set called ``name``, or None."""
    return QrelSet.objects.filter(dataset=dataset, name=name).first()


def refinements_of(*, dataset: Dataset) -> QuerySet[Refinement]:
    """The dataset's refinements, by refined set name, with their set, pool and original."""
    return (
        Refinement.objects.filter(qrel_set__dataset=dataset)
        .select_related("qrel_set", "pool", "original")
        .order_by("qrel_set__name")
    )


def refinements_simulated(*, refinements: Iterable[Refinement]) -> set[int]:
    """The ids of ``refinements`` whose refined set holds simulated labels (debates of the
    ``simulated`` backend, the simulated annotator's, stage 0's of a judge that learnt from
    them, or rows copied from a set holding such:
    :func:`assess.models.simulated.qrel_set_simulated_rows`)."""
    return {r.pk for r in refinements if qrel_set_simulated_rows(qrel_set=r.qrel_set)}


def dataset_has_pools(*, dataset: Dataset) -> bool:
    """Whether the dataset has a pool (a refined set can only be made from one)."""
    return dataset.pools.exists()


# Refined-list page: the refine form's pools and suggested name.

SUFFIX_RE = re.compile(r"^(.+)-(\d+)$")


def refine_pools(*, dataset: Dataset) -> QuerySet[Pool]:
    """The dataset's pools, newest first, each with ``pair_count``."""
    return (
        Pool.objects.filter(dataset=dataset)
        .select_related("qrel_set")
        .annotate(pair_count=Count("pairs"))
        .order_by("-created", "-pk")
    )


def refine_pool_default(*, pools: QuerySet[Pool]) -> Pool | None:
    """The pool the refine form offers first: the newest of ``pools`` (newest first, as
    :func:`refine_pools` gives them) that a debate job has labelled (a debate with an agreed
    label, or a person's judgment of one of its debates), else the newest; None without
    pools. A pool built after the last debate would otherwise be offered, and refining it
    gives a set of nothing but holes."""
    agreed = Debate.objects.filter(job__pool=OuterRef("pk"), final_label__isnull=False)
    judged = Judgment.objects.filter(item__debate__job__pool=OuterRef("pk"), undone_at__isnull=True)
    return pools.filter(Exists(agreed) | Exists(judged)).first() or pools.first()


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a refined set's name (None if it can), for forms:
    :func:`assess.refined.refine.refined_name_check`."""
    try:
        refined_name_check(name=name)
    except RefineError as exc:
        return str(exc)
    return None


def refined_name_suggest(*, pool: Pool) -> str:
    """A free name for the next refined set of ``pool``: the name of its newest refinement
    (or ``<original qrels>-dream-<pool>``) if free, else with a ``-2``, ``-3``... suffix
    (a series ``x``, ``x-2``, ``x-3`` continues at ``x-4``)."""
    taken = set(QrelSet.objects.filter(dataset_id=pool.dataset_id).values_list("name", flat=True))
    newest = (
        Refinement.objects.filter(pool=pool)
        .order_by("-created", "-pk")
        .values_list("qrel_set__name", flat=True)
        .first()
    )
    base = newest or f"{pool.qrel_set.name}-dream-{pool.name}"
    series = SUFFIX_RE.match(base)
    if newest and series and series.group(1) in taken:
        base = series.group(1)
    base = re.sub(r"[^-a-zA-Z0-9_.]+", "-", base).strip("-") or "refined"
    number = 1
    while True:
        suffix = f"-{number}" if number > 1 else ""
        name = base[: NAME_MAX - len(suffix)] + suffix
        if name not in taken and name_problem(name) is None:
            return name
        number += 1


# --- what every final label cost (LLM and human), for assess.refined.cost ----------------------


def _debate_llm(debate_ids: list[int], prices: dict) -> dict[int, cost.LabelCost]:
    """{debate id: its LLM cost as a LabelCost of source ""} (calls; prompt, completion,
    cached and reasoning tokens; money or None; ``batch`` when its job ran in batch mode).
    Money follows :mod:`assess.refined.debate_cost`: the agents' prices, the batch prices
    for a batch-mode job, per agent from its turns when the two prices differ."""
    out: dict[int, cost.LabelCost] = {}
    rows = Debate.objects.filter(pk__in=debate_ids).values_list(
        "pk",
        "calls",
        "prompt_tokens",
        "completion_tokens",
        "cached_tokens",
        "reasoning_tokens",
        "job__agent_a",
        "job__agent_b",
        "job__batch",
    )
    read = []
    for pk, calls, prompt, completion, cached, reasoning, agent_a, agent_b, batch in rows.iterator(
        chunk_size=5000
    ):
        pair = debate_cost.agent_prices(agent_a, agent_b, prices)
        read.append((pk, calls, prompt, completion, cached, reasoning, pair, bool(batch)))
    # Only debates whose agents have different known prices need their turns summed.
    split = debate_cost.turn_tokens(row[0] for row in read if debate_cost.needs_turns(row[6]))
    for pk, calls, prompt, completion, cached, reasoning, pair, batch in read:
        money = debate_cost.debate_money(
            prompt=prompt,
            completion=completion,
            cached=cached,
            pair=pair,
            batch=batch,
            per_agent=split.get(pk),
        )
        out[pk] = cost.LabelCost(
            "", calls, prompt, completion, money, 0.0, cached, reasoning, batch=batch
        )
    return out


def refined_label_costs(*, qrel_set: QrelSet) -> list[cost.LabelCost]:
    """One :class:`assess.refined.cost.LabelCost` per new final label of a refined set
    (consensus, human or adjudicated rows of its provenance that were applied): the LLM
    calls, tokens and money of the debate behind it (``DREAM_LLM_PRICES``) and the human
    seconds of the live judgments of that debate's review: each judgment's active seconds
    (page visible, input within the idle cut-off), or its wall seconds on task when its
    active time was not measured."""
    prices = cost.llm_prices()
    rows = list(
        LabelProvenance.objects.filter(
            qrel_set=qrel_set, source__in=cost.SOURCES, applied=True
        ).values_list("source", "debate_id")
    )
    debate_ids = sorted({d for _, d in rows if d is not None})
    llm = _debate_llm(debate_ids, prices)
    seconds = dict(
        Judgment.objects.filter(item__debate_id__in=debate_ids, undone_at__isnull=True)
        .values_list("item__debate_id")
        .annotate(s=Sum(Coalesce("active_seconds", "seconds_on_task")))
        .values_list("item__debate_id", "s")
    )
    out = []
    for source, debate_id in rows:
        human = float(seconds.get(debate_id, 0.0)) if source not in ("consensus", "stage0") else 0.0
        llm_cost = llm.get(debate_id, cost.LabelCost(""))
        out.append(replace(llm_cost, source=source, human_seconds=human))
    return out


def refined_costs(*, qrel_set: QrelSet) -> dict[str, cost.SourceCost]:
    """Costs of a refined set's new final labels by source and in all
    (:func:`assess.refined.cost.cost_by_source`, human price ``DREAM_HUMAN_PRICE_PER_HOUR``)."""
    return cost.cost_by_source(
        refined_label_costs(qrel_set=qrel_set), human_per_hour=cost.human_price_per_hour()
    )


def refined_sources(*, refinement: Refinement) -> tuple[dict[str, int], dict[str, int]]:
    """``(by_source, simulated)``: the refined set's pairs by final-label source as its
    refinement counted them, with its own simulated labels under keys of their own
    (``"consensus (simulated)"``, ``"human (simulated)"``, ``"stage0 (simulated)"``:
    :func:`assess.models.simulated.sources_split`), and the set's simulated labels counted,
    ``{"debate": n, "human": m, "stage0": k}``, those copied from the refined set it was
    made from included (:func:`assess.models.simulated.qrel_set_simulated_labels`). Reads
    only."""
    own = simulated_label_counts(rows=LabelProvenance.objects.filter(refinement=refinement))
    stored = (refinement.counts or {}).get("by_source") or {}
    return sources_split(stored, own), qrel_set_simulated_labels(refinement.qrel_set)
