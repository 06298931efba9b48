"""From BM25S_MIN_DOCUMENTS documents on, a BM25 run is built with bm25s (recorded in its
parameters and system, and actually used by the retrieval), and it ranks exactly as the
rank-bm25 reference does. The threshold is lowered to the 4-document test corpus here."""

import pytest

from corpora import retrieval
from corpora.services import run_create, run_retrieve, run_rows
from corpora.services import runs as run_services

from .pooling_fixtures import energy_fixture  # noqa: F401


@pytest.fixture
def indexes_built(monkeypatch):
    """The backends whose index each retrieval built, in order."""
    built: list[str] = []
    real = retrieval.bm25_index

    def spy(tokens, *, backend="rank_bm25", **kwargs):
        built.append(backend)
        return real(tokens, backend=backend, **kwargs)

    monkeypatch.setattr(retrieval, "bm25_index", spy)
    return built


@pytest.mark.django_db
def test_the_backend_switches_to_bm25s_at_the_threshold(energy, monkeypatch, indexes_built):
    monkeypatch.setattr(run_services, "BM25S_MIN_DOCUMENTS", 5)
    below = run_create(dataset=energy, retriever="bm25", k=3, queries="all", name="below")
    monkeypatch.setattr(run_services, "BM25S_MIN_DOCUMENTS", 4)
    at = run_create(dataset=energy, retriever="bm25", k=3, queries="all", name="at")
    assert (below.parameters["backend"], at.parameters["backend"]) == ("rank_bm25", "bm25s")
    assert at.system == "BM25 (Lucene IDF, k1=0.9, b=0.4) via bm25s"

    run_retrieve(run=below)
    run_retrieve(run=at)
    assert indexes_built == ["rank_bm25", "bm25s"]
    reference, large = list(run_rows(run=below)), list(run_rows(run=at))
    # q1 "solar": d1 and d2 tie (d1 first by id); q2 "wind noise": d3; q3 "heat pump": d4
    assert [row[:3] for row in large] == [
        ("q1", "d1", 1),
        ("q1", "d2", 2),
        ("q2", "d3", 1),
        ("q3", "d4", 1),
    ]
    assert [row[:3] for row in reference] == [row[:3] for row in large]
    for (*_, ref_score), (*_, score) in zip(reference, large, strict=True):
        assert score == pytest.approx(ref_score, rel=1e-9)
