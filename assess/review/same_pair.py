"""One annotator, one judgment per query and chunk, whatever job the pair comes from.

Two jobs of a dataset may both send one pair (a query and a document) to humans: a second
job over an overlapping pool, a job debating again with a new model. Each has its own review
item, but an annotator asked the same question twice could only repeat or contradict
themselves, and refinement merges every human vote on the pair anyway
(:mod:`assess.refined.labels`). So an annotator who judged a pair on one item (a live
judgment, or one sent back for re-judging, as on one item) is never given the pair's other
items: the claim statement's :data:`JUDGED_ELSEWHERE_SQL`, the status line's
:func:`judged_elsewhere` and the judging refusal :func:`judged_elsewhere_exists` all say so.
Known-answer items (no debate) are not concerned: the gold draw keeps away from pool pairs.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from ..models import Judgment, ReviewItem

#: A condition of the claim statement (its candidate item aliased ``r``; one parameter, the
#: annotator's id): no item of another debate of the same query and document holds a
#: judgment of the annotator, live or sent back. Index lookups only (pairs by query, debates
#: by pair, items by debate, judgments by item).
JUDGED_ELSEWHERE_SQL = """
           AND NOT EXISTS (SELECT 1 FROM debates_debate d
                             JOIN corpora_pair p ON p.id = d.pair_id
                             JOIN corpora_pair p2 ON p2.query_id = p.query_id
                                  AND p2.document_id = p.document_id
                             JOIN debates_debate d2 ON d2.pair_id = p2.id
                             JOIN assess_reviewitem r2 ON r2.debate_id = d2.id
                             JOIN assess_judgment j2 ON j2.item_id = r2.id
                                  AND j2.annotator_id = %s
                                  AND (j2.undone_at IS NULL OR j2.returned)
                            WHERE d.id = r.debate_id AND r2.id <> r.id)"""

#: The judgments that keep their annotator from the pair's other items: live ones, and those
#: sent back for re-judging (which stay the annotator's, as on one item).
COUNTED = Q(undone_at__isnull=True) | Q(returned=True)


def judged_elsewhere(annotator: Any) -> QuerySet[Judgment]:
    """For ``Exists`` over debates' review items: ``annotator``'s judgments (live or sent
    back) on another item of the outer item's query and document."""
    return (
        Judgment.objects.filter(COUNTED, annotator=annotator)
        .filter(
            item__debate__pair__query_id=OuterRef("debate__pair__query_id"),
            item__debate__pair__document_id=OuterRef("debate__pair__document_id"),
        )
        .exclude(item_id=OuterRef("pk"))
    )


def judged_elsewhere_exists(*, item: ReviewItem, annotator: Any) -> bool:
    """Whether ``annotator`` judged ``item``'s query and document on another item (of any job
    of the dataset); False for a known-answer item (no debate)."""
    if item.debate_id is None:
        return False
    return (
        ReviewItem.objects.filter(pk=item.pk).filter(Exists(judged_elsewhere(annotator))).exists()
    )
