"""`retrieve --background` queues the run's Celery task once the run is committed. With a
broker it says so and returns at once; without one (CELERY_BROKER_URL unset, tasks eager) the
task has run in this process by then, and the command prints the finished run."""

import io

import pytest
from django.conf import settings
from django.core.management import call_command

from corpora.models import Run


def retrieve(*args: str) -> str:
    out = io.StringIO()
    call_command("retrieve", "energy", "--no-progress", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_without_a_broker_the_task_runs_in_this_process(energy):
    assert settings.CELERY_BROKER_URL == "" and settings.CELERY_TASK_ALWAYS_EAGER
    printed = retrieve("--retriever", "bm25", "--k", "3", "--background")
    run = Run.objects.get()
    assert printed.startswith(
        f"run bm25 (id {run.pk}) ran in this process (no broker)\n"
        "run bm25: BM25 (Lucene IDF, k1=0.9, b=0.4) via bm25s; 2 queries, 3 entries in "
    )
    assert printed.endswith("against qrels test: nDCG@10 1.0000, Judged@10 0.7500\n")
    assert (run.status, run.entries.count()) == ("done", 3)


@pytest.mark.django_db
def test_with_a_worker_to_come_the_run_is_left_queued(energy, django_capture_on_commit_callbacks):
    # Inside a transaction the task is only sent on commit, as a broker would receive it.
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        printed = retrieve("--retriever", "bm25", "--k", "3", "--background")
    run = Run.objects.get()
    assert printed == (
        f"run bm25 (id {run.pk}) queued; a Celery worker executes it "
        "(its status shows on the dataset page)\n"
    )
    assert (len(callbacks), run.status, run.entries.count()) == (1, "pending", 0)
    callbacks[0]()  # the worker's turn
    run.refresh_from_db()
    assert (run.status, run.entries.count()) == ("done", 3)
