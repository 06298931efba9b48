from django.contrib import admin

from .models import Adjudication, Judgment, ReviewItem
from .models.refined import ExportFile, LabelProvenance, RagGeneration, Refinement


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = ["debate", "kind", "judgments_needed", "judgments_done", "leased_to"]
    list_filter = ["kind"]
    raw_id_fields = ["debate"]


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = ["item", "annotator", "label", "seconds_on_task", "created", "undone_at"]
    list_filter = ["label"]
    raw_id_fields = ["item"]


@admin.register(Adjudication)
class AdjudicationAdmin(admin.ModelAdmin):
    list_display = ["item", "admin", "label", "created"]
    raw_id_fields = ["item"]


@admin.register(LabelProvenance)
class LabelProvenanceAdmin(admin.ModelAdmin):
    list_display = ["qrel_set", "query", "document", "label", "source", "consensus_round"]
    list_filter = ["source", "qrel_set"]
    raw_id_fields = ["query", "document", "qrel", "debate", "job"]
    show_full_result_count = False


admin.site.register([Refinement, ExportFile, RagGeneration])
