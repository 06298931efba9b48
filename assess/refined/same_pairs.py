"""The debates and reviews of a pool's pairs in every job of its dataset, for refinement.

A pair is a query and a document of one dataset; pools of the dataset may share it, and so
may the jobs debating them. A pool's own debates decide its consensus labels, but the human
votes on the pair count wherever they were cast (:mod:`assess.refined.labels`, rule 2): an
annotator's vote in a job on another pool says as much about the pair as one in this pool's
job, and leaving it out would let a reused label stand against a human who corrected it.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet

from corpora.models import Pair, Pool
from debates.models import Debate

#: What refinement reads of each debate of a pool's pairs, its own or another pool's
#: (assess.refined.refine), in this order.
EVIDENCE_COLUMNS = (
    "pk",
    "pair_id",
    "job_id",
    "status",
    "final_label",
    "consensus_round",
    "escalation_reason",
    "finished",
    "job__agent_a",
    "job__agent_b",
    "job__prompt_version",
    "job__scale",
    "settled_by",
    "job__stage0_model_hash",
    "reused_from_id",
    "reused_from__job_id",
    "pair__query_id",
    "pair__document_id",
)


def same_pair_in_pool(pool: Pool, prefix: str = "") -> Q:
    """A filter on rows reaching a debate through ``prefix`` (e.g. ``"debate__"`` from a
    review item, ``"item__debate__"`` from a judgment; "" from a debate): the debate's pair
    has the query and document of one of ``pool``'s pairs, in any pool of its dataset."""
    same = Pair.objects.filter(
        pool=pool,
        query_id=OuterRef(f"{prefix}pair__query_id"),
        document_id=OuterRef(f"{prefix}pair__document_id"),
    )
    return Q(**{f"{prefix}pair__pool__dataset_id": pool.dataset_id}) & Q(Exists(same))


def reviewed_debates_elsewhere(pool: Pool) -> QuerySet[Debate]:
    """The debates of jobs on the dataset's other pools that have a review item and a pair of
    ``pool`` (same query and document): whose human votes count for ``pool``'s pairs."""
    return (
        Debate.objects.filter(same_pair_in_pool(pool), review__isnull=False)
        .exclude(pair__pool=pool)
        .order_by("pk")
    )


def pool_pair_ids(pool: Pool) -> dict[tuple[int, int], int]:
    """{(query pk, document pk): pair pk} of ``pool``'s pairs."""
    return {
        (query, document): pk
        for pk, query, document in Pair.objects.filter(pool=pool).values_list(
            "pk", "query_id", "document_id"
        )
    }
