"""A bundled dataset may ship its dense vectors: ``embeddings_seed`` stores them only when the
file's key (model + every indexed text, in doc_id order) matches the imported corpus, so a
dense run then encodes nothing; another corpus or another model ignores the file. The demo's
bundled SciFact file matches the bundled corpus."""

import shutil
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings

from corpora import retrieval
from corpora.models import DocumentEmbedding
from corpora.services import (
    dataset_import_beir,
    embeddings_ensure,
    embeddings_seed,
    embeddings_seed_write,
    run_create,
    run_retrieve,
    run_rows,
)
from tests.fixtures.datasets import write_beir
from tests.fixtures.pooling import ENERGY_CORPUS, ENERGY_QRELS, ENERGY_QUERIES

BUNDLED = Path(settings.BASE_DIR) / "data" / "scifact"


def _must_not_encode(*args, **kwargs):
    raise AssertionError("documents were encoded although vectors were seeded")


def _import(tmp_path: Path, name: str, corpus: list[dict]):
    folder = write_beir(
        tmp_path / name, corpus=corpus, queries=ENERGY_QUERIES, qrels={"test": ENERGY_QRELS}
    )
    return dataset_import_beir(path=folder, name=name)


@pytest.mark.django_db
def test_matching_vectors_are_stored_and_the_dense_run_encodes_nothing(
    energy, tmp_path, monkeypatch
):
    seed = embeddings_seed_write(dataset=energy, folder=tmp_path / "seed")
    written = np.load(seed)
    assert written.shape == (4, 384) and written.dtype == np.float32
    first = run_retrieve(run=run_create(dataset=energy, retriever="dense", k=2))

    # Imported in reverse order: the file is keyed by doc_id order, not import order.
    again = _import(tmp_path, "energy-again", list(reversed(ENERGY_CORPUS)))
    assert embeddings_seed(dataset=again, folder=tmp_path / "seed") == 4
    assert embeddings_seed(dataset=again, folder=tmp_path / "seed") == 0  # already stored
    monkeypatch.setattr(retrieval, "encode_cached", _must_not_encode)
    vectors = embeddings_ensure(dataset=again)
    by_id = dict(
        DocumentEmbedding.objects.filter(dataset=again).values_list("document__doc_id", "vector")
    )
    ids = sorted(by_id)
    assert np.array_equal(retrieval.vectors_from_bytes([by_id[i] for i in ids], 384), written)
    assert vectors.shape == (4, 384)
    second = run_retrieve(run=run_create(dataset=again, retriever="dense", k=2))
    assert list(run_rows(run=second)) == list(run_rows(run=first))


@pytest.mark.django_db
def test_another_corpus_or_another_model_ignores_the_file(energy, tmp_path):
    embeddings_seed_write(dataset=energy, folder=tmp_path / "seed")
    changed = [dict(d) for d in ENERGY_CORPUS]
    changed[0]["text"] += " (revised)"
    other = _import(tmp_path, "energy-revised", changed)
    assert embeddings_seed(dataset=other, folder=tmp_path / "seed") == 0
    assert embeddings_seed(dataset=energy, folder=tmp_path / "seed", model_name="other") == 0
    assert DocumentEmbedding.objects.filter(dataset=other).count() == 0


@pytest.mark.django_db
def test_the_bundled_scifact_vectors_match_the_bundled_corpus(tmp_path):
    folder = tmp_path / "scifact"
    shutil.copytree(BUNDLED, folder, ignore=shutil.ignore_patterns("embeddings"))
    dataset = dataset_import_beir(path=folder, name="SciFact", slug="scifact")
    assert embeddings_seed(dataset=dataset, folder=BUNDLED / "embeddings") == 5183
    vectors = embeddings_ensure(dataset=dataset)
    assert vectors.shape == (5183, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.django_db
def test_a_dense_run_takes_the_bundled_vectors_of_its_corpus_without_being_told(
    energy, tmp_path, monkeypatch
):
    # A dataset imported from a bundled folder (not through the demo) finds its vectors too.
    first = run_retrieve(run=run_create(dataset=energy, retriever="dense", k=2))
    bundled = tmp_path / "data" / "energy" / "embeddings"
    embeddings_seed_write(dataset=energy, folder=bundled)
    monkeypatch.setattr(
        "corpora.services.embeddings.bundled_vector_folders", lambda: [tmp_path / "x", bundled]
    )
    again = _import(tmp_path, "energy-again", list(reversed(ENERGY_CORPUS)))
    monkeypatch.setattr(retrieval, "encode_cached", _must_not_encode)
    second = run_retrieve(run=run_create(dataset=again, retriever="dense", k=2))
    assert DocumentEmbedding.objects.filter(dataset=again).count() == 4
    assert list(run_rows(run=second)) == list(run_rows(run=first))


def test_the_bundled_vector_folders_are_scifacts():
    from corpora.services.embeddings import bundled_vector_folders

    assert bundled_vector_folders() == [BUNDLED / "embeddings"]
