"""Forms of the refined-list page."""

from __future__ import annotations

from typing import Any

from django import forms

from corpora.models import Dataset, Pool

from .labels import DEFAULT_MAX_UNRESOLVED_SHARE
from .refine import NAME_MAX
from .selectors import name_problem, refine_pools, refined_name_suggest


class RefinePoolField(forms.ModelChoiceField):
    """A pool of the dataset, shown with its pair count (``pair_count``, annotated)."""

    def label_from_instance(self, obj: Pool) -> str:
        return f"{obj.name} ({obj.pair_count:,} pairs)"


class RefineForm(forms.Form):
    """A new refined qrel set from one of ``dataset``'s pools
    (:func:`assess.refined.refine.qrels_refine`). Unbound, it offers the newest pool and a free name
    for it."""

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
