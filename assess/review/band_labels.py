"""The human labels of a dataset's pooled pairs with the probability their pair went to people,
for stage 0's band (:func:`debates.stage0.stage0_band_labels_register`;
:func:`debates.stage0_band.band_sample` turns them into an equal-probability sample).

A job sends every escalated pair to people (probability 1) and each agreed pair with its audit
stratum's probability (:func:`assess.review.audit.pair_inclusion`, the job's stored design). A
job's ``floor`` is the smallest of those probabilities over its settled pairs: every stratum
of its agreed labels, and 1 for its escalations alone; 0 when a stratum was never audited,
or when the job has a human budget: its review then goes by impact on the benchmark, not by
chance, so its labels are no probability sample of its pool.
"""

from __future__ import annotations

from debates.audit_design import stratum_name
from debates.models import Debate, DebateJob

from ..models import ReviewItem
from .audit import audit_designs_of
from .human_labels import review_final_labels


def dataset_band_labels(
    *, dataset, relevance_level: int = 1
) -> dict[tuple[int, int], tuple[int, float, float]]:
    """``{(query pk, document pk): (label 1/0, inclusion, floor)}`` for every decided review
    item of a debate on ``dataset``'s pairs (module docstring). A graded job's grade is
    relevant when >= ``relevance_level``. A pair decided in several jobs keeps the newest
    job's label, inclusion and floor (as :func:`assess.review.human_labels.
    dataset_human_labels` keeps its label)."""
    out: dict[tuple[int, int], tuple[int, float, float]] = {}
    for job in DebateJob.objects.filter(pool__dataset=dataset).order_by("pk"):
        labels = review_final_labels(job=job)
        if not labels:
            continue
        design = audit_designs_of(job_ids=[job.pk])[job.pk]
        agreed = job.debates.filter(status=Debate.Status.AGREED, final_label__isnull=False)
        strata = {
            stratum_name(label, round_)
            for label, round_ in agreed.values_list("final_label", "consensus_round")
            if label is not None
        }
        floor = min((design.probability(name) for name in strata), default=1.0)
        if job.human_budget is not None:
            floor = 0.0
        level = relevance_level if job.scale == DebateJob.Scale.GRADED else 1
        kinds = dict(
            ReviewItem.objects.filter(debate_id__in=list(labels)).values_list("debate_id", "kind")
        )
        rows = job.debates.filter(pk__in=list(labels)).values_list(
            "pk", "pair__query_id", "pair__document_id", "final_label", "consensus_round"
        )
        for debate_id, query_id, document_id, consensus, round_ in rows:
            if kinds.get(debate_id) == ReviewItem.Kind.ESCALATED or consensus is None:
                inclusion = 1.0
            else:
                inclusion = design.probability(stratum_name(consensus, round_))
            label = 1 if labels[debate_id][0] >= level else 0
            out[(query_id, document_id)] = (label, inclusion, min(floor, inclusion))
    return out
