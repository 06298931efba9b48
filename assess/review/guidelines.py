"""Annotation guidelines: which version is in force for a pair, who confirmed it, and the
safe rendering of their Markdown.

(Skeleton: the functions below are the interface the judging views use.)
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from ..models import Guidelines, GuidelinesConfirmation, ReviewItem


def guidelines_for_item(*, item: ReviewItem) -> Guidelines | None:
    """The guidelines in force for ``item``'s pair: its job's newest version, else its
    dataset's newest, else the built-in default's newest; None when there are none."""
    if item.debate_id is not None:
        job_id = item.debate.job_id
        dataset_id = item.debate.job.pool.dataset_id
    else:
        job_id = item.gold.job_id
        dataset_id = item.gold.job.pool.dataset_id
    for scope in (
        Q(job_id=job_id),
        Q(dataset_id=dataset_id, job__isnull=True),
        Q(dataset__isnull=True, job__isnull=True),
    ):
        found = Guidelines.objects.filter(scope).order_by("-version").first()
        if found is not None:
            return found
    return None


def guidelines_confirmed(*, annotator: Any, guidelines: Guidelines) -> bool:
    """Whether ``annotator`` has confirmed this guidelines version."""
    return GuidelinesConfirmation.objects.filter(
        annotator=annotator, guidelines=guidelines
    ).exists()


def guidelines_render(text: str) -> str:
    """``text`` (Markdown) as sanitised HTML: no script, no event handlers, no styles."""
    from django.utils.html import escape, linebreaks

    return linebreaks(escape(text))
