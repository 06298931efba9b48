"""The original label an annotator sees once they have answered a check of the qrels.

A check-judged job (:mod:`debates.check_judged`) sends humans the judged pairs whose
consensus contradicts the original qrels grade. The judging page shows such a pair as an
audit is shown, without the debate and without the original grade, so the human's answer is
independent of both; only the answer saved, the page says what the qrels had said. No other
pair ever shows an original grade: a known-answer (gold) pair is a qrels pair too, and
showing its grade would mark it as gold.
"""

from __future__ import annotations

from ..models import Judgment, ReviewItem


def judgment_original_label(*, judgment: Judgment | None) -> int | None:
    """The original qrels grade of the pair ``judgment`` answered, when its review item
    belongs to a check-judged job (the grade as the qrels hold it, e.g. 0, 1 or 2); None
    for no judgment, a gold item, any other job's item, or an unjudged pair."""
    if judgment is None:
        return None
    return (
        ReviewItem.objects.filter(pk=judgment.item_id, debate__job__check_judged=True)
        .values_list("debate__pair__original_relevance", flat=True)
        .first()
    )
