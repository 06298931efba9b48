"""A built-in run is queued after its transaction commits, and the task is idempotent: a run
already done is not recomputed."""

import pytest
from django.db import transaction

from corpora.models import Run, RunEntry
from corpora.services import run_create, run_enqueue
from corpora.tasks import retrieve_task


@pytest.mark.django_db
def test_the_task_runs_on_commit_and_a_second_execution_changes_nothing(
    energy, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            run = run_create(dataset=energy, retriever="bm25", k=2)
            run_enqueue(run=run)
            assert Run.objects.get(pk=run.pk).status == "pending"
    assert len(callbacks) == 1
    run.refresh_from_db()
    assert run.status == "done"
    entries = list(RunEntry.objects.filter(run=run).order_by("pk").values_list("pk", "rank"))
    assert [rank for _, rank in entries] == [1, 2, 1]
    assert retrieve_task(run.pk) == "done"
    assert (
        list(RunEntry.objects.filter(run=run).order_by("pk").values_list("pk", "rank")) == entries
    )


@pytest.mark.django_db
def test_a_task_for_a_deleted_run_does_nothing(energy):
    run = run_create(dataset=energy, retriever="bm25")
    run_id = run.pk
    run.delete()
    assert retrieve_task(run_id) == "missing"
