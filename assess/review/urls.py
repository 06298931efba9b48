"""Judging, adjudication and annotator pages (namespace ``assess``)."""

from django.urls import path

from . import views

app_name = "assess"

urlpatterns = [
    path("judge/", views.judge, name="judge"),
    path("judge/<int:item_id>/submit/", views.judge_submit, name="judge_submit"),
    path("judge/<int:item_id>/skip/", views.judge_skip, name="judge_skip"),
    path("judge/undo/", views.judge_undo, name="judge_undo"),
    path("judge/skipped/clear/", views.judge_unskip, name="judge_unskip"),
    path("review/disagreements/", views.disagreement_list, name="disagreement_list"),
    path("review/items/<int:item_id>/", views.adjudicate, name="adjudicate"),
    path("review/annotators/", views.annotator_list, name="annotator_list"),
]
