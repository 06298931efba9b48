"""Pages of refined qrel sets, exports, re-benchmarking and RAG (namespace ``refined``).

The re-benchmark, plot and RAG pages belong to :mod:`assess.evaluation`; their patterns are
included here, last, so that their URL names stay in this namespace.
"""

from django.urls import include, path

from . import views

app_name = "refined"

urlpatterns = [
    path("datasets/<name:slug>/refined/", views.refined_list, name="refined_list"),
    # Before refined_detail, which would take "new" for a name (assess.refined.forms reserves
    # it).
    path("datasets/<name:slug>/refined/new/", views.refine_create, name="refine_create"),
    # A refinement in progress (its operation), under the same reserved "new".
    path(
        "datasets/<name:slug>/refined/new/<int:pk>/",
        views.refine_operation,
        name="refine_operation",
    ),
    # Refined set names are limited to letters, digits, "-", "_" and "." (assess.refined.refine).
    path("datasets/<name:slug>/refined/<str:name>/", views.refined_detail, name="refined_detail"),
    path(
        "datasets/<name:slug>/refined/<str:name>/exports/<slug:kind>/",
        views.export_start,
        name="export_start",
    ),
    path("exports/<int:pk>/status/", views.export_status, name="export_status"),
    path("exports/<int:pk>/download/", views.export_download, name="export_download"),
    # Re-benchmark, plots and RAG (assess.evaluation), in this namespace.
    path("", include("assess.evaluation.urls")),
]
