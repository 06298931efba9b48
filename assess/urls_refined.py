"""Pages of refined qrel sets, exports, re-benchmarking and RAG (namespace ``refined``)."""

from django.urls import path

from . import views_refined as views

app_name = "refined"

urlpatterns = [
    path("datasets/<slug:slug>/refined/", views.refined_list, name="refined_list"),
    # Before refined_detail, which would take "new" for a name (assess.forms reserves it).
    path("datasets/<slug:slug>/refined/new/", views.refine_create, name="refine_create"),
    # Refined set names are limited to letters, digits, "-", "_" and "." (assess.refine).
    path("datasets/<slug:slug>/refined/<str:name>/", views.refined_detail, name="refined_detail"),
    path(
        "datasets/<slug:slug>/refined/<str:name>/exports/<slug:kind>/",
        views.export_start,
        name="export_start",
    ),
    path("exports/<int:pk>/status/", views.export_status, name="export_status"),
    path("exports/<int:pk>/download/", views.export_download, name="export_download"),
    path("datasets/<slug:slug>/rebenchmark/", views.rebenchmark, name="rebenchmark"),
    path(
        "datasets/<slug:slug>/rebenchmark/<slug:plot>.svg",
        views.rebenchmark_plot,
        name="rebenchmark_plot",
    ),
    path("datasets/<slug:slug>/rag/", views.rag, name="rag"),
]
