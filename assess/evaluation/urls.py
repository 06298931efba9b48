"""Re-benchmark, plot and RAG pages. No namespace of their own: :mod:`assess.refined.urls`
includes these patterns, so their names stay ``refined:rebenchmark``, ``refined:rag``...
"""

from django.urls import path

from . import views

urlpatterns = [
    path("datasets/<name:slug>/rebenchmark/", views.rebenchmark, name="rebenchmark"),
    path(
        "datasets/<name:slug>/rebenchmark/<slug:plot>.svg",
        views.rebenchmark_plot,
        name="rebenchmark_plot",
    ),
    path("datasets/<name:slug>/rag/", views.rag, name="rag"),
]
