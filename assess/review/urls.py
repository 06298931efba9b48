"""Judging, adjudication and annotator pages (namespace ``assess``)."""

from django.urls import path

from . import guideline_views, quality_views, views

app_name = "assess"

# Items are named by their public id (a UUID): an integer id would grow with creation time and
# tell a gold item apart from the pairs around it. An old integer link matches nothing: 404.

urlpatterns = [
    path("judge/", views.judge, name="judge"),
    path("judge/<uuid:item_id>/submit/", views.judge_submit, name="judge_submit"),
    path("judge/<uuid:item_id>/skip/", views.judge_skip, name="judge_skip"),
    path("judge/<uuid:item_id>/active/", views.judge_active, name="judge_active"),
    path("judge/undo/", views.judge_undo, name="judge_undo"),
    path("judge/skipped/clear/", views.judge_unskip, name="judge_unskip"),
    path(
        "judge/guidelines/<int:guidelines_id>/confirm/",
        guideline_views.judge_guidelines_confirm,
        name="judge_guidelines_confirm",
    ),
    # After corpora's dataset pages in config/urls.py; no corpora pattern takes this path.
    path(
        "datasets/<name:slug>/guidelines/",
        guideline_views.dataset_guidelines,
        name="dataset_guidelines",
    ),
    path("review/disagreements/", views.disagreement_list, name="disagreement_list"),
    path("review/items/<uuid:item_id>/", views.adjudicate, name="adjudicate"),
    path("review/annotators/", views.annotator_list, name="annotator_list"),
    path("review/annotators/floor/", quality_views.quality_floor_set, name="quality_floor_set"),
    path(
        "review/annotator/<str:username>/",
        quality_views.annotator_detail,
        name="annotator_detail",
    ),
    path(
        "review/annotator/<str:username>/return/",
        quality_views.annotator_labels_return,
        name="annotator_labels_return",
    ),
    path("review/me/", quality_views.annotator_me, name="annotator_me"),
]
