"""Forms of the judging, adjudication and refined-list pages."""

from __future__ import annotations

from typing import Any

from django import forms

from corpora.models import Dataset, Pool

from .labels import DEFAULT_MAX_UNRESOLVED_SHARE
from .refine import NAME_MAX
from .selectors import name_problem, refine_pools, refined_name_suggest
from .services import NOTE_MAX_CHARS

LABEL_CHOICES = [("1", "relevant"), ("0", "not relevant")]


class JudgmentForm(forms.Form):
    """One submission from the judging page. ``client_id`` is made by the browser
    (``crypto.randomUUID``) so a re-send is recognised; ``seconds`` is the time on task."""

    client_id = forms.UUIDField()
    label = forms.TypedChoiceField(choices=LABEL_CHOICES, coerce=int)
    note = forms.CharField(required=False, max_length=NOTE_MAX_CHARS, strip=True)
    seconds = forms.FloatField(required=False)


class UndoForm(forms.Form):
    """An undo from the judging page: ``undo`` is the ``client_id`` of the judgment to undo,
    which the page carries (empty when it knows of none), so a re-sent undo names the same
    judgment and cannot undo the one before it."""

    undo = forms.UUIDField(required=False)


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
        problem = name_problem(name)
        if problem:
            raise forms.ValidationError(problem)
        return name
