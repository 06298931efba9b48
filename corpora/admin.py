from django.contrib import admin

from .models import Dataset, Document, ImportRecord, Qrel, QrelSet, Query


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
