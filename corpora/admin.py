"""Admin pages for benchmarks, runs and pools.

Runs, their entries, pools, pairs and provenance rows are read-only here: a run is built by
``retrieve`` or ``import_run`` and a pool by ``build_pool`` (:func:`corpora.services.pool_build`),
and a pool's pairs, their provenance and the debates about them depend on exactly those rows
(editing a pool's depth from 2 to 1 would leave pairs ranked 2). Deleting stays possible where
the database allows it (a pooled run is protected by its provenance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.utils.html import format_html_join

from .models import (
    Dataset,
    Document,
    ImportRecord,
    Pair,
    PairSource,
    Pool,
    Qrel,
    QrelSet,
    Query,
    Run,
    RunEntry,
)

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class _PairCount(TypedDict):
    pair_count: int


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "licence", "exclude_identical_ids", "created"]
    search_fields = ["slug", "name", "source"]
    prepopulated_fields = {"slug": ["name"]}
    # The counts are measured at import; "exclude identical ids" is the setting an admin may
    # change (it applies to retrievals, pools and evaluations made from then on).
    readonly_fields = ["identical_ids", "identical_texts"]


class WholeSetRowsAdmin(admin.ModelAdmin):
    """Rows written once and never changed (a dataset's documents and queries, a qrel set's
    judgments, a refinement and its provenance): listed and shown, never added, edited or
    deleted one by one; they go only with their whole qrel set or dataset.

    Every qrel set is immutable, imported as much as refined: exports are cached under the
    set's id (:func:`assess.refined.exports.export_key`) and re-benchmarks under its id and creation
    time, so one edited row would leave a download, its sha256 and the tables out of date.
    A corrected benchmark is imported, or refined, as a new set. Documents and queries are
    held to the same rule: the disagreements CSV and the RAG prompts show their text, and
    pools and debates were made from it.

    Deleting the whole set (or its dataset) asks this admin about each row it takes along,
    so ``has_delete_permission`` stays true for a given row; the row's own delete page and
    the changelist's delete action are refused instead (403, nothing deleted).
    """

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        # Without a row this is the changelist's bulk delete action: never.
        return obj is not None and super().has_delete_permission(request, obj)

    def delete_view(self, request, object_id, extra_context=None):
        raise PermissionDenied(
            f"{self.model._meta.verbose_name} rows are deleted only with their whole set or dataset"
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), "show_delete": False}
        )


@admin.register(Document)
class DocumentAdmin(WholeSetRowsAdmin):
    list_display = ["doc_id", "dataset", "title"]
    list_filter = ["dataset"]
    search_fields = ["doc_id", "title", "text"]
    list_select_related = ["dataset"]
    show_full_result_count = False


@admin.register(Query)
class QueryAdmin(WholeSetRowsAdmin):
    list_display = ["query_id", "dataset", "text"]
    list_filter = ["dataset"]
    search_fields = ["query_id", "text"]
    list_select_related = ["dataset"]


@admin.register(QrelSet)
class QrelSetAdmin(admin.ModelAdmin):
    """Qrel sets are made by the import commands and ``refine`` and never changed
    (:class:`WholeSetRowsAdmin` says why): shown read-only; a whole set may be deleted, taking
    its rows, refinement, provenance and export files along."""

    list_display = ["name", "dataset", "origin", "duplicate_policy", "created"]
    list_filter = ["dataset", "origin"]
    search_fields = ["name", "dataset__slug"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Qrel)
class QrelAdmin(WholeSetRowsAdmin):
    list_display = ["qrel_set", "query", "document", "relevance"]
    list_filter = ["qrel_set"]
    search_fields = ["query__query_id", "document__doc_id"]
    list_select_related = ["qrel_set__dataset", "query", "document"]
    raw_id_fields = ["query", "document"]
    show_full_result_count = False


@admin.register(ImportRecord)
class ImportRecordAdmin(admin.ModelAdmin):
    list_display = ["dataset", "kind", "path", "seconds", "created"]
    list_filter = ["kind", "dataset"]
    search_fields = ["path", "dataset__slug"]


class ViewOnlyAdmin(admin.ModelAdmin):
    """Rows that only their service creates and never changes: listed and shown, deletable,
    but neither added nor edited in the admin (a change form POST is refused with 403)."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Run)
class RunAdmin(ViewOnlyAdmin):
    list_display = ["name", "dataset", "source", "status", "system", "seconds", "created"]
    list_filter = ["dataset", "source", "status"]
    search_fields = ["name", "system", "dataset__slug"]
    readonly_fields = ["created"]


@admin.register(RunEntry)
class RunEntryAdmin(ViewOnlyAdmin):
    list_display = ["run", "query", "rank", "document", "score"]
    list_filter = ["run"]
    search_fields = ["query__query_id", "document__doc_id"]
    list_select_related = ["run__dataset", "query", "document"]
    raw_id_fields = ["query", "document"]
    ordering = ["run", "query", "rank"]
    show_full_result_count = False


@admin.register(Pool)
class PoolAdmin(ViewOnlyAdmin):
    list_display = ["name", "dataset", "qrel_set", "depth", "include_judged", "run_names", "pairs"]
    list_filter = ["dataset"]
    search_fields = ["name", "dataset__slug"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("dataset", "qrel_set__dataset")
            .prefetch_related("runs")
            .annotate(pair_count=Count("pairs"))
        )

    @admin.display(description="runs")
    def run_names(self, obj: Pool) -> str:
        return ", ".join(r.name for r in obj.runs.all())

    @admin.display(description="pairs", ordering="pair_count")
    def pairs(self, obj: WithAnnotations[Pool, _PairCount]) -> int:
        return obj.pair_count


class PairSourceInline(admin.TabularInline):
    model = PairSource
    extra = 0
    fields = ["run", "rank", "score"]
    readonly_fields = ["run", "rank", "score"]
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Pair)
class PairAdmin(ViewOnlyAdmin):
    list_display = ["pool", "query", "document", "original_relevance", "provenance"]
    list_filter = ["pool"]
    search_fields = ["query__query_id", "document__doc_id"]
    list_select_related = ["pool__dataset", "query", "document"]
    raw_id_fields = ["query", "document"]
    inlines = [PairSourceInline]
    show_full_result_count = False

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("sources__run")

    @admin.display(description="provenance (run: rank, score)")
    def provenance(self, obj: Pair) -> str:
        return format_html_join(
            ", ",
            "{}: #{} ({})",
            ((s.run.name, s.rank, f"{s.score:.4g}") for s in obj.sources.all()),
        )
