"""The budget planner: about how many more human labels would narrow a debate job's refined
nDCG@10 to +-0.01, and which system pairs are still undecided. Reads only.

One function, :func:`job_budget`, serves the job page's panel (:func:`job_budget_panel`,
registered by ``assess.apps`` with :func:`debates.views.job_panel_register`) and the API's
job detail (``budget``), so that both say the same. The figures come from the newest refined
set of the job's pool (:func:`assess.evaluation.refined_intervals.refinement_intervals`):
the audit's human labels as they stood when that set was made. Without a refined set, or
when its sample cannot support an interval, ``error`` says what is missing instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string

from assess.models import Refinement
from assess.models.simulated import refined_simulated_scope, simulated_sentence
from debates.models import DebateJob

from .interval_missing import MissingLabels, unresolved_note
from .interval_reports import SampleSize, job_sources_note, pair_json, sources_note
from .refined_intervals import BUDGET_TARGET, COVERAGE_CAVEAT, plan_caveat, refinement_intervals

MEASURE = "nDCG@10"


@dataclass(frozen=True)
class LabelBudget:
    """What the planner says for one job.

    ``refined``: the name of the refined set it was computed from ("" when there is none);
    ``more_human_labels``: about how many more audited labels would bring every system's
    nDCG@10 interval to a half-width of ``target_half_width`` (0: narrow enough already;
    None: unknown, see ``error``); ``n_human``: the human labels behind the intervals,
    ``n_audited`` audited agreed pairs and ``n_escalated`` escalated pairs;
    ``undecided_pairs``: the system pairs whose nDCG@10 order is not settled at 95%, each as
    :func:`~assess.evaluation.interval_reports.pair_json` (``a``, ``b``, the difference a -
    b with its interval and ``n``); ``pairs``: all system pairs compared; ``simulated``: the
    refined set's simulated labels ``{"debate": n, "human": m, "stage0": k}``;
    ``unresolved``: the pool pairs with no final label still due (over a job's human budget,
    failed, pending, waiting for a human, never debated within the pool's budget), left out
    of the refined qrels, so not relevant in the point values; ``escalated_waiting`` of them
    are escalations, which the intervals take as missing at random among the escalated pairs
    (the others are not relevant there too); ``beyond_budget``: a budgeted pool's pairs
    beyond its budget, never debated and left unjudged by design (not in ``unresolved``; not
    relevant in the point values and the intervals; a note says so);
    ``audit_waiting``: agreed pairs drawn for the audit with no human label yet, missing at
    random in the intervals; ``unresolved_words``: the note on the unresolved pairs, as the
    re-benchmark words it (:func:`~assess.evaluation.interval_missing.unresolved_note`);
    ``queries``: the evaluated queries (every interval is on the mean over them, conditional
    on them); ``pooled_queries``: how many of them hold a pooled pair, the only ones whose
    scores label errors can move (a pool over a few queries of many gives narrow intervals
    on the mean for that reason); ``error``: what is missing, "" when computed. The counts
    are None when unknown (no refined set yet); a refined set whose sample cannot give
    intervals still reports its own counts beside ``error``.
    """

    refined: str = ""
    more_human_labels: int | None = None
    n_human: int | None = None
    n_audited: int | None = None
    n_escalated: int | None = None
    undecided_pairs: tuple[dict[str, Any], ...] = ()
    pairs: int = 0
    error: str = ""
    target_half_width: float = BUDGET_TARGET
    measure: str = MEASURE
    notes: tuple[str, ...] = field(default=())
    simulated: Mapping[str, int] = field(default_factory=dict)
    unresolved: int | None = None
    beyond_budget: int | None = None
    escalated_waiting: int | None = None
    audit_waiting: int | None = None
    unresolved_words: str = ""
    queries: int | None = None
    pooled_queries: int | None = None
    # The audit share that would hold that many audited labels: (audited + more) / agreed
    # pairs, at most 1 (None: unknown, or nothing more needed).
    audit_share_needed: float | None = None

    @property
    def simulated_line(self) -> str:
        """ "SIMULATED labels: ..." when the refined set holds simulated labels, else ""."""
        # The job page shows the job's own count too: say this one is the refined set's.
        return simulated_sentence(self.simulated, scope=refined_simulated_scope(self.refined))

    @property
    def few_audited(self) -> str:
        """Words when the figure rests on few audited labels
        (:func:`~assess.evaluation.refined_intervals.plan_caveat`), else ""."""
        return plan_caveat(self.n_audited) if self.more_human_labels else ""

    @property
    def panel_notes(self) -> tuple[str, ...]:
        """The notes the panel lists under its figures: all but the one on unresolved pairs,
        which the panel shows as a warning above them."""
        return tuple(note for note in self.notes if note != self.unresolved_words)

    def as_json(self) -> dict[str, Any]:
        """``{"more_human_labels": int | None, "target_half_width": 0.01, "measure":
        "nDCG@10", "undecided_pairs": [{"a", "b", "difference", "low", "high", "settled",
        "n", "n_audited", "n_escalated"}], "n_human": int, "n_audited": int, "n_escalated":
        int, "simulated": bool, "simulated_labels": {"debate", "human"}, "notes": [str],
        "error": str, "refined": str, "unresolved": int, "beyond_budget": int,
        "escalated_waiting": int,
        "audit_waiting": int, "queries": int, "pooled_queries": int, "audit_share_needed":
        float | None, "few_audited": str}`` (the API's ``budget``; ``few_audited``: words
        when the figure rests on fewer than 30 audited labels, else ""; ``n_human`` counts
        audited and escalated human labels; the counts are null without a refined set;
        ``audit_share_needed``: the audit share that would hold the labels wanted, null when
        none are or it is unknown)."""
        return {
            "more_human_labels": self.more_human_labels,
            "few_audited": self.few_audited,
            "target_half_width": self.target_half_width,
            "measure": self.measure,
            "undecided_pairs": [dict(p) for p in self.undecided_pairs],
            "n_human": self.n_human,
            "n_audited": self.n_audited,
            "n_escalated": self.n_escalated,
            "simulated": any(self.simulated.values()),
            "simulated_labels": dict(self.simulated),
            "notes": list(self.notes),
            "error": self.error,
            "refined": self.refined,
            "unresolved": self.unresolved,
            "beyond_budget": self.beyond_budget,
            "escalated_waiting": self.escalated_waiting,
            "audit_waiting": self.audit_waiting,
            "queries": self.queries,
            "pooled_queries": self.pooled_queries,
            "audit_share_needed": self.audit_share_needed,
        }


def job_budget(*, job: DebateJob, rel_level: int = 1) -> LabelBudget:
    """The budget planner's figures for ``job`` from the newest refined set of its pool
    (:func:`~assess.evaluation.refined_intervals.refinement_intervals`: the pool's runs,
    intervals by the GREG estimator over the audit, Cochran's sample-size rule for the
    labels needed; see :func:`assess.evaluation.interval_comparisons.labels_for_half_width`).
    Never raises for missing data: ``error`` says "no refined set of this pool yet" or what
    the intervals lack (e.g. "intervals need an audit share > 0")."""
    refinement = (
        Refinement.objects.select_related("qrel_set__dataset", "pool", "original")
        .filter(pool=job.pool_id)
        .order_by("-pk")
        .first()
    )
    if refinement is None:
        return LabelBudget(
            error="no refined set of this pool yet: refine the pool to plan the human labels"
        )
    found = refinement_intervals(refinement=refinement, rel_level=rel_level)
    name = refinement.qrel_set.name
    # Whose reviews the sample holds, said for this job: another job's audit (e.g. of the
    # labels this job reused) is never read as this job's.
    own = job_sources_note(found.sources, job=job.pk, audit_share=job.audit_share)
    # The set's note on jobs of other pools names jobs the job's own note already names
    # (every job of another pool is another job): one of the two is enough.
    borrowed = sources_note(found.sources) if own else ""
    notes = tuple(([own] if own else []) + [n for n in found.notes if n != borrowed])
    missing = _missing_fields(found.counts, intervals=found.ppi is not None)
    if found.ppi is None:
        # The set's own counts stand beside the refusal: zeros would read as "no label yet".
        audited, escalated = found.counts.get("audited", 0), found.counts.get("escalated", 0)
        return LabelBudget(
            refined=name,
            error=found.error or "no interval could be computed",
            notes=notes,
            simulated=found.simulated,
            n_human=audited + escalated,
            n_audited=audited,
            n_escalated=escalated,
            **missing,
            queries=found.queries,
            pooled_queries=found.pooled_queries,
        )
    sample = found.tau_sample() or SampleSize(found.ppi.n_human, found.counts["escalated"])
    agreed = found.counts.get("agreed", 0)
    share = (
        round(min(1.0, (sample.audited + found.more_labels) / agreed), 3)
        if found.more_labels and agreed
        else None
    )
    return LabelBudget(
        audit_share_needed=share,
        refined=name,
        more_human_labels=found.more_labels,
        n_human=sample.total,
        n_audited=sample.audited,
        n_escalated=sample.escalated,
        undecided_pairs=tuple(
            pair_json(p, found.sample(p.difference)) for p in found.pairs if not p.settled
        ),
        pairs=len(found.pairs),
        notes=notes,
        simulated=found.simulated,
        **missing,
        queries=found.queries,
        pooled_queries=found.pooled_queries,
    )


def _missing_fields(counts: Mapping[str, int], *, intervals: bool) -> dict[str, Any]:
    """:class:`LabelBudget`'s fields on the labels the intervals lack, from the refined
    set's interval ``counts``."""
    missing = MissingLabels.of(counts)
    return {
        "unresolved": missing.unresolved,
        "beyond_budget": missing.beyond_budget,
        "escalated_waiting": missing.escalations,
        "audit_waiting": missing.audits,
        "unresolved_words": unresolved_note(missing, intervals=intervals),
    }


def job_budget_panel(request: HttpRequest, job: DebateJob) -> str:
    """The budget planner's panel on the job page
    (``templates/assess/partials/job_budget_panel.html``): :func:`job_budget`,
    or the words of what is missing. Read-only."""
    return render_to_string(
        "assess/partials/job_budget_panel.html",
        {"budget": job_budget(job=job), "caveat": COVERAGE_CAVEAT},
        request=request,
    )
