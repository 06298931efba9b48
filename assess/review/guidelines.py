"""Annotation guidelines: which version is in force for a pair, who confirmed it, new
versions and confirmations, and the safe rendering of their Markdown.

Scopes, most specific first: a debate job's guidelines, its dataset's, the built-in default
(``dataset`` and ``job`` empty; version 1 is stored by migration 0010 from
:data:`assess.review.default_guidelines.DEFAULT_GUIDELINES_TEXT`). The newest version of the
most specific scope that has any is in force. Rows are never edited: a new text is a new row
with the next version of its scope, so every annotator confirms it again before judging
under it, and a judgment names the exact text its annotator had confirmed.

Selectors: :func:`guidelines_for_item`, :func:`guidelines_in_force`, :func:`guidelines_current`,
:func:`guidelines_history`, :func:`guidelines_confirmed`. Services: :func:`guidelines_create`,
:func:`guidelines_confirm`. Rendering: :func:`guidelines_render` (pure, :mod:`.markdown`).
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q, QuerySet

from core.text import text_storable
from corpora.models import Dataset
from debates.models import DebateJob

from ..models import Guidelines, GuidelinesConfirmation, ReviewItem
from .markdown import markdown_safe_html

__all__ = [
    "MAX_GUIDELINES_CHARS",
    "GuidelinesError",
    "guidelines_confirm",
    "guidelines_confirmed",
    "guidelines_create",
    "guidelines_current",
    "guidelines_for_item",
    "guidelines_history",
    "guidelines_in_force",
    "guidelines_render",
]

# Long enough for a manual with many worked examples; short enough to read before judging
# and to render on every judging page.
MAX_GUIDELINES_CHARS = 50_000
# Two admins saving at the same moment both compute the same next version; the unique
# constraint refuses the second, which then tries the version after.
_CREATE_ATTEMPTS = 5


class GuidelinesError(ValueError):
    """Guidelines that cannot be stored; the message says why (shown to the admin as is)."""


def _scope(*, dataset: Dataset | None, job: DebateJob | None) -> Q:
    if job is not None:
        return Q(job=job)
    if dataset is not None:
        return Q(dataset=dataset, job__isnull=True)
    return Q(dataset__isnull=True, job__isnull=True)


def guidelines_current(
    *, dataset: Dataset | None = None, job: DebateJob | None = None
) -> Guidelines | None:
    """The newest version of exactly this scope (``job``'s if given, else ``dataset``'s,
    else the default's), without falling back to a wider one; None when it has none."""
    return Guidelines.objects.filter(_scope(dataset=dataset, job=job)).order_by("-version").first()


def guidelines_in_force(
    *, dataset: Dataset | None, job: DebateJob | None = None
) -> Guidelines | None:
    """The guidelines an annotator judges ``job``'s (or ``dataset``'s) pairs under: the job's
    newest version, else the dataset's newest (the job's dataset when ``job`` is given),
    else the default's newest; None when there are none at all."""
    if job is not None:
        found = guidelines_current(job=job) or guidelines_current(dataset=job.pool.dataset)
    elif dataset is not None:
        found = guidelines_current(dataset=dataset)
    else:
        found = None
    return found or guidelines_current()


def guidelines_for_item(*, item: ReviewItem) -> Guidelines | None:
    """The guidelines in force for ``item``'s pair (:func:`guidelines_in_force` of the job
    the item belongs to, through its debate or its gold pair); None when there are none."""
    source = item.debate if item.debate is not None else item.gold
    if source is None:  # the model's check constraint rules this out
        raise ValueError(f"review item {item.pk} has neither a debate nor a gold pair")
    job_id = source.job_id
    dataset_id = source.job.pool.dataset_id
    # By ids, in at most three small queries: this runs for every pair the page shows.
    for scope in (
        Q(job_id=job_id),
        Q(dataset_id=dataset_id, job__isnull=True),
        Q(dataset__isnull=True, job__isnull=True),
    ):
        found = Guidelines.objects.filter(scope).order_by("-version").first()
        if found is not None:
            return found
    return None


def guidelines_history(
    *, dataset: Dataset | None = None, job: DebateJob | None = None
) -> QuerySet[Guidelines]:
    """Every version of exactly this scope, newest first, each annotated with
    ``confirmed_by`` (how many annotators confirmed it) and with its author loaded."""
    return (
        Guidelines.objects.filter(_scope(dataset=dataset, job=job))
        .select_related("created_by")
        .annotate(confirmed_by=Count("confirmations", distinct=True))
        .order_by("-version")
    )


def guidelines_confirmed(*, annotator: Any, guidelines: Guidelines) -> bool:
    """Whether ``annotator`` has confirmed this guidelines version (an earlier version's
    confirmation does not count)."""
    return GuidelinesConfirmation.objects.filter(
        annotator=annotator, guidelines=guidelines
    ).exists()


def guidelines_render(text: str) -> str:
    """``text`` (Markdown) as sanitised HTML: no script, no event handlers, no styles, links
    to http, https and mailto only (:func:`assess.review.markdown.markdown_safe_html`)."""
    return markdown_safe_html(text)


def _checked_text(text: str) -> str:
    text = text_storable(text)
    if not text.strip():
        raise GuidelinesError("Not saved: the guidelines are empty; write what annotators read.")
    if len(text) > MAX_GUIDELINES_CHARS:
        raise GuidelinesError(
            f"Not saved: the guidelines are {len(text):,} characters long; at most "
            f"{MAX_GUIDELINES_CHARS:,}."
        )
    return text


def guidelines_create(
    *,
    text: str,
    dataset: Dataset | None = None,
    job: DebateJob | None = None,
    user: Any,
) -> Guidelines:
    """Store ``text`` (Markdown) as the next version of the guidelines of ``job``, else of
    ``dataset``, else of the built-in default, written by ``user`` (None for the system).

    NUL and lone surrogates are replaced (:func:`core.text.text_storable`). When ``text``
    equals the scope's current version, nothing is stored and that version is returned, so
    a re-sent form asks nobody to confirm again. Raises :class:`GuidelinesError` (a
    ValueError) for an empty or blank text, a text over :data:`MAX_GUIDELINES_CHARS`, or
    both a dataset and a job (a job's guidelines belong to the job alone).
    """
    if dataset is not None and job is not None:
        raise GuidelinesError("Guidelines belong to a dataset or to a job, not to both.")
    text = _checked_text(text)
    scope = _scope(dataset=dataset, job=job)
    for _ in range(_CREATE_ATTEMPTS):
        current = Guidelines.objects.filter(scope).order_by("-version").first()
        if current is not None and current.text == text:
            return current
        newest = Guidelines.objects.filter(scope).aggregate(v=Max("version"))["v"] or 0
        try:
            with transaction.atomic():
                return Guidelines.objects.create(
                    dataset=dataset, job=job, version=newest + 1, text=text, created_by=user
                )
        except IntegrityError:
            continue  # another version was stored meanwhile: count again
    raise GuidelinesError("Not saved: others kept saving new versions; try again.")


def guidelines_confirm(*, annotator: Any, guidelines: Guidelines) -> GuidelinesConfirmation:
    """Record that ``annotator`` read and confirmed this version; idempotent (a second
    confirmation, also a concurrent one, returns the first). Returns the confirmation."""
    confirmation, _ = GuidelinesConfirmation.objects.get_or_create(
        annotator=annotator, guidelines=guidelines
    )
    return confirmation
