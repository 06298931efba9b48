"""People's answer on a pair, across jobs: a review item made for a pair people have already
answered takes that answer instead of asking them again.

Several jobs of a dataset may send one pair (a query and a document) to people: a second job
over the same pool draws its own audit, and reuses the escalations the first job's people
judged (:mod:`debates.services.reuse`). One annotator is never given a pair twice
(:mod:`assess.review.same_pair`), so once every annotator has judged a pair, another job's
item of it could wait for ever, and a Neyman audit's pilot with it. And people asked again
would only repeat an answer the refined qrels already merge (:mod:`assess.refined.labels`).

So an item **answered** elsewhere: when an audit item is made (or while it waits with no
judgment, no lease and no adjudication) for a pair whose answer people already gave on
another job's item, or an escalation item for a debate reused from an escalation people
answered, the item records that item (``ReviewItem.answered_by``) and wants no judgment
(``judgments_needed`` 0): nobody is asked, its job's audit figures read that item's label
(:func:`assess.review.human_labels.review_final_labels`) and its Neyman pilot does not wait
for it. An answer is an item of a debate of the same query and document, in any job of the
dataset on the same scale (binary, or graded with the same top grade), that is adjudicated
or has all its judgments and a majority (median grade) that decides; an adjudicated one
first, then the newest. A tie is no answer (:func:`decided_item_ids`): an item taking it
would ask nobody and hold no label, and the pairs people split on, the hardest, would leave
the audit without a word.

Why an audit may take it: whether a pair is audited is decided by its draw alone
(:func:`assess.review.agreement.audit_draw`, a hash of the job and pair), never by its
label or by whether people answered it, so the audited pairs stay a probability sample with
the stored inclusion probabilities, whoever gave their labels. An audit is judged blind to
the agents' consensus (:func:`assess.review.selectors.pair_view`) so that the person cannot
anchor on it; an answer taken from another job's escalation was given with that job's debate
in view, but an escalated debate is one whose agents did *not* agree: the person saw both
stances argued and no consensus, so there was none to anchor on. A fresh escalation (a debate
that disagreed in this job) is not concerned: it asks people as before, and the votes of
both jobs merge in the refined qrels.

If the answer goes away (an undone judgment, judgments that now tie, a deleted job), the
item is opened again at
the next sync (:func:`review_answers_refresh`), wanting its job's judgments per pair.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db.models import Case, F, Q, QuerySet, Value, When
from django.utils import timezone

from corpora.models import Pair
from debates.models import Debate, DebateJob

from ..models import ReviewItem
from .human_labels import debate_pairs, items_decided, label_combiner

# An item that may hold people's answer: adjudicated, or with all the judgments it wants (an
# item answered by another wants none and holds none, so it is no answer itself). Whether the
# judgments decide (no tie) is checked on the few rows this finds (decided_item_ids).
_ANSWERED = Q(adjudication__isnull=False) | Q(
    judgments_needed__gt=0, judgments_done__gte=F("judgments_needed")
)
_BATCH = 2000


def _same_scale(job: DebateJob) -> Q:
    """Items of jobs on ``job``'s scale: binary, or graded with the same top grade."""
    if job.scale == DebateJob.Scale.GRADED:
        return Q(debate__job__scale=job.scale, debate__job__max_grade=job.max_grade)
    return Q(debate__job__scale=job.scale)


def decided_item_ids(*, job: DebateJob, item_ids: Iterable[int]) -> set[int]:
    """The items of ``item_ids`` (of jobs on ``job``'s scale) whose people's answer gives a
    label: adjudicated, or with all their judgments and a majority (median grade on a graded
    job) that decides (:func:`assess.review.human_labels.items_decided`). A tie is no answer:
    an item taking it would hold no label, and pairs people split on are the hardest ones."""
    combine = label_combiner(job)
    ids = sorted(set(item_ids))
    found: set[int] = set()
    for start in range(0, len(ids), _BATCH):
        chunk = ReviewItem.objects.filter(pk__in=ids[start : start + _BATCH])
        found.update(items_decided(chunk, combine))
    return found


def answered_items(
    *, job: DebateJob, pairs: Iterable[tuple[int, int]], exclude_job: bool = True
) -> dict[tuple[int, int], int]:
    """``{(query pk, document pk): item id}``: for each pair of ``pairs`` that people have
    answered (module docstring: an adjudicated item first, then the newest whose judgments
    decide, :func:`decided_item_ids`, of a job of the dataset on ``job``'s scale), that item;
    ``exclude_job`` leaves ``job``'s own items out. Pairs nobody answered, or whose answers
    all tie, are not in it."""
    wanted = set(pairs)
    candidates: dict[tuple[int, int], list[tuple[bool, int]]] = {}
    queries = sorted({q for q, _ in wanted})
    for start in range(0, len(queries), _BATCH):
        rows = (
            ReviewItem.objects.filter(_ANSWERED, _same_scale(job), debate__isnull=False)
            .filter(debate__pair__query_id__in=queries[start : start + _BATCH])
            .values_list(
                "pk", "debate__pair__query_id", "debate__pair__document_id", "adjudication"
            )
        )
        if exclude_job:
            rows = rows.exclude(debate__job=job)
        for pk, query, document, adjudication in rows.iterator(chunk_size=_BATCH):
            if (query, document) in wanted:
                candidates.setdefault((query, document), []).append((adjudication is not None, pk))
    decided = decided_item_ids(job=job, item_ids=(pk for c in candidates.values() for _, pk in c))
    found = {
        pair: max((rank for rank in ranks if rank[1] in decided), default=None)
        for pair, ranks in candidates.items()
    }
    return {pair: rank[1] for pair, rank in found.items() if rank is not None}


