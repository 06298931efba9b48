"""The human label of a job's review items: the majority (median grade on a graded job) of
an item's live judgments once it has all it needs, or an admin's adjudication, which wins.
Read by the audit's figures (:mod:`assess.review.selectors`) and its allocation
(:mod:`assess.review.audit`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from django.db.models import F, QuerySet

from debates.models import Debate, DebateJob

from ..models import Adjudication, Judgment, ReviewItem
from . import agreement


def debate_pairs(debates: QuerySet[Debate]) -> dict[int, tuple[int, int]]:
    """``{debate id: (query pk, document pk)}`` of ``debates`` (any filtered queryset of
    :class:`Debate`), read in chunks so that a job of 100,000 debates is never held as model
    objects. The one place that maps a debate to its pair for the review's label readers."""
    rows = debates.values_list("pk", "pair__query_id", "pair__document_id")
    return {pk: (query, document) for pk, query, document in rows.iterator(chunk_size=5000)}


def live_labels(items) -> dict[int, list[tuple[int, int]]]:
    """``{item id: [(annotator id, label), ...]}`` of live judgments, oldest first."""
    rows = (
        Judgment.objects.filter(item__in=items, undone_at__isnull=True)
        .order_by("created", "pk")
        .values_list("item_id", "annotator_id", "label")
    )
    out: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for item_id, annotator_id, label in rows:
        out[item_id].append((annotator_id, label))
    return out


def review_final_labels(
    *, job: DebateJob, items: QuerySet[ReviewItem] | None = None
) -> dict[int, tuple[int, str]]:
    """The human label of each decided review item of ``job``: ``{debate id: (label, source)}``;
    of ``items`` only when given (a subset of the job's review items, so that a report on a few
    items does not read the whole job's judgments).

    ``source`` is "adjudication" (an admin's label, which wins) or "human" (the majority of
    the live judgments, once the item has all it needs; the median grade on a graded job,
    :func:`assess.review.agreement.median_grade`). An item that took another job's answer
    on its pair (``answered_by``, :mod:`assess.review.answered`) has that item's label, with
    its source. Items still open, or whose judgments tie, are left out.
    """
    combine = label_combiner(job)
    items = ReviewItem.objects.filter(debate__job=job) if items is None else items
    own = items_decided(items, combine)
    debate_of = dict(items.filter(pk__in=list(own)).values_list("pk", "debate_id"))
    out = {debate_of[item_id]: decided for item_id, decided in own.items()}
    for debate_id, decided in answers_taken(items, combine).items():
        out.setdefault(debate_id, decided)
    return out


def answers_taken(items, combine) -> dict[int, tuple[int, str]]:
    """``{debate id: (label, source)}`` of the items of ``items`` (a ReviewItem queryset)
    that took people's answer on their pair from another job's item (``answered_by``,
    :mod:`assess.review.answered`): that item's label (:func:`items_decided` with
    ``combine``), when it still has one."""
    taken = list(
        items.filter(answered_by__isnull=False, judgments_needed=0).values_list(
            "debate_id", "answered_by_id"
        )
    )
    if not taken:
        return {}
    sources = items_decided(ReviewItem.objects.filter(pk__in=[s for _, s in taken]), combine)
    return {debate_id: sources[source] for debate_id, source in taken if source in sources}


def label_combiner(job: DebateJob) -> Callable[[Sequence[int]], int | None]:
    """How ``job``'s judgments of one item make its label: the median grade on a graded job
    (:func:`assess.review.agreement.median_grade`), else the strict majority
    (:func:`assess.review.agreement.majority_label`); None for a tie."""
    if job.scale == DebateJob.Scale.GRADED:
        return agreement.median_grade
    return agreement.majority_label


def items_decided(items, combine) -> dict[int, tuple[int, str]]:
    """``{item id: (label, "adjudication" or "human")}`` of the decided items of ``items``
    (a ReviewItem queryset): an adjudication's label, else, once an item has all its
    judgments, ``combine`` (majority, or median grade) of its live ones; a tie left out."""
    out = {
        item_id: (label, "adjudication")
        for item_id, label in Adjudication.objects.filter(item__in=items).values_list(
            "item_id", "label"
        )
    }
    complete = items.filter(judgments_done__gte=F("judgments_needed"), judgments_needed__gt=0)
    for item_id, labels in live_labels(complete.exclude(pk__in=list(out))).items():
        label = combine([label for _, label in labels])
        if label is not None:
            out[item_id] = (label, "human")
    return out


def dataset_human_labels(*, dataset, relevance_level: int = 1) -> dict[tuple[int, int], int]:
    """The binary human label of every decided review item on ``dataset``'s pairs, for
    stage 0 (:func:`debates.stage0.stage0_human_labels_register`): ``{(query pk, document
    pk): 1 or 0}``. A binary job's label as it is; a graded job's grade relevant when it is
    >= ``relevance_level``. A pair decided in several jobs keeps the newest job's label."""
    out: dict[tuple[int, int], int] = {}
    jobs = DebateJob.objects.filter(pool__dataset=dataset).order_by("pk")
    for job in jobs:
        labels = review_final_labels(job=job)
        if not labels:
            continue
        level = relevance_level if job.scale == DebateJob.Scale.GRADED else 1
        pairs = debate_pairs(job.debates.filter(pk__in=list(labels)))
        for debate_id, pair in pairs.items():
            out[pair] = 1 if labels[debate_id][0] >= level else 0
    return out
