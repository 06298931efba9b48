from django.contrib import admin

from .models import Debate, DebateJob, Turn

_TURN_FIELDS = ("round", "agent", "stance", "label", "argument", "attempts", "parse_error", "model")


class TurnInline(admin.TabularInline):
    model = Turn
    extra = 0
    can_delete = False
    fields = _TURN_FIELDS
    readonly_fields = _TURN_FIELDS
    show_change_link = True


@admin.register(DebateJob)
class DebateJobAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "pool",
        "status",
        "rounds",
        "scale",
        "max_grade",
        "consensus",
        "prompt_version",
        "created_by",
        "created",
    ]
    list_filter = ["status", "scale", "pool__dataset"]
    search_fields = ["pool__name", "pool__dataset__slug", "note"]
    list_select_related = ["pool__dataset", "created_by"]
    raw_id_fields = ["pool", "created_by"]
    # Checked at launch (DREAM_WEBHOOK_ALLOWED_HOSTS; the agents against the operator's
    # endpoints, key variables and models folder): never edited past that check.
    readonly_fields = ["callback_url", "agent_a", "agent_b"]


@admin.register(Debate)
class DebateAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "job",
        "pair",
        "status",
        "final_label",
        "consensus_round",
        "escalation_reason",
        "attempts",
        "calls",
    ]
    list_filter = ["status", "escalation_reason", "job"]
    search_fields = ["pair__query__query_id", "pair__document__doc_id", "last_error"]
    list_select_related = ["job", "pair"]
    raw_id_fields = ["job", "pair"]
    inlines = [TurnInline]
    show_full_result_count = False


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = ["debate", "round", "agent", "label", "attempts", "model", "latency_ms"]
    list_filter = ["agent", "label"]
    search_fields = ["argument", "raw", "debate__pair__document__doc_id"]
    raw_id_fields = ["debate"]
    show_full_result_count = False
