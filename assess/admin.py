"""Admin pages of the judging and refined-benchmark models.

A refined qrel set is immutable: its Refinement and LabelProvenance rows are shown read-only
and deleted only with the whole set (:class:`corpora.admin.WholeSetRowsAdmin`). Export files
and RAG generations are read-only too; deleting one is allowed, and only makes the next
request write the file, or ``rag_eval`` generate the answer, again.
"""

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm

from corpora.admin import WholeSetRowsAdmin

from .models import Adjudication, Judgment, ReviewItem
from .models.refined import ExportFile, LabelProvenance, RagGeneration, Refinement
from .review.simulated_annotators import simulated_annotator_name_check


class GuardedUserChangeForm(UserChangeForm):
    """Django's user change form, refusing a rename that would unmark the simulated
    annotator's labels or mark a person's (:func:`simulated_annotator_name_check`) with an
    error on the field instead of the save's exception."""

    def clean_username(self) -> Any:
        username = self.cleaned_data["username"]
        stored = self.instance.get_username() if self.instance.pk else None
        simulated_annotator_name_check(stored=stored, new=username)
        return username


class GuardedUserAdmin(UserAdmin):
    form = GuardedUserChangeForm


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), GuardedUserAdmin)


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
class LabelProvenanceAdmin(WholeSetRowsAdmin):
    list_display = ["qrel_set", "query", "document", "label", "source", "consensus_round"]
    list_filter = ["source", "qrel_set"]
    raw_id_fields = ["query", "document", "qrel", "debate", "job"]
    show_full_result_count = False


@admin.register(Refinement)
class RefinementAdmin(WholeSetRowsAdmin):
    list_display = ["qrel_set", "pool", "original", "pairs", "unresolved", "created"]
    list_select_related = ["qrel_set__dataset", "pool", "original"]


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shown, never added or edited; deletable."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ExportFile)
class ExportFileAdmin(ReadOnlyAdmin):
    list_display = ["kind", "qrel_set", "pool", "status", "rows", "sha256", "created"]
    list_filter = ["kind", "status"]


@admin.register(RagGeneration)
class RagGenerationAdmin(ReadOnlyAdmin):
    list_display = ["run", "query", "k", "generator", "prompt_version", "correct"]
    list_filter = ["k", "prompt_version"]
    raw_id_fields = ["run", "query"]
    show_full_result_count = False
