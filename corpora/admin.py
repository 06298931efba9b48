from django.contrib import admin
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


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "licence", "created"]
    search_fields = ["slug", "name", "source"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["doc_id", "dataset", "title"]
    list_filter = ["dataset"]
    search_fields = ["doc_id", "title", "text"]
    list_select_related = ["dataset"]
    show_full_result_count = False


@admin.register(Query)
class QueryAdmin(admin.ModelAdmin):
    list_display = ["query_id", "dataset", "text"]
    list_filter = ["dataset"]
    search_fields = ["query_id", "text"]
    list_select_related = ["dataset"]


@admin.register(QrelSet)
class QrelSetAdmin(admin.ModelAdmin):
    list_display = ["name", "dataset", "origin", "duplicate_policy", "created"]
    list_filter = ["dataset", "origin"]
    search_fields = ["name", "dataset__slug"]


@admin.register(Qrel)
class QrelAdmin(admin.ModelAdmin):
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


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["name", "dataset", "source", "status", "system", "seconds", "created"]
    list_filter = ["dataset", "source", "status"]
    search_fields = ["name", "system", "dataset__slug"]
    readonly_fields = ["created"]


@admin.register(RunEntry)
class RunEntryAdmin(admin.ModelAdmin):
    list_display = ["run", "query", "rank", "document", "score"]
    list_filter = ["run"]
    search_fields = ["query__query_id", "document__doc_id"]
    list_select_related = ["run__dataset", "query", "document"]
    raw_id_fields = ["query", "document"]
    ordering = ["run", "query", "rank"]
    show_full_result_count = False


@admin.register(Pool)
class PoolAdmin(admin.ModelAdmin):
    list_display = ["name", "dataset", "qrel_set", "depth", "include_judged", "run_names", "pairs"]
    list_filter = ["dataset"]
    search_fields = ["name", "dataset__slug"]
    filter_horizontal = ["runs"]

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
    def pairs(self, obj: Pool) -> int:
        return obj.pair_count


class PairSourceInline(admin.TabularInline):
    model = PairSource
    extra = 0
    fields = ["run", "rank", "score"]
    readonly_fields = ["run", "rank", "score"]
    can_delete = False


@admin.register(Pair)
class PairAdmin(admin.ModelAdmin):
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
