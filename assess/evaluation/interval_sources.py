"""Which debate jobs gave a refined set's human labels (database side): per job its audit
share, the audited and escalated labels its reviews gave, the labels of the set reused from
its debates, whether it debated the set's pool, and its drawn audits and escalations still
waiting for a human (:class:`~assess.evaluation.interval_reports.SampleSource`). Shown
beside the intervals of :mod:`assess.evaluation.refined_intervals`, which re-exports
:func:`sample_sources`.
"""

from __future__ import annotations

from django.db.models import Count, Q

from assess.models import LabelProvenance
from assess.models.overrides import HUMAN_SOURCES
from corpora.models import QrelSet

from .interval_reports import SampleSource


def sample_sources(*, refined: QrelSet) -> list[SampleSource]:
    """The jobs whose reviews gave ``refined``'s human labels, by the kind of each review (an
    audit of its agreed pair, or its escalation; :func:`pooled_labels` counts by the pair's
    deciding debate instead, so an escalation of one job on a pair another job's newer
    debate agreed on is an audited label there), in job order, each
    with its audit share, the labels it gave, the labels of the set reused from its debates,
    and whether it debated the set's pool (else its reviews of the same pairs came through
    another pool's job), and the labels it drew or escalated that still wait for a human (a
    job whose labels all wait is listed with 0 audited, 0 escalated). Three queries; [] for
    a set without provenance."""
    rows = LabelProvenance.objects.filter(
        qrel_set=refined, original_relevance__isnull=True, job__isnull=False
    )
    human = (
        rows.filter(source__in=HUMAN_SOURCES)
        .values("job_id", "job__audit_share", "job__pool_id")
        .annotate(
            audited=Count("pk", filter=Q(consensus_label__isnull=False, review_kind="audit")),
            escalated=Count("pk", filter=Q(consensus_label__isnull=True)),
        )
    )
    reused = dict(
        rows.filter(debate__reused_from__isnull=False)
        .values("debate__reused_from__job_id")
        .annotate(n=Count("pk"))
        .values_list("debate__reused_from__job_id", "n")
    )
    # Labels a job's reviews will give but have not: its drawn audits still without a human
    # label (the pair keeps its consensus) and its escalations people have not decided.
    waiting = {
        r["job_id"]: r
        for r in rows.exclude(source__in=HUMAN_SOURCES)
        .values("job_id", "job__audit_share", "job__pool_id")
        .annotate(
            audits=Count("pk", filter=Q(review_kind="audit")),
            escalations=Count(
                "pk", filter=Q(consensus_label__isnull=True, review_kind="escalated")
            ),
        )
        if r["audits"] or r["escalations"]
    }
    refinement = getattr(refined, "refinement", None)
    pool = refinement.pool_id if refinement is not None else None
    given = {r["job_id"]: r for r in human}
    found = []
    for job in sorted(given.keys() | waiting.keys()):
        r = given.get(job) or waiting[job]
        wait = waiting.get(job, {})
        found.append(
            SampleSource(
                job=job,
                audit_share=float(r["job__audit_share"]),
                audited=given[job]["audited"] if job in given else 0,
                escalated=given[job]["escalated"] if job in given else 0,
                reused=reused.get(job, 0),
                on_pool=r["job__pool_id"] == pool,
                audits_waiting=wait.get("audits", 0),
                escalations_waiting=wait.get("escalations", 0),
            )
        )
    return found
