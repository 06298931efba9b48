"""The human labels of a dataset's pooled pairs with the probability their pair went to people,
for stage 0's band (:func:`debates.stage0.stage0_band_labels_register`;
:func:`debates.stage0_band.band_sample` turns them into an equal-probability sample).

A job sends every escalated pair to people (probability 1) and each agreed pair with its audit
unit's probability: the ``inclusion`` its audit item carries (the probability it was drawn
with, :mod:`assess.review.audit`; under a Neyman audit a unit is a stratum and a rank, so
it is not the stratum's). A job's ``floor`` is the smallest such probability over its
settled pairs: every audit unit of its agreed labels now, and 1 for its escalations alone;
0 when a unit was never audited, or when the job has a human budget: its review then goes
by impact on the benchmark, not by chance, so its labels are no probability sample of its
pool.

A pair settled by several jobs (a second job on the same pool, or the same query and
document in another pool) is in the sample through one of them only, the newest job that
settled it (agreed or escalated: a fact of the debates, not of any draw): its label, if
that job's review gave one, with that job's probability. Taking whichever job labelled it
would give such a pair a label with the chance of either job's draw, more than the
probability stated.
"""

from __future__ import annotations

from debates.audit_design import AuditDesign, stratum_name
from debates.models import Debate, DebateJob

from ..models import ReviewItem
from .audit import audit_unit_sizes
from .human_labels import debate_pairs, review_final_labels

SETTLED = (Debate.Status.AGREED, Debate.Status.ESCALATED)


def _job_floor(job: DebateJob, design: AuditDesign) -> float:
    """The smallest probability with which a settled pair of ``job`` goes to people now (0
    with a human budget; 1 for a job of escalations alone)."""
    if job.human_budget is not None:
        return 0.0
    return min((design.probability(unit) for unit in audit_unit_sizes(job=job)), default=1.0)


def dataset_band_labels(
    *, dataset, relevance_level: int = 1
) -> dict[tuple[int, int], tuple[int, float, float]]:
    """``{(query pk, document pk): (label 1/0, inclusion, floor)}`` for the decided review
    items of debates on ``dataset``'s pairs (module docstring), each pair through the newest
    job that settled it. A graded job's grade is relevant when >= ``relevance_level``."""
    out: dict[tuple[int, int], tuple[int, float, float]] = {}
    taken: set[tuple[int, int]] = set()  # pairs a newer job settled
    for job in DebateJob.objects.filter(pool__dataset=dataset).order_by("-pk"):
        mine = debate_pairs(job.debates.filter(status__in=SETTLED))
        labels = {pk: v for pk, v in review_final_labels(job=job).items() if pk in mine}
        fresh = {pk for pk in labels if mine[pk] not in taken}
        taken.update(mine.values())
        if not fresh:
            continue
        design = job.audit_design
        floor = _job_floor(job, design)
        level = relevance_level if job.scale == DebateJob.Scale.GRADED else 1
        items = ReviewItem.objects.filter(debate_id__in=sorted(fresh)).values_list(
            "debate_id", "kind", "inclusion", "debate__final_label", "debate__consensus_round"
        )
        for debate_id, kind, stored, consensus, round_ in items:
            if kind == ReviewItem.Kind.ESCALATED or consensus is None:
                inclusion = 1.0
            elif stored is not None:
                inclusion = stored
            else:  # an item made before inclusions were stored, before audit units
                inclusion = design.probability(stratum_name(consensus, round_))
            label = 1 if labels[debate_id][0] >= level else 0
            out[mine[debate_id]] = (label, inclusion, min(floor, inclusion))
    return out
