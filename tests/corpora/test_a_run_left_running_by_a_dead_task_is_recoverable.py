"""A run whose task died (hard time limit, killed worker, Ctrl-C) is not stuck "running": the
periodic check marks it failed with the reason, pooling refuses it with that reason, and
retrieving it again (the task, or the same `retrieve` command) resumes it. A run another
process is executing right now is left alone and never computed twice."""

import io

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from corpora import retrieval
from corpora.models import Run
from corpora.services import (
    RUN_WORKER_LOST,
    PoolError,
    RunBusy,
    pool_build,
    qrel_set_get,
    run_create,
    run_fail_stale,
    run_retrieve,
)
from corpora.tasks import fail_stale_runs, retrieve_task

RUN_LOCK_CLASS = 0x52554E


def stuck_run(energy) -> Run:
    """A BM25 run left "running" by a task that died: nobody holds its lock."""
    run = run_create(dataset=energy, retriever="bm25", k=3)
    Run.objects.filter(pk=run.pk).update(status="running")
    return run


@pytest.fixture
def other_process():
    """``hold(run)`` takes the run's execution lock on a second database connection, as a
    worker executing the run would; ``release()`` lets it go."""
    settings = connection.settings_dict
    other = psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        password=settings["PASSWORD"] or None,
        autocommit=True,
    )

    class Holder:
        def hold(self, run: Run) -> None:
            other.execute("SELECT pg_advisory_lock(%s)", [(RUN_LOCK_CLASS << 32) | run.pk])

        def release(self) -> None:
            other.execute("SELECT pg_advisory_unlock_all()")

    yield Holder()
    other.close()


@pytest.mark.django_db
def test_a_stale_run_is_marked_failed_refused_by_pooling_and_resumed_by_its_task(energy):
    run = stuck_run(energy)
    test = qrel_set_get(dataset=energy, name="test")
    with pytest.raises(PoolError) as err:
        pool_build(dataset=energy, qrel_set=test, runs=[run])
    assert str(err.value) == f"run 'bm25' is failed, not done: {RUN_WORKER_LOST}"
    assert RUN_WORKER_LOST.startswith("worker lost: the task or command executing this run")
    run.refresh_from_db()
    assert (run.status, run.error) == ("failed", RUN_WORKER_LOST)

    assert retrieve_task(run.pk) == "done"
    run.refresh_from_db()
    assert (run.status, run.error, run.entries.count()) == ("done", "", 3)
    # q1 d2 is the one unjudged pair among the three entries
    assert pool_build(dataset=energy, qrel_set=test, runs=[run]).created_pairs == 1


@pytest.mark.django_db
def test_the_periodic_check_fails_only_runs_nobody_executes(energy, other_process):
    stale = stuck_run(energy)
    live = run_create(dataset=energy, retriever="bm25", k=3, name="live")
    Run.objects.filter(pk=live.pk).update(status="running")
    other_process.hold(live)

    assert fail_stale_runs() == 1
    assert dict(Run.objects.values_list("name", "status")) == {"bm25": "failed", "live": "running"}
    assert Run.objects.get(pk=stale.pk).error == RUN_WORKER_LOST

    # a second delivery of the live run's task does nothing; asking for it again is refused
    assert retrieve_task(live.pk) == "running"
    with pytest.raises(RunBusy, match="run 'live' is being executed by another worker"):
        run_retrieve(run=live)
    with pytest.raises(RunBusy, match="run 'live' is being executed right now"):
        run_create(dataset=energy, retriever="bm25", k=3, name="live")
    with pytest.raises(RunBusy, match="cannot be replaced"):
        run_create(dataset=energy, retriever="bm25", k=3, name="live", replace=True)
    assert (Run.objects.get(pk=live.pk).status, live.entries.count()) == ("running", 0)

    other_process.release()  # its worker died
    assert run_fail_stale() == 1
    assert Run.objects.get(pk=live.pk).status == "failed"


@pytest.mark.django_db
def test_the_same_retrieve_command_resumes_a_stuck_run(energy):
    run = stuck_run(energy)
    out = io.StringIO()
    call_command(
        "retrieve", "energy", "--retriever", "bm25", "--k", "3", "--no-progress", stdout=out
    )
    printed = out.getvalue()
    assert printed.startswith("resuming run bm25 (it was running)\nrun bm25: BM25 ")
    assert "2 queries, 3 entries" in printed
    assert Run.objects.get().pk == run.pk
    assert (Run.objects.get().status, run.entries.count()) == ("done", 3)
    # other settings under that name are still refused
    with pytest.raises(CommandError, match="run 'bm25' already exists in 'energy'"):
        call_command("retrieve", "energy", "--retriever", "bm25", "--k", "5", "--no-progress")


@pytest.mark.django_db
def test_an_interrupted_execution_is_failed_not_left_running(energy, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(retrieval, "bm25_search", interrupted)
    run = run_create(dataset=energy, retriever="bm25", k=3)
    with pytest.raises(KeyboardInterrupt):
        run_retrieve(run=run)
    run.refresh_from_db()
    assert (run.status, run.error) == ("failed", "KeyboardInterrupt")
    assert run_fail_stale() == 0
