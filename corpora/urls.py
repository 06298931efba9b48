"""Dataset pages (namespace ``corpora``)."""

from django.urls import path, re_path

from . import upload_views, views

app_name = "corpora"

urlpatterns = [
    path("datasets/", views.dataset_list, name="dataset_list"),
    # Before dataset_detail, which would take "new" for a slug (a dataset slug "new" cannot
    # be reached, as on the refined pages).
    path("datasets/new/", upload_views.dataset_new, name="dataset_new"),
    path("datasets/new/name-check/", upload_views.dataset_name_check, name="dataset_name_check"),
    path("datasets/<name:slug>/", views.dataset_detail, name="dataset_detail"),
    path(
        "datasets/<name:slug>/actions/<slug:action>/",
        upload_views.dataset_action,
        name="dataset_action",
    ),
    # A pool's name is letters, digits, ".", "_" and "-" (core.names), so a "." too; any
    # segment is taken (an unknown name is a 404), so that a pool stored under an older rule
    # still gets its link on the dataset page.
    re_path(
        r"^datasets/(?P<slug>[-a-zA-Z0-9_.]+)/pools/(?P<name>[^/]+)/$",
        views.pool_detail,
        name="pool_detail",
    ),
    path("operations/<int:pk>/", upload_views.operation_detail, name="operation_detail"),
    path("datasets/<name:slug>/documents/", views.document_list, name="document_list"),
    # Document ids may hold any character ("/", "#", ".."), so the id travels in ?id=.
    path("datasets/<name:slug>/document/", views.document_detail, name="document_detail"),
    # Qrel set names are free text: the name may hold "/", the format is the last segment.
    re_path(
        r"^datasets/(?P<slug>[-a-zA-Z0-9_.]+)/qrels/(?P<name>.+)/(?P<fmt>trec|beir)$",
        views.qrels_download,
        name="qrels_download",
    ),
]
