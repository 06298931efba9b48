"""Forms of the judging, adjudication and refined-list pages."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.db.models import Count, QuerySet

from corpora.models import Dataset, Pool, QrelSet

from .labels import DEFAULT_MAX_UNRESOLVED_SHARE
from .models import Refinement
from .refine import NAME_MAX, RefineError, refined_name_check
from .services import NOTE_MAX_CHARS

LABEL_CHOICES = [("1", "relevant"), ("0", "not relevant")]
SUFFIX_RE = re.compile(r"^(.+)-(\d+)$")


class JudgmentForm(forms.Form):
    """One submission from the judging page. ``client_id`` is made by the browser
    (``crypto.randomUUID``) so a re-send is recognised; ``seconds`` is the time on task."""

    client_id = forms.UUIDField()
    label = forms.TypedChoiceField(choices=LABEL_CHOICES, coerce=int)
    note = forms.CharField(required=False, max_length=NOTE_MAX_CHARS, strip=True)
    seconds = forms.FloatField(required=False)


class AdjudicationForm(forms.Form):
    """An admin's final label for a pair, with an optional note."""

    label = forms.TypedChoiceField(choices=LABEL_CHOICES, coerce=int, widget=forms.RadioSelect)
    note = forms.CharField(
        required=False, max_length=NOTE_MAX_CHARS, widget=forms.Textarea(attrs={"rows": 3})
    )


class RefinePoolField(forms.ModelChoiceField):
    """A pool of the dataset, shown with its pair count (``pair_count``, annotated)."""

    def label_from_instance(self, obj: Pool) -> str:
        return f"{obj.name} ({obj.pair_count:,} pairs)"


def refine_pools(*, dataset: Dataset) -> QuerySet[Pool]:
    """The dataset's pools, newest first, each with ``pair_count``."""
    return (
        Pool.objects.filter(dataset=dataset)
        .select_related("qrel_set")
        .annotate(pair_count=Count("pairs"))
        .order_by("-created", "-pk")
    )


def _name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a refined set's name (None if it can):
    :func:`assess.refine.refined_name_check`."""
    try:
        refined_name_check(name)
    except RefineError as exc:
        return str(exc)
    return None


def refined_name_suggest(*, pool: Pool) -> str:
    """A free name for the next refined set of ``pool``: the name of its newest refinement
    (or ``<original qrels>-dream-<pool>``) if free, else with a ``-2``, ``-3``... suffix
    (a series ``x``, ``x-2``, ``x-3`` continues at ``x-4``)."""
    taken = set(QrelSet.objects.filter(dataset_id=pool.dataset_id).values_list("name", flat=True))
    newest = (
        Refinement.objects.filter(pool=pool)
        .order_by("-created", "-pk")
        .values_list("qrel_set__name", flat=True)
        .first()
    )
    base = newest or f"{pool.qrel_set.name}-dream-{pool.name}"
    series = SUFFIX_RE.match(base)
    if newest and series and series.group(1) in taken:
        base = series.group(1)
    base = re.sub(r"[^-a-zA-Z0-9_.]+", "-", base).strip("-") or "refined"
    number = 1
    while True:
        suffix = f"-{number}" if number > 1 else ""
        name = base[: NAME_MAX - len(suffix)] + suffix
        if name not in taken and _name_problem(name) is None:
            return name
        number += 1


class RefineForm(forms.Form):
    """A new refined qrel set from one of ``dataset``'s pools (:func:`assess.refine.qrels_refine`).
    Unbound, it offers the newest pool and a free name for it."""

    pool = RefinePoolField(queryset=Pool.objects.none(), empty_label=None)
    name = forms.CharField(
        max_length=NAME_MAX,
        help_text="Letters, digits, '-', '_' or '.'; refined sets are never changed, so every "
        "refinement needs a new name.",
    )
    allow_partial = forms.BooleanField(
        required=False,
        initial=False,
        label="Allow partial",
        help_text=f"Refine even if more than {DEFAULT_MAX_UNRESOLVED_SHARE:.0%} of the pairs have "
        "no final label yet: the unresolved pairs stay unjudged and are listed as pending.",
    )

    def __init__(self, *args: Any, dataset: Dataset, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pools = refine_pools(dataset=dataset)
        self.fields["pool"].queryset = pools
        if not self.is_bound:
            newest = pools.first()
            if newest is not None:
                self.initial.setdefault("pool", newest.pk)
                self.initial.setdefault("name", refined_name_suggest(pool=newest))

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        problem = _name_problem(name)
        if problem:
            raise forms.ValidationError(problem)
        return name
