"""Forms of the refined-list page."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict, cast

from django import forms

from corpora.models import Dataset, Pool

from .labels import DEFAULT_MAX_UNRESOLVED_SHARE
from .refine import NAME_MAX
from .selectors import name_problem, refine_pool_default, refine_pools, refined_name_suggest

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class _PairCount(TypedDict):
    pair_count: int


class RefinePoolField(forms.ModelChoiceField):
    """A pool of the dataset, shown with its pair count (``pair_count``, annotated)."""

    def label_from_instance(self, obj: WithAnnotations[Pool, _PairCount]) -> str:
        return f"{obj.name} ({obj.pair_count:,} pairs)"


class RefineForm(forms.Form):
    """A new refined qrel set from one of ``dataset``'s pools
    (:func:`assess.refined.refine.qrels_refine`). Unbound, it offers the newest pool a debate job
    labelled (else the newest pool; :func:`.selectors.refine_pool_default`) and a free name
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

    exclude_flagged = forms.BooleanField(
        required=False,
        initial=False,
        label="Exclude flagged annotators",
        help_text="Leave out the judgments of annotators whose accuracy on known-answer pairs "
        "is under the floor (see Annotators); who was left out is recorded with the set.",
    )
    relevant_grade = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=127,
        initial=1,
        label="Relevant grade",
        help_text="The grade a binary 'relevant' label is written as (at most the original "
        "qrels' top grade; e.g. 2 on TREC DL, whose binary measures count grade 2 and up). "
        "Labels of graded jobs keep their grade.",
    )

    def __init__(self, *args: Any, dataset: Dataset, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pools = refine_pools(dataset=dataset)
        cast(RefinePoolField, self.fields["pool"]).queryset = pools
        if not self.is_bound:
            offered = refine_pool_default(pools=pools)
            if offered is not None:
                self.initial.setdefault("pool", offered.pk)
                self.initial.setdefault("name", refined_name_suggest(pool=offered))

    def clean_relevant_grade(self) -> int:
        # Left empty (or by a client that predates the field): binary "relevant" is grade 1.
        return self.cleaned_data.get("relevant_grade") or 1

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        problem = name_problem(name)
        if problem:
            raise forms.ValidationError(problem)
        return name
