"""Re-benchmark, plot and RAG pages. No namespace of their own: :mod:`assess.refined.urls`
includes these patterns, so their names stay ``refined:rebenchmark``, ``refined:rag``...
"""

from django.urls import path

from . import views

urlpatterns = [
    path("datasets/<slug:slug>/rebenchmark/", views.rebenchmark, name="rebenchmark"),
    path(
        "datasets/<slug:slug>/rebenchmark/<slug:plot>.svg",
        views.rebenchmark_plot,
        name="rebenchmark_plot",
    ),
    path("datasets/<slug:slug>/rag/", views.rag, name="rag"),
]
