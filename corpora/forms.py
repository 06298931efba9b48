"""Forms of the dataset pages' admin actions: upload a benchmark, a qrels file or a TREC
run; start a built-in run; build a pool. Each carries the options of the equivalent command
(``import_beir``, ``import_qrels``, ``import_run``, ``retrieve``, ``build_pool``); the
services behind them check the files themselves, with the commands' messages."""

from __future__ import annotations

from typing import Any

from django import forms

from core.fields import NameField, StorableCharField, TitleField

from .models import Dataset, Pool, QrelSet, Run
from .pool_strategies import MAX_BUDGET, budget_read
from .retrieval import BM25_B, BM25_K1
from .selectors import qrel_set_original_default

UNKNOWN_IDS = [("reject", "reject the file"), ("drop", "drop those rows, counted")]
DUPLICATES = [
    ("", "reject the file"),
    ("keep-last", "keep the last"),
    ("keep-max", "keep the highest"),
]


class BeirUploadForm(forms.Form):
    """A benchmark: one BEIR archive, or its corpus, queries and one qrels split."""

    name = TitleField(max_length=200)
    slug = NameField(required=False, label="Slug", help_text="Empty: made from the name.")
    source = StorableCharField(max_length=500, required=False, help_text="Where it comes from.")
    licence = StorableCharField(max_length=200, required=False)
    archive = forms.FileField(
        required=False,
        help_text="A .zip or .tar.gz of a BEIR folder (corpus.jsonl, queries.jsonl, qrels/*.tsv).",
    )
    corpus = forms.FileField(required=False, help_text="Or: corpus.jsonl[.gz]")
    queries = forms.FileField(required=False, help_text="queries.jsonl[.gz]")
    qrels = forms.FileField(required=False, help_text="one qrels .tsv (BEIR)")
    split = NameField(
        initial="test", required=False, label="Split", help_text="The qrels' split name."
    )
    on_duplicate = forms.ChoiceField(
        choices=DUPLICATES, required=False, label="Duplicate qrels rows"
    )
    unknown_ids = forms.ChoiceField(
        choices=UNKNOWN_IDS, initial="reject", label="Qrels rows naming unknown ids"
    )
    identical_ids = forms.ChoiceField(
        choices=[("", "as BEIR does for this benchmark"), ("exclude", "exclude"), ("keep", "keep")],
        required=False,
        label="A query's own document",
    )

    def files_given(self) -> dict[str, Any]:
        """The uploaded files by field name (only those given)."""
        names = ("archive", "corpus", "queries", "qrels")
        return {n: self.cleaned_data[n] for n in names if self.cleaned_data.get(n)}

    def params(self) -> dict[str, Any]:
        """The import options, as the operation stores them."""
        data = self.cleaned_data
        keys = ("name", "slug", "source", "licence", "on_duplicate", "unknown_ids", "identical_ids")
        return {**{k: data.get(k) or "" for k in keys}, "split": data.get("split") or "test"}


class QrelsUploadForm(forms.Form):
    name = NameField(label="Qrel set name")
    qrels = forms.FileField(label="Qrels file")
    fmt = forms.ChoiceField(choices=[("trec", "TREC qrels"), ("beir", "BEIR TSV")], label="Format")
    on_duplicate = forms.ChoiceField(choices=DUPLICATES, required=False, label="Duplicate rows")
    unknown_ids = forms.ChoiceField(choices=UNKNOWN_IDS, initial="reject", label="Unknown ids")


class RunUploadForm(forms.Form):
    run = forms.FileField(label="TREC run file")
    name = NameField(required=False, label="Run name", help_text="Empty: the file's run tag.")
    system = StorableCharField(max_length=500, required=False)
    unknown_ids = forms.ChoiceField(choices=UNKNOWN_IDS, initial="reject", label="Unknown ids")