def human_answered_pairs(*, job: DebateJob, pairs: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The pairs of ``pairs`` (query pk, document pk) people have answered on another job's
    item (:func:`answered_items`): given to :func:`debates.services.reuse.
    human_answers_register`, so that reuse leaves such an escalated pair to its people."""
    return set(answered_items(job=job, pairs=pairs))


def items_take_answers(*, job: DebateJob, items: Sequence[ReviewItem]) -> int:
    """Before ``items`` (new, unsaved items of ``job``'s debates) are saved: each audit item,
    and each escalation item of a debate reused from an earlier job, whose pair people have
    answered elsewhere takes that answer (``answered_by`` set, ``judgments_needed`` 0).
    Returns how many did."""
    concerned = [i for i in items if i.debate_id is not None and _may_take(i)]
    if not concerned:
        return 0
    reused = set(
        Debate.objects.filter(
            pk__in=[i.debate_id for i in concerned if i.kind == ReviewItem.Kind.ESCALATED],
            settled_by="reused",
        ).values_list("pk", flat=True)
    )
    concerned = [i for i in concerned if i.kind == ReviewItem.Kind.AUDIT or i.debate_id in reused]
    pair_of = debate_pairs(
        Debate.objects.filter(pk__in=[i.debate_id for i in concerned if i.debate_id is not None])
    )
    answers = answered_items(job=job, pairs=pair_of.values())
    taken = 0
    for item in concerned:
        source = answers.get(pair_of[item.debate_id or 0])
        if source is not None:
            item.answered_by_id, item.judgments_needed = source, 0
            taken += 1
    return taken


def _may_take(item: ReviewItem) -> bool:
    return item.kind in (ReviewItem.Kind.AUDIT, ReviewItem.Kind.ESCALATED)


def review_answers_refresh(*, job: DebateJob) -> tuple[int, int]:
    """Bring ``job``'s items in line with the answers people have given elsewhere: an audit
    item still untouched (no judgment, no live lease, no adjudication) whose pair was
    answered since takes that answer; an item whose answer went away (deleted, a judgment
    undone, or its judgments now tie) takes another answer of its pair, or is opened again
    wanting the job's judgments per pair. Returns (taken, opened)."""
    now = timezone.now()
    # Checked again by the write itself: an annotator may claim or judge the item meanwhile.
    still_untouched = Q(answered_by__isnull=True, judgments_done=0, judgments_needed__gt=0) & ~Q(
        lease_expires_at__gt=now
    )
    untouched = ReviewItem.objects.filter(
        still_untouched, debate__job=job, kind=ReviewItem.Kind.AUDIT, adjudication__isnull=True
    )
    taken = _take(job, untouched, still_untouched)
    # An answer goes away when it is deleted, loses a judgment, or its judgments now tie.
    held = ReviewItem.objects.filter(debate__job=job, judgments_needed=0)
    rows = list(held.values_list("pk", "answered_by_id"))
    still = decided_item_ids(job=job, item_ids=(source for _, source in rows if source))
    lost = held.filter(pk__in=[pk for pk, source in rows if source not in still])
    retaken = _take(job, lost, Q(judgments_needed=0))
    opened = lost.exclude(pk__in=retaken).update(
        answered_by=None, judgments_needed=job.judgments_per_pair
    )
    return len(taken), opened


def _take(job: DebateJob, items: QuerySet[ReviewItem], still: Q) -> list[int]:
    """Point each item of ``items`` whose pair people answered on another job's item at
    that item (``judgments_needed`` 0), when it still matches ``still`` as the UPDATE runs
    (one statement per batch, so a claim or a judgment made since the read wins); the ids
    of those that took one."""
    rows = list(items.values_list("pk", "debate_id"))
    if not rows:
        return []
    pair_of = debate_pairs(Debate.objects.filter(pk__in=[debate_id for _, debate_id in rows]))
    answers = answered_items(job=job, pairs=pair_of.values())
    chosen = {
        pk: answers[pair_of[debate_id]]
        for pk, debate_id in rows
        if pair_of.get(debate_id) in answers
    }
    ids, taken = sorted(chosen), []
    for start in range(0, len(ids), _BATCH):
        batch = ids[start : start + _BATCH]
        source = Case(*(When(pk=pk, then=Value(chosen[pk])) for pk in batch))
        ReviewItem.objects.filter(still, pk__in=batch).update(
            answered_by_id=source, judgments_needed=0
        )
        written = ReviewItem.objects.filter(pk__in=batch, judgments_needed=0)
        taken += [pk for pk, by in written.values_list("pk", "answered_by_id") if chosen[pk] == by]
    return taken


def pair_ids_answered(*, job: DebateJob, pair_ids: Iterable[int]) -> dict[int, int]:
    """``{pair id: answering item id}`` for the pairs of ``job``'s pool among ``pair_ids``
    that people answered on another job's item (:func:`answered_items`)."""
    rows = Pair.objects.filter(pk__in=list(pair_ids)).values_list("pk", "query_id", "document_id")
    pairs = {pk: (query, document) for pk, query, document in rows}
    answers = answered_items(job=job, pairs=pairs.values())
    return {pk: answers[pair] for pk, pair in pairs.items() if pair in answers}
