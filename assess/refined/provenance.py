"""The provenance of a refinement's labels: one :class:`~assess.models.LabelProvenance` row
per pool pair (:func:`label_provenance_write`: its label, source and reason, the debate, the
human judgments with each annotator's gold accuracy, its probability of going to humans),
and who a refinement leaves out with everyone's gold figures as of refining
(:func:`refinement_people_get`), inside :func:`assess.refined.refine.qrels_refine`'s
transaction.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from corpora.models import QrelSet
from corpora.selectors import pool_pair_ranks

from ..models import LabelProvenance, Refinement
from ..review.across_jobs import (
    pair_drawn_across_jobs,
    pair_inclusion_across_jobs,
    pair_job_inclusions,
)
from ..review.audit import audit_designs_of, audit_item_inclusions, pair_inclusion
from ..review.quality import AnnotatorQuality, annotator_quality, quality_policy
from . import labels as final
from .pool_labels import BATCH_SIZE, PoolLabel


def label_provenance_write(
    *,
    refinement: Refinement,
    labels: Sequence[PoolLabel],
    qrel_pk: dict[tuple[int, int], int],
    people: RefinementPeople,
) -> None:
    """Insert one provenance row per pool pair of ``refinement`` (``labels``, in batches of
    :data:`~assess.refined.pool_labels.BATCH_SIZE`): the pair's final label and how it was
    made, ``qrel_id`` its refined row in ``qrel_pk`` ({(query pk, doc pk): refined row pk})
    when it has one, ``grade`` as :func:`assess.refined.labels.final_grade` writes it with
    the refinement's relevant grade, each human judgment with its annotator's gold figures
    (``people``, :func:`refinement_people_get`), and ``inclusion``, its probability of going
    to humans (:func:`assess.review.audit.pair_inclusion`; when several jobs of the dataset
    could send the pair to people, the union of their draws,
    :func:`assess.review.across_jobs.pair_inclusion_across_jobs`), ``drawn``, whether any
    of them did (:func:`assess.review.across_jobs.pair_drawn_across_jobs`), and
    ``machine_label`` and ``machine_round``, the consensus of the debate that decides the
    pair whatever humans said (:attr:`assess.refined.labels.FinalLabel.machine_label`).
    Runs inside the refinement's transaction; refined sets' provenance is written once,
    here."""
    LabelProvenance.objects.bulk_create(
        _provenance_rows(refinement, labels, qrel_pk, people.gold), batch_size=BATCH_SIZE
    )


def _provenance_rows(
    refinement: Refinement,
    labels: Sequence[PoolLabel],
    qrel_pk: dict[tuple[int, int], int],
    gold: dict[str, dict[str, Any]],
) -> Iterator[LabelProvenance]:
    job_ids = {label.final.job_id for label in labels}
    designs = audit_designs_of(job_ids=job_ids)
    drawn = audit_item_inclusions(job_ids=job_ids)
    # A Neyman audit's probability depends on the pair's best rank in the pool (read for
    # the pairs not drawn; a drawn pair's is on its item).
    neyman = any(d.allocation == "neyman" for d in designs.values())
    ranks = pool_pair_ranks(pool=refinement.pool) if neyman else {}
    # Every job of the dataset that could send a pair to people: the refined set's human
    # sample is the union of their audits (their reviews' votes merge).
    jobs = pair_job_inclusions(pairs=[(label.query_pk, label.document_pk) for label in labels])
    grade = refinement.relevant_grade
    for label in labels:
        row = _provenance(refinement, refinement.qrel_set, label, qrel_pk, grade, gold)
        pair = (label.query_pk, label.document_pk)
        with_ = drawn.get(label.final.debate_id) if label.final.debate_id is not None else None
        own = pair_inclusion(designs, label.final, best_rank=ranks.get(pair), drawn_with=with_)
        chances, graded = jobs.get(pair, {}), label.final.graded
        row.inclusion = pair_inclusion_across_jobs(own, label.final, chances, graded=graded)
        row.drawn = pair_drawn_across_jobs(label.final, chances, graded=graded)
        yield row


def _provenance(
    refinement: Refinement,
    refined: QrelSet,
    pool_label: PoolLabel,
    qrel_pk: dict[tuple[int, int], int],
    relevant_grade: int = 1,
    gold: dict[str, dict[str, Any]] | None = None,
) -> LabelProvenance:
    f = pool_label.final
    gold = gold or {}
    return LabelProvenance(
        grade=final.final_grade(f, relevant_grade),
        relevant_grade=None if f.graded else relevant_grade,
        refinement=refinement,
        qrel_set=refined,
        query_id=pool_label.query_pk,
        document_id=pool_label.document_pk,
        qrel_id=qrel_pk.get((pool_label.query_pk, pool_label.document_pk)) if f.resolved else None,
        label=f.label,
        source=f.source,
        reason=f.reason,
        # A skipped self-pair (identical ids excluded) has no qrels row: not applied.
        applied=f.resolved
        and (f.original_grade is None or f.corrects_original)
        and (pool_label.query_pk, pool_label.document_pk) in qrel_pk,
        original_relevance=f.original_grade,
        consensus_label=f.consensus_label,
        consensus_round=f.consensus_round,
        machine_label=f.machine_label,
        machine_round=f.machine_round,
        debate_status=f.debate_status,
        escalation_reason=f.escalation_reason,
        review_kind=f.review_kind,
        job_id=f.job_id,
        debate_id=f.debate_id,
        agent_models=list(f.models),
        prompt_version=f.prompt_version,
        annotators=list(f.annotators),
        judgments=[
            {
                "annotator": j.annotator,
                "label": j.label,
                "at": j.at.isoformat() if j.at else None,
                **gold.get(j.annotator, NO_GOLD),
            }
            for j in f.judgments
        ],
        adjudicator=f.adjudicator,
        debated_at=f.debated_at,
        decided_at=f.decided_at,
        reused=f.reused,
    )


#: The gold figures of an annotator who has answered no gold pair.
NO_GOLD: dict[str, Any] = {"gold_answers": 0, "gold_accuracy": None}


@dataclass(frozen=True, slots=True)
class RefinementPeople:
    """Who a refinement leaves out and everyone's gold figures, as of the refinement."""

    excluded_ids: frozenset[int]
    excluded: list[dict[str, Any]]
    gold: dict[str, dict[str, Any]]
    asked: bool = False  # the refinement asked to leave flagged annotators out


