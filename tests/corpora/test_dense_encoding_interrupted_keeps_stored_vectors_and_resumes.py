"""Document vectors are committed chunk by chunk as they are encoded: an encoding interrupted
after the first chunk keeps that chunk, and the next call encodes only the rest. A retrieval
task stopped at its soft time limit queues itself again and the run finishes; a slice that
stored nothing leaves the run failed with the reason instead of looping."""

import numpy as np
import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from corpora import retrieval
from corpora.models import DocumentEmbedding, Run
from corpora.services import embeddings_ensure, run_create
from corpora.tasks import retrieve_task

# Encoding order is longest text first: chunks of 2 are (d1, d3), then (d2, d4).
FIRST_CHUNK = ["solar panel efficiency", "wind turbine noise"]
SECOND_CHUNK = ["solar tax credit", "heat pump cost"]


def fake_vector(text: str) -> np.ndarray:
    """A fixed unit vector per text (3 dimensions)."""
    seed = sum(map(ord, text))
    vector = np.array([seed % 7 + 1, seed % 5 + 1, seed % 3 + 1], dtype=np.float32)
    return vector / np.linalg.norm(vector)


class FakeEncoder:
    """Stands in for the SentenceTransformer: records every call; the first call holding
    ``fail_on`` raises ``error`` instead (once)."""

    def __init__(self, fail_on: str | None = None, error: BaseException | None = None):
        self.calls: list[list[str]] = []
        self.fail_on, self.error = fail_on, error

    def get_sentence_embedding_dimension(self) -> int:
        return 3

    def encode(self, texts, **kwargs) -> np.ndarray:
        if self.fail_on in texts:
            self.fail_on = None
            raise self.error
        self.calls.append(list(texts))
        return np.stack([fake_vector(t) for t in texts])


@pytest.fixture
def encoder(monkeypatch):
    """``encoder(fail_on=..., error=...)`` installs a FakeEncoder with chunks of 2 documents."""
    monkeypatch.setattr(retrieval, "ENCODE_CHUNK", 2)

    def install(**kwargs) -> FakeEncoder:
        fake = FakeEncoder(**kwargs)
        monkeypatch.setattr(retrieval, "load_encoder", lambda: fake)
        return fake

    return install


def stored_texts(dataset) -> list[str]:
    return sorted(
        DocumentEmbedding.objects.filter(dataset=dataset).values_list("document__text", flat=True)
    )


@pytest.mark.django_db
def test_vectors_stored_before_an_interruption_survive_and_a_rerun_encodes_only_the_rest(
    energy, encoder
):
    first = encoder(fail_on=SECOND_CHUNK[0], error=RuntimeError("worker killed"))
    with pytest.raises(RuntimeError, match="worker killed"):
        embeddings_ensure(dataset=energy, model_name="fake")
    assert first.calls == [FIRST_CHUNK]
    assert stored_texts(energy) == sorted(FIRST_CHUNK)

    second = encoder()
    vectors = embeddings_ensure(dataset=energy, model_name="fake")
    assert second.calls == [SECOND_CHUNK]
    texts = ["solar panel efficiency", "solar tax credit", "wind turbine noise", "heat pump cost"]
    assert vectors.shape == (4, 3)
    assert np.array_equal(vectors, np.stack([fake_vector(t) for t in texts]))
    assert DocumentEmbedding.objects.filter(dataset=energy).count() == 4


@pytest.mark.django_db
def test_a_task_stopped_at_its_soft_time_limit_requeues_itself_and_the_run_finishes(
    energy, encoder
):
    fake = encoder(fail_on=SECOND_CHUNK[0], error=SoftTimeLimitExceeded())
    run = run_create(dataset=energy, retriever="dense", k=2)
    # Without a broker the requeued task runs at once, in this process.
    assert retrieve_task(run.pk) == "done"
    run.refresh_from_db()
    assert (run.status, run.error, run.entries.count()) == ("done", "", 4)
    document_calls = [c for c in fake.calls if sorted(c) != ["solar", "wind noise"]]
    assert document_calls == [FIRST_CHUNK, SECOND_CHUNK]
    assert DocumentEmbedding.objects.filter(dataset=energy).count() == 4


@pytest.mark.django_db
def test_a_slice_that_stored_nothing_leaves_the_run_failed_with_the_reason(energy, encoder):
    fake = encoder(fail_on=FIRST_CHUNK[0], error=SoftTimeLimitExceeded())
    run = run_create(dataset=energy, retriever="dense", k=2)
    assert retrieve_task(run.pk) == "failed"
    run.refresh_from_db()
    assert run.status == "failed"
    assert run.error == (
        f"stopped at the task's time limit ({settings.DREAM_RETRIEVE_SOFT_TIME_LIMIT} s) "
        "without storing a new document vector, so another task would not get further; raise "
        "DREAM_RETRIEVE_TIME_LIMIT (below CELERY_VISIBILITY_TIMEOUT) or run `retrieve` "
        "without --background"
    )
    assert fake.calls == [] and DocumentEmbedding.objects.count() == 0
    # asked again, it resumes and finishes
    assert retrieve_task(run.pk) == "done"
    assert Run.objects.get(pk=run.pk).entries.count() == 4


def test_the_retrieve_task_stops_softly_before_its_hard_time_limit():
    assert retrieve_task.time_limit == settings.DREAM_RETRIEVE_TIME_LIMIT == 1800
    assert retrieve_task.soft_time_limit == settings.DREAM_RETRIEVE_SOFT_TIME_LIMIT == 1740
