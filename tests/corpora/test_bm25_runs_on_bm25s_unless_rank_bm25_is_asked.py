"""A BM25 run is built with bm25s by default, whatever the corpus size (recorded in its
parameters and system, and actually used by the retrieval); ``backend="rank_bm25"`` builds
it with the reference implementation, which ranks exactly the same."""

import pytest

from corpora import retrieval
from corpora.services import run_create, run_retrieve, run_rows


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
def test_the_default_is_bm25s_and_rank_bm25_ranks_the_same(energy, indexes_built):
    default = run_create(dataset=energy, retriever="bm25", k=3, queries="all", name="default")
    reference = run_create(
        dataset=energy, retriever="bm25", k=3, queries="all", name="ref", backend="rank_bm25"
    )
    assert (default.parameters["backend"], reference.parameters["backend"]) == (
        "bm25s",
        "rank_bm25",
    )
    assert default.system == "BM25 (Lucene IDF, k1=0.9, b=0.4) via bm25s"

    run_retrieve(run=default)
    run_retrieve(run=reference)
    assert indexes_built == ["bm25s", "rank_bm25"]
    fast, slow = list(run_rows(run=default)), list(run_rows(run=reference))
    # q1 "solar": d1 and d2 tie (d1 first by id); q2 "wind noise": d3; q3 "heat pump": d4
    assert [row[:3] for row in fast] == [
        ("q1", "d1", 1),
        ("q1", "d2", 2),
        ("q2", "d3", 1),
        ("q3", "d4", 1),
    ]
    assert [row[:3] for row in slow] == [row[:3] for row in fast]
    for (*_, ref_score), (*_, score) in zip(slow, fast, strict=True):
        assert score == pytest.approx(ref_score, rel=1e-9)