def _gold_record(q: AnnotatorQuality) -> dict[str, Any]:
    accuracy = q.score.accuracy
    return {
        "gold_answers": accuracy.n,
        "gold_accuracy": None if accuracy.estimate is None else round(accuracy.estimate, 4),
    }


def refinement_people_get(*, exclude_flagged: bool) -> RefinementPeople:
    """Every annotator's gold record now, ``{username: {"gold_answers": n, "gold_accuracy":
    share or None}}`` (for the provenance of human labels), and, with ``exclude_flagged``,
    the annotators the gold accuracy floor flags (:func:`assess.review.quality.annotator_quality`)
    to leave out: their user ids and, per annotator, their figures with the floor in force.
    Reads only."""
    everyone = annotator_quality()
    gold = {q.username: _gold_record(q) for q in everyone.values()}
    if not exclude_flagged:
        return RefinementPeople(frozenset(), [], gold)
    policy = quality_policy()
    flagged = sorted((q for q in everyone.values() if q.flagged), key=lambda q: q.username)
    excluded = [
        {
            "annotator": q.username,
            "gold_correct": q.score.accuracy.successes,
            **_gold_record(q),
            "floor": policy.accuracy_floor,
            "min_answers": policy.min_answers,
        }
        for q in flagged
    ]
    return RefinementPeople(frozenset(q.user_id for q in flagged), excluded, gold, asked=True)
