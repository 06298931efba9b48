"""Known-answer pairs in the review queue (database side of :mod:`assess.review.gold`).

- :func:`gold_pairs_draw` draws a job's gold pairs from its pool's original qrels, once, the
  first time an annotator of the job reaches a gold position (and again, adding only the
  missing ones, when the job's gold share grows);
- :func:`gold_item_claim` gives an annotator, at a gold position of their work on a job,
  their own review item of the next gold pair they have not judged. The judging page shows
  it as it shows an audit: the pair without the debate, nothing saying it is gold;
- :func:`gold_ahead` counts the gold pairs an annotator will still meet (the judging
  page's queue count; figures on annotators are in :mod:`assess.review.quality`).

The draw never takes a pair of the job's pool: that pair is judged as a debate's pair, and
one annotator must not meet one query and chunk twice in a job. A gold pair can still be a
pool pair when the pool was extended after the draw (``debate_job_extend`` debates the new
pairs) or when it was drawn before the draw left pool pairs out. For those, a gold pair
whose pair the annotator met as a debate's pair is passed over here
(:func:`gold_met_as_real`), and the claim passes over a debate's pair they were given as
gold (:mod:`assess.review.services`).

Gold items have no debate, so every query that reaches labels through ``debate`` (final
labels, refinements, exports, agreement between annotators, audits) never sees them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet

from corpora.models import Pair, Qrel, RunEntry
from debates.models import DebateJob

from ..models import GoldPair, Judgment, ReviewItem
from . import gold


def _pool_query_ids(job: DebateJob) -> list[int]:
    return list(
        Pair.objects.filter(pool_id=job.pool_id).values_list("query_id", flat=True).distinct()
    )


def _debated_query_ids(job: DebateJob) -> list[int]:
    # The queries the annotators of this job actually meet: a job limited to its first N
    # pairs debates only some of its pool's queries.
    return list(job.debates.values_list("pair__query_id", flat=True).distinct())


def _original_qrels(job: DebateJob):
    # Only the benchmark's own judgments are gold: rows a refinement added carry provenance.
    return Qrel.objects.filter(qrel_set_id=job.pool.qrel_set_id, provenance__isnull=True)


def gold_pairs_draw(*, job: DebateJob) -> int:
    """Draw ``job``'s gold pairs (:func:`assess.review.gold.gold_draw_size` of them for its
    share and pool) from the pool's qrel set, restricted to the queries the job debates (a
    gold pair on a query no real pair shows would tell itself apart): known
    positives (relevance >= 1, the grade capped at the job's top grade on a graded job),
    known negatives (relevance <= 0) and, when those are too few, cross-query negatives
    (:func:`assess.review.gold.cross_query_negatives`, on the debated queries too). When
    the debated queries hold no known positive (or no known negative), that side comes from
    the pool's other queries; a job without debates draws from the whole pool. No pair of
    the job's pool is drawn, on any side (a pool keeping judged pairs holds known ones too):
    the job judges it as a debate's pair. Returns the pairs created.

    Reproducible (draw keys from SHA-256) and idempotent: a second call, or one running
    alongside, creates nothing the first did (natural key, conflicts ignored). Records the
    share drawn for (``job.gold_drawn_at_share``), so a draw that found fewer pairs than it
    wanted is not repeated by every claim (:func:`gold_draw_due`).
    """
    size = gold.gold_draw_size(job.gold_share, job.pool.pairs.count())
    have = job.gold_pairs.count()
    DebateJob.objects.filter(pk=job.pk).update(gold_drawn_at_share=job.gold_share)
    job.gold_drawn_at_share = job.gold_share
    if size <= have:
        return 0
    debated = _debated_query_ids(job)
    query_pks = _pool_query_ids(job)
    positives, negatives = _known_candidates(job, debated)
    if not positives or not negatives:
        # Fallback, one side at a time: debated queries without a known positive (or
        # negative) take that side from the pool's other queries, so the job is still
        # measured on both sides; a job with no debates yet draws from its whole pool.
        pos_pool, neg_pool = _known_candidates(job, query_pks)
        positives = positives or pos_pool
        negatives = negatives or neg_pool
    if debated:
        query_pks = debated
    cross: list[gold.GoldCandidate] = []
    if len(negatives) < size // 2:
        cross = _cross_query(job, query_pks, size // 2 - len(negatives))
    chosen = gold.gold_candidates_choose(
        job_id=job.pk, positives=positives, negatives=negatives, cross_query=cross, size=size
    )
    return _gold_rows_write(job, chosen)


def _known_candidates(
    job: DebateJob, query_pks: list[int]
) -> tuple[list[gold.GoldCandidate], list[gold.GoldCandidate]]:
    """Known positives and negatives of the original qrels among ``query_pks``, leaving out
    the pairs of the job's pool."""
    top = job.max_grade if job.scale == DebateJob.Scale.GRADED else 1
    # A pool keeping judged pairs (an accuracy audit, an assessor sample) holds known pairs
    # too; those are the job's real pairs, so as gold they would reach an annotator twice.
    pooled = Pair.objects.filter(
        pool_id=job.pool_id, query_id=OuterRef("query_id"), document_id=OuterRef("document_id")
    )
    rows = list(
        _original_qrels(job)
        .filter(query_id__in=query_pks)
        .exclude(Exists(pooled))
        .values_list("query__query_id", "document__doc_id", "relevance")
    )
    positives = [
        gold.GoldCandidate(q, d, min(int(r), top), gold.POSITIVE) for q, d, r in rows if r >= 1
    ]
    negatives = [gold.GoldCandidate(q, d, 0, gold.NEGATIVE) for q, d, r in rows if r <= 0]
    return positives, negatives


def gold_draw_due(job: DebateJob) -> bool:
    """Whether ``job`` has not drawn its gold pairs for its current share yet."""
    return job.gold_share > 0 and job.gold_drawn_at_share != job.gold_share


def _cross_query(job: DebateJob, query_pks: list[int], size: int) -> list[gold.GoldCandidate]:
    dataset_qrels = _original_qrels(job).values_list(
        "query__query_id", "document__doc_id", "relevance"
    )
    relevant, judged = [], set()
    for q, d, r in dataset_qrels.iterator(chunk_size=5000):
        judged.add((q, d))
        if r >= 1:
            relevant.append((q, d))
    query_ids = list(
        job.pool.dataset.queries.filter(pk__in=query_pks).values_list("query_id", flat=True)
    )
    near = set(
        RunEntry.objects.filter(
            run__dataset_id=job.pool.dataset_id, query_id__in=query_pks, rank__lte=gold.NEAR_RANK
        ).values_list("query__query_id", "document__doc_id")
    )
    # Not all in ``near``: a pool deeper than NEAR_RANK holds pairs ranked below it.
    pooled = set(
        Pair.objects.filter(pool_id=job.pool_id, query_id__in=query_pks).values_list(
            "query__query_id", "document__doc_id"
        )
    )
    return gold.cross_query_negatives(
        job_id=job.pk,
        query_ids=query_ids,
        relevant=relevant,
        judged=judged,
        near=near,
        pooled=pooled,
        size=size,
    )


def _gold_rows_write(job: DebateJob, chosen: list[gold.GoldCandidate]) -> int:
    dataset = job.pool.dataset
    queries = dict(
        dataset.queries.filter(query_id__in={c.query_id for c in chosen}).values_list(
            "query_id", "pk"
        )
    )
    documents = dict(
        dataset.documents.filter(doc_id__in={c.doc_id for c in chosen}).values_list("doc_id", "pk")
    )
    rows = [
        GoldPair(
            job=job,
            query_id=queries[c.query_id],
            document_id=documents[c.doc_id],
            label=c.label,
            basis=c.basis,
            draw_key=gold.gold_draw_key(job.pk, c.query_id, c.doc_id),
        )
        for c in chosen
    ]
    before = GoldPair.objects.filter(job=job).count()
    GoldPair.objects.bulk_create(rows, ignore_conflicts=True)
    # bulk_create returns every row it was given, conflicts included: count instead.
    return GoldPair.objects.filter(job=job).count() - before


def _places(annotator: Any, job: DebateJob) -> tuple[int, int]:
    """``(place, given)``: ``annotator``'s place in their work on ``job`` (their live
    judgments of its debates' pairs plus every gold item they were given on it, judged or
    not) and how many gold items they were given. A gold place is used up when its item is
    made, so skipping a gold pair brings a real one next, as skipping any pair does (were
    it not, a skip followed by another pair without a debate would tell the gold apart, and
    skipping them all would escape being measured)."""
    judged = Judgment.objects.filter(
        item__debate__job=job, annotator=annotator, undone_at__isnull=True
    ).count()
    given = ReviewItem.objects.filter(gold__job=job, assigned_to=annotator).count()
    return judged + given, given


def _gold_due(annotator: Any, job: DebateJob) -> bool:
    """Whether the annotator's next pair on ``job`` is a gold one: fewer gold items given
    than gold places up to their current place. At their gold places when every one was
    served; one that went to a debate's pair (a page opened at a gold place inserts
    nothing) is made up at the next claim that may insert."""
    place, given = _places(annotator, job)
    return gold.gold_places_between(job.pk, annotator.pk, 0, place + 1, job.gold_share) > given


def gold_met_as_real(
    *,
    annotator: Any,
    job: DebateJob,
    exclude_ids: list[int] | tuple[int, ...] = (),
    now: datetime | None = None,
) -> QuerySet[GoldPair]:
    """``job``'s gold pairs whose query and chunk ``annotator`` already met as a debate's
    pair of ``job``: they judged its item (an undone judgment too: they saw it), skipped it
    in this session (``exclude_ids``: review item ids), or held its lease until it expired
    before ``now`` (``now`` None: leases are not looked at). Such a gold pair is never given
    to them: a pair seen twice would let them repeat their answer, or tell the gold apart."""
    met = Q(judgments__annotator=annotator) | Q(pk__in=list(exclude_ids))
    if now is not None:
        met |= Q(leased_to=annotator, lease_expires_at__lte=now)
    items = ReviewItem.objects.filter(
        met,
        debate__job=job,
        debate__pair__query_id=OuterRef("query_id"),
        debate__pair__document_id=OuterRef("document_id"),
    )
    return job.gold_pairs.filter(Exists(items))


def gold_item_claim(
    *,
    annotator: Any,
    job: DebateJob,
    expires: datetime,
    now: datetime,
    exclude_ids: list[int],
    create: bool = True,
) -> ReviewItem | None:
    """At a gold position of ``annotator``'s work on ``job``
    (:func:`assess.review.gold.gold_position` of their live judgments on it), lease them
    their review item of the next gold pair they have not judged (in their own order,
    :func:`assess.review.gold.annotator_gold_order`), creating the item if it is new.
    None when it is not a gold position, the job has no gold share, or every gold pair is
    judged, skipped (``exclude_ids``: review item ids skipped this session) or met as a
    debate's pair (:func:`gold_met_as_real`). Without
    ``create`` (a page being read) nothing is inserted: no draw, no new item; only an item
    the annotator already has (one they skipped before) may be leased, else None and the
    place goes to a debate's pair.
    """
    if job.gold_share <= 0 or not _gold_due(annotator, job):
        return None
    if gold_draw_due(job):
        if not create:
            return None
        # The first gold place of the job draws its pairs (once per share; a changed share
        # draws when it is set, assess.review.services.review_items_on_job_change).
        gold_pairs_draw(job=job)
    mine = dict(
        ReviewItem.objects.filter(gold__job=job, assigned_to=annotator).values_list("gold_id", "pk")
    )
    done = set(
        Judgment.objects.filter(
            item__gold__job=job, annotator=annotator, undone_at__isnull=True
        ).values_list("item__gold_id", flat=True)
    )
    skipped = set(exclude_ids)
    met = set(
        gold_met_as_real(
            annotator=annotator, job=job, exclude_ids=exclude_ids, now=now
        ).values_list("pk", flat=True)
    )
    ids = job.gold_pairs.values_list("pk", flat=True)
    for gold_id in gold.annotator_gold_order(job.pk, annotator.pk, ids):
        if gold_id in done or mine.get(gold_id) in skipped:
            continue
        if gold_id in met:
            continue
        if not create and mine.get(gold_id) is None:
            continue
        return _gold_item_lease(gold_id, annotator, mine.get(gold_id), expires, now)
    return None


def _gold_item_lease(
    gold_id: int, annotator: Any, item_id: int | None, expires: datetime, now: datetime
) -> ReviewItem:
    lease = {"leased_to": annotator, "lease_expires_at": expires, "claimed_at": now}
    if item_id is None:
        try:
            with transaction.atomic():
                item = ReviewItem.objects.create(
                    gold_id=gold_id,
                    assigned_to=annotator,
                    kind=ReviewItem.Kind.GOLD,
                    judgments_needed=1,
                    lease_active_seconds=0.0,
                    **lease,
                )
                return item
        except IntegrityError:
            # The same annotator's other tab made it a moment ago: lease that one.
            item_id = ReviewItem.objects.get(gold_id=gold_id, assigned_to=annotator).pk
    ReviewItem.objects.filter(pk=item_id).update(lease_active_seconds=0.0, **lease)
    return ReviewItem.objects.get(pk=item_id)


def gold_ahead(*, annotator: Any, job: DebateJob, real: int, now: datetime) -> int:
    """The gold pairs ``annotator`` will still meet on ``job`` while judging the ``real``
    debates' pairs left for them, plus the gold pair they hold now: what the judging page's
    queue count adds so that every answer, gold or not, lowers it by one
    (:func:`assess.review.gold.gold_places_ahead`). 0 without a gold share."""
    if job.gold_share <= 0:
        return 0
    mine = ReviewItem.objects.filter(gold__job=job, assigned_to=annotator)
    held = mine.filter(leased_to=annotator, lease_expires_at__gt=now, judgments_done__lt=1).exists()
    if gold_draw_due(job):  # not drawn yet: as many as the draw will hold at most
        drawn = gold.gold_draw_size(job.gold_share, job.pool.pairs.count())
    else:
        drawn = job.gold_pairs.count()
        if not drawn:  # a benchmark without known answers for these queries
            return 0
    place, given = _places(annotator, job)
    # Gold pairs this annotator met as debates' pairs are never given to them.
    met = gold_met_as_real(annotator=annotator, job=job, now=now).exclude(
        items__assigned_to=annotator
    )
    ahead = gold.gold_places_ahead(
        job.pk,
        annotator.pk,
        start=place,
        given=given,
        real=real,
        share=job.gold_share,
        available=max(0, drawn - mine.count() - met.count()),
    )
    return ahead + int(held)
