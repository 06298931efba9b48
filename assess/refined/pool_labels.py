"""A pool's final labels, read from the database: :func:`final_labels_collect` gathers every
pair's evidence (its debates in every job on the pool, their review items, live judgments and
adjudications, and the reviewed debates of the same pair in the dataset's other pools,
:mod:`assess.refined.same_pairs`) and resolves it by the rules of :mod:`assess.refined.labels`.
Reads only; :mod:`assess.refined.refine` writes the refined set from these labels.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import chain

from django.contrib.auth import get_user_model

from corpora.models import Pair, Pool
from debates.models import Debate, DebateJob

from ..models import Adjudication, Judgment, ReviewItem
from . import labels as final
from .same_pairs import (
    EVIDENCE_COLUMNS,
    pool_pair_ids,
    reviewed_debates_elsewhere,
    same_pair_in_pool,
)

BATCH_SIZE = 5000  # rows per fetch (and per bulk insert of the refinement)


@dataclass(frozen=True, slots=True)
class PoolLabel:
    """One pool pair's database ids and its resolved final label."""

    query_pk: int
    document_pk: int
    final: final.FinalLabel


def _username_field() -> str:
    return get_user_model().USERNAME_FIELD


def final_labels_collect(
    *, pool: Pool, exclude_annotators: frozenset[int] = frozenset()
) -> list[PoolLabel]:
    """Resolve every pair of ``pool`` (rules: :mod:`assess.refined.labels`); sorted by query
    id, then doc id (code point).

    Reads: the pairs and their original grade (set only for pools that keep judged pairs),
    every Debate of every job on the pool (with its job's agent models and prompt version),
    the review item of each debate, its live judgments (``undone_at`` empty) and its
    adjudication. Judgments of the users in ``exclude_annotators`` (user ids) are left out,
    as if never made. Returns one :class:`PoolLabel` per pair.
    """
    pairs = list(
        Pair.objects.filter(pool=pool).values_list(
            "pk",
            "query_id",
            "document_id",
            "query__query_id",
            "document__doc_id",
            "original_relevance",
        )
    )
    by_pair = _debate_evidence_by_pair(pool, exclude_annotators)
    out = [
        PoolLabel(
            query_pk,
            document_pk,
            final.resolve_final_label(
                final.PairEvidence(
                    query_id=query_id,
                    doc_id=doc_id,
                    original_grade=grade,
                    debates=tuple(by_pair.get(pair_pk, ())),
                )
            ),
        )
        for pair_pk, query_pk, document_pk, query_id, doc_id, grade in pairs
    ]
    out.sort(key=lambda p: (p.final.query_id, p.final.doc_id))
    return out


def _review_items(pool: Pool) -> dict[int, tuple[int, str, int, bool]]:
    """{debate pk: (review item pk, kind, judgments needed, over budget)} for the review
    items of debates of ``pool``'s pairs, in any job of the dataset. Over budget: the
    item's place among its job's items (``budget_rank``) is beyond the job's human budget,
    so no human will see it yet."""
    return {
        debate_id: (
            item_id,
            kind,
            needed,
            rank is not None and budget is not None and rank > budget,
        )
        for item_id, debate_id, kind, needed, rank, budget in ReviewItem.objects.filter(
            same_pair_in_pool(pool, "debate__")
        ).values_list(
            "pk",
            "debate_id",
            "kind",
            "judgments_needed",
            "budget_rank",
            "debate__job__human_budget",
        )
    }


def _live_judgments(
    pool: Pool, user: str, excluded: frozenset[int]
) -> dict[int, list[final.HumanJudgment]]:
    """{review item pk: its live judgments (not undone)} on review items of ``pool``'s pairs, each
    with the annotator's ``user`` field (the username); none by the ``excluded`` user ids."""
    judgments: dict[int, list[final.HumanJudgment]] = defaultdict(list)
    rows = Judgment.objects.filter(same_pair_in_pool(pool, "item__debate__"), undone_at=None)
    if excluded:
        rows = rows.exclude(annotator_id__in=excluded)
    for item_id, name, label, created in rows.values_list(
        "item_id", f"annotator__{user}", "label", "created"
    ):
        judgments[item_id].append(final.HumanJudgment(str(name), int(label), created))
    return judgments


def _adjudications(pool: Pool, user: str) -> dict[int, final.Adjudication]:
    """{review item pk: its adjudication} on review items of ``pool``'s pairs, with the admin's
    ``user`` field (the username)."""
    return {
        item_id: final.Adjudication(str(name), int(label), created)
        for item_id, name, label, created in Adjudication.objects.filter(
            same_pair_in_pool(pool, "item__debate__")
        ).values_list("item_id", f"admin__{user}", "label", "created")
    }


def _debate_evidence_by_pair(
    pool: Pool, excluded: frozenset[int] = frozenset()
) -> dict[int, list[final.DebateEvidence]]:
    """{pair pk: the evidence of every debate of every job on ``pool`` about that pair}: the
    debate, its job's agent models, prompt version and scale, where a reused label came
    from, and its review item's kind, live judgments, adjudication and place in the human
    budget; plus, as ``votes_only``, the reviewed debates of the same query and document in
    jobs on the dataset's other pools (:mod:`assess.refined.same_pairs`)."""
    user = _username_field()
    reviews = _review_items(pool)
    judgments = _live_judgments(pool, user, excluded)
    adjudications = _adjudications(pool, user)
    by_pair: dict[int, list[final.DebateEvidence]] = defaultdict(list)
    own = Debate.objects.filter(pair__pool=pool).values_list(*EVIDENCE_COLUMNS)
    elsewhere = list(reviewed_debates_elsewhere(pool).values_list(*EVIDENCE_COLUMNS))
    pair_ids = pool_pair_ids(pool) if elsewhere else {}
    tagged = chain(
        ((False, r) for r in own.iterator(chunk_size=BATCH_SIZE)), ((True, r) for r in elsewhere)
    )
    for votes_only, row in tagged:
        pk, pair_id, job_id, status, label, rnd, reason, finished, a, b, version, scale = row[:12]
        settled_by, stage0_hash, source, source_job, query_pk, document_pk = row[12:]
        models = final.provenance_models(a, b, settled_by=settled_by, stage0_hash=stage0_hash)
        item_id, kind, needed, over_budget = reviews.get(pk, (None, "", 1, False))
        by_pair[pair_ids[(query_pk, document_pk)] if votes_only else pair_id].append(
            final.DebateEvidence(
                debate_id=pk,
                job_id=job_id,
                status=status,
                final_label=label,
                consensus_round=rnd,
                escalation_reason=reason or "",
                models=models,
                prompt_version=version,
                finished=finished,
                review_kind=kind,
                judgments_needed=needed,
                judgments=tuple(judgments.get(item_id, ())) if item_id else (),
                adjudication=adjudications.get(item_id) if item_id else None,
                over_budget=over_budget,
                graded=scale == DebateJob.Scale.GRADED,
                settled_by=settled_by,
                reused_from=(source_job, source) if source is not None else None,
                votes_only=votes_only,
            )
        )
    return by_pair