class RetrieveForm(forms.Form):
    retriever = forms.ChoiceField(choices=[("bm25", "BM25"), ("dense", "dense (all-MiniLM-L6-v2)")])
    k = forms.IntegerField(min_value=1, max_value=10_000, initial=100, label="Top k per query")
    queries = forms.ChoiceField(label="Queries of")
    name = NameField(required=False, label="Run name", help_text="Empty: the retriever's name.")
    k1 = forms.FloatField(
        required=False,
        min_value=0,
        max_value=10,
        label="BM25 k1",
        help_text=f"BM25 only; empty: {BM25_K1}.",
    )
    b = forms.FloatField(
        required=False,
        min_value=0,
        max_value=1,
        label="BM25 b",
        help_text=f"BM25 only; empty: {BM25_B}.",
    )

    def __init__(self, *args: Any, dataset: Dataset, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = list(dataset.qrel_sets.order_by("name").values_list("name", flat=True))
        choices = [(n, f"qrel set {n}") for n in names] + [("all", "all queries")]
        self.fields["queries"].choices = choices  # type: ignore[attr-defined]
        # The benchmark's own judged queries, not a refined set's that sorts first by name.
        original = qrel_set_original_default(dataset=dataset)
        if original is not None:
            self.fields["queries"].initial = original.name


class PoolForm(forms.Form):
    qrels = forms.ModelChoiceField(
        queryset=QrelSet.objects.none(), to_field_name="name", label="Qrel set"
    )
    runs = forms.ModelMultipleChoiceField(
        queryset=Run.objects.none(), to_field_name="name", widget=forms.CheckboxSelectMultiple
    )
    depth = forms.IntegerField(min_value=1, max_value=1000, initial=10, label="Pool depth")
    include_judged = forms.BooleanField(required=False, label="Keep judged pairs (re-assess them)")
    name = NameField(
        required=False, label="Pool name", help_text="Empty: made from the qrel set and depth."
    )
    queries = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Only these query ids (one per line); empty: every judged query.",
    )
    strategy = forms.ChoiceField(
        choices=Pool.Strategy.choices,
        initial=Pool.Strategy.DEPTH,
        label="Judging order",
        help_text="Depth judges every pair; the others order the pairs so a budget is spent "
        "where the ranking needs it (bandit and mtc learn from labels as they arrive).",
    )
    budget = forms.FloatField(
        required=False,
        min_value=0.0001,
        max_value=MAX_BUDGET,
        label="Budget",
        help_text="Pairs to judge at most: a number, or below 1 a share of the pool (0.6); "
        "empty: every pair.",
    )

    def clean_budget(self) -> float | None:
        """The budget as typed (:func:`~corpora.pool_strategies.budget_read`): an int count,
        a float share below 1; "1.0" or "2.5" refused, "1" one pair."""
        budget = self.cleaned_data.get("budget")
        if budget is None:
            return None
        typed = self.data.get(self.add_prefix("budget"))  # text from a browser
        if isinstance(typed, bool) or not isinstance(typed, (str, int, float)):
            typed = budget
        try:
            return budget_read(typed, leave="leave the field empty")
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None

    def __init__(self, *args: Any, dataset: Dataset, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        qrel_sets = dataset.qrel_sets.order_by("name")
        self.fields["qrels"].queryset = qrel_sets  # type: ignore[attr-defined]
        # The benchmark's own test split if it has one, as the commands default to.
        names = [q.name for q in qrel_sets]
        self.fields["qrels"].initial = "test" if "test" in names else next(iter(names), None)
        runs = dataset.runs.filter(status=Run.Status.DONE).order_by("name")
        self.fields["runs"].queryset = runs  # type: ignore[attr-defined]
        # Every finished run starts ticked: a pool of all the runs is the usual one, and the
        # box is then never empty by oversight.
        self.fields["runs"].initial = [r.name for r in runs]

    def params(self) -> dict[str, Any]:
        data = self.cleaned_data
        queries = [q.strip() for q in (data.get("queries") or "").splitlines() if q.strip()]
        return {
            "qrels": data["qrels"].name,
            "runs": [r.name for r in data["runs"]],
            "depth": data["depth"],
            "include_judged": data["include_judged"],
            "name": data.get("name") or "",
            "queries": queries or None,
            "strategy": data.get("strategy") or Pool.Strategy.DEPTH,
            "budget": data.get("budget"),
        }
