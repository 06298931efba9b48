"""What a refined set's page shows, read in one call (:func:`refined_detail_get`): its
budget and the pairs within and beyond it, the unresolved pairs and those beyond the budget
(the first few of each), its current exports, labels by source and costs. Reads only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..models import ExportFile, LabelProvenance, Refinement
from . import cost
from .exports import exports_current
from .labels import budget_split
from .refine import (
    RefinementBudget,
    refinement_beyond_budget_get,
    refinement_budget_get,
    refinement_unresolved,
)
from .selectors import refined_costs, refined_sources


@dataclass(frozen=True)
class RefinedDetail:
    """A refined set's page, read.

    ``budget``: :class:`~assess.refined.refine.RefinementBudget`; ``within`` and
    ``labelled_beyond``: ``Refinement.pairs`` split by :func:`~assess.refined.labels.
    budget_split` (pairs within the budget, and pairs past it labelled all the same by other
    jobs; both 0 without a budget); ``labelled``: pairs with a final label; ``unresolved``
    and ``beyond``: the first ``shown`` provenance rows of the unresolved pairs and of those
    beyond the budget, ``unresolved_more`` and ``beyond_more`` how many more there are;
    ``legacy_beyond``: for a set refined before the reason ``beyond budget`` was stored, its
    pairs beyond the budget, listed among ``unresolved`` as ``not debated`` (0 otherwise);
    ``exports``: ``{kind: ExportFile}`` still current; ``by_source`` and ``simulated``:
    :func:`~assess.refined.selectors.refined_sources`; ``costs``:
    :func:`~assess.refined.selectors.refined_costs`."""

    budget: RefinementBudget
    within: int
    labelled_beyond: int
    labelled: int
    unresolved: list[LabelProvenance]
    unresolved_more: int
    beyond: list[LabelProvenance]
    beyond_more: int
    legacy_beyond: int
    exports: Mapping[str, ExportFile]
    by_source: Mapping[str, int]
    simulated: Mapping[str, int]
    costs: dict[str, cost.SourceCost]


def refined_detail_get(
    *, refinement: Refinement, shown: int, export_kinds: Iterable[str]
) -> RefinedDetail:
    """Everything the page of ``refinement`` shows (:class:`RefinedDetail`), listing at most
    ``shown`` pairs of each table, with the current exports of ``export_kinds``. Reads only."""
    budget = refinement_budget_get(refinement=refinement)
    within, labelled_beyond = (
        budget_split(pairs=refinement.pairs, budget=budget.budget)
        if budget.budget is not None
        else (refinement.pairs, 0)
    )
    # A set refined before "beyond budget" was stored lists those pairs as unresolved.
    legacy = 0 if budget.recorded else budget.beyond
    listed = refinement.unresolved + legacy
    rows = refinement_beyond_budget_get(refinement=refinement)
    beyond = list(rows[:shown]) if budget.beyond and budget.recorded else []
    by_source, simulated = refined_sources(refinement=refinement)
    return RefinedDetail(
        budget=budget,
        within=within,
        labelled_beyond=labelled_beyond,
        labelled=refinement.pairs - refinement.unresolved,
        unresolved=list(refinement_unresolved(refinement=refinement)[:shown]) if listed else [],
        unresolved_more=max(listed - shown, 0),
        beyond=beyond,
        beyond_more=0 if legacy else max(budget.beyond - shown, 0),
        legacy_beyond=legacy,
        exports=exports_current(refinement=refinement, kinds=export_kinds),
        by_source=by_source,
        simulated=simulated,
        costs=refined_costs(qrel_set=refinement.qrel_set),
    )
