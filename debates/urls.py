"""Debate job pages (namespace ``debates``)."""

from django.urls import path

from . import estimate_views, views

app_name = "debates"

urlpatterns = [
    path("jobs/", views.job_list, name="job_list"),
    path("jobs/new/", views.job_launch, name="job_launch"),
    path("jobs/new/estimate/", estimate_views.job_estimate, name="job_estimate"),
    path("jobs/<int:pk>/", views.job_detail, name="job_detail"),
    path("jobs/<int:pk>/budget/", views.job_budget, name="job_budget"),
    path(
        "jobs/<int:pk>/<slug:action>/",
        views.job_control,
        name="job_control",
    ),
]
