"""Without --no-progress, `retrieve` draws a progress bar on stderr: queries ranked for BM25,
and chunks of documents encoded for a dense run; --no-progress draws none."""

import io

import numpy as np
import pytest
from django.core.management import call_command

from corpora import retrieval


class UnitEncoder:
    """A stand-in for the SentenceTransformer: every text becomes the same unit vector."""

    def get_sentence_embedding_dimension(self) -> int:
        return 2

    def encode(self, texts, **kwargs) -> np.ndarray:
        return np.tile(np.array([0.6, 0.8], dtype=np.float32), (len(texts), 1))


def retrieve(*args: str) -> str:
    out = io.StringIO()
    call_command("retrieve", "energy", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_bm25_shows_the_queries_ranked(energy, capsys):
    printed = retrieve("--retriever", "bm25", "--k", "3")
    assert printed.startswith("run bm25: BM25 (Lucene IDF, k1=0.9, b=0.4) via bm25s; 2 ")
    bar = capsys.readouterr().err
    assert "bm25: 100%|" in bar
    assert "| 2/2 [" in bar and " queries/s]" in bar


@pytest.mark.django_db
def test_dense_shows_the_document_chunks_encoded(energy, capsys, monkeypatch):
    monkeypatch.setattr(retrieval, "load_encoder", UnitEncoder)
    monkeypatch.setattr(retrieval, "ENCODE_CHUNK", 2)
    retrieve("--retriever", "dense", "--k", "2")
    bar = capsys.readouterr().err
    assert "encoding: 100%|" in bar
    assert "| 2/2 [" in bar and " chunks/s]" in bar


@pytest.mark.django_db
def test_no_progress_draws_nothing(energy, capsys):
    retrieve("--retriever", "bm25", "--no-progress")
    assert capsys.readouterr().err == ""
