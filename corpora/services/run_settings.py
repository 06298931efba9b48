"""The settings of a built-in run, checked: its ``system`` text and its ``parameters`` (for
BM25 the backend, k1 and b; for dense the model and its windows). No database: the caller
(:func:`corpora.services.runs.run_create`) stores them, and compares them with an existing
run's to decide whether asking again resumes it.
"""

from __future__ import annotations

import math

from .. import retrieval

# BM25 runs on bm25s unless asked otherwise: it gives rank-bm25's scores (tests/corpora/
# test_bm25_backends_give_the_same_top_100_on_scifact_and_arguana.py), and rank-bm25's cost
# grows with corpus size times query length (a Python loop over every document per query
# term): ArguAna's 1,401 long test queries took 828 s on 8,674 documents, bm25s 5.7 s.
# rank-bm25 stays the reference (--backend rank_bm25).
BM25_DEFAULT_BACKEND = "bm25s"
#: The ranges a BM25 run's parameters may take (Robertson & Zaragoza, 2009: k1 scales term
#: frequency saturation, 0 meaning binary term weights; b the document length normalisation,
#: 0 none, 1 full). Values past 10 for k1 make tf almost linear and are never tuned to.
BM25_K1_RANGE = (0.0, 10.0)
BM25_B_RANGE = (0.0, 1.0)

# --windows: 128 word pieces with [CLS] and [SEP] (the length the model was trained on), a new
# window every 64 pieces (see corpora.retrieval.WINDOW_LENGTH and WINDOW_STRIDE).
DENSE_WINDOWS = {
    "max_length": retrieval.WINDOW_LENGTH,
    "stride": retrieval.WINDOW_STRIDE,
    "scoring": "MaxP: a document scores its best window's cosine",
}


def bm25_parameter_check(name: str, value: float, bounds: tuple[float, float]) -> float:
    """``value`` as a float if it lies in ``bounds`` (inclusive), else ValueError naming
    ``name`` ("k1" or "b"), the range and the value given (NaN and infinities are refused)."""
    low, high = bounds
    number = float(value)
    if not (math.isfinite(number) and low <= number <= high):
        raise ValueError(f"BM25 {name} must be between {low:g} and {high:g}, got {value}")
    return number


def run_settings(
    retriever: str,
    *,
    backend: str | None,
    windows: bool,
    k1: float | None = None,
    b: float | None = None,
) -> tuple[str, dict]:
    """The ``system`` text and the ``parameters`` (without k and queries) of a built-in run
    of ``retriever`` ("bm25" or "dense"). BM25's ``k1`` and ``b`` default to
    :data:`corpora.retrieval.BM25_K1` and :data:`~corpora.retrieval.BM25_B` (BEIR's
    Elasticsearch settings) and must lie in :data:`BM25_K1_RANGE` and :data:`BM25_B_RANGE`.
    Raises ValueError for an unknown BM25 backend, a k1 or b out of range, k1 = 0 on
    rank-bm25, or a BM25 option (backend, k1, b) given for dense.
    """
    if retriever == "bm25":
        return _bm25_settings(backend=backend, k1=k1, b=b)
    given = [n for n, v in (("backend", backend), ("k1", k1), ("b", b)) if v is not None]
    if given:
        are = "is a BM25 setting" if len(given) == 1 else "are BM25 settings"
        raise ValueError(f"{' and '.join(given)} {are}; dense retrieval takes none")
    system = f"dense retrieval, {retrieval.DENSE_MODEL_NAME}, exact cosine"
    parameters = {
        "retriever": "dense",
        "model": retrieval.DENSE_MODEL_NAME,
        "normalize_embeddings": True,
        "batch_size": retrieval.DENSE_BATCH_SIZE,
        "similarity": "cosine (exact)",
        "fields": "title + ' ' + text",
    }
    if windows:  # the key is absent without windows: older runs keep their parameters
        parameters["windows"] = dict(DENSE_WINDOWS)
        system += (
            f", MaxP over {DENSE_WINDOWS['max_length']}-piece windows "
            f"(stride {DENSE_WINDOWS['stride']})"
        )
    return system, parameters


def _bm25_settings(*, backend: str | None, k1: float | None, b: float | None) -> tuple[str, dict]:
    if backend is None:
        backend = BM25_DEFAULT_BACKEND
    if backend not in retrieval.BACKENDS:
        raise ValueError(f"unknown BM25 backend {backend!r}")
    k1 = bm25_parameter_check("k1", retrieval.BM25_K1 if k1 is None else k1, BM25_K1_RANGE)
    b = bm25_parameter_check("b", retrieval.BM25_B if b is None else b, BM25_B_RANGE)
    if k1 == 0 and backend == "rank_bm25":
        # rank-bm25 scores every document, and tf * (k1 + 1) / (tf + k1 * ...) is 0 / 0
        # for one without the term: its sum is NaN. bm25s scores only documents holding it.
        raise ValueError("BM25 k1 = 0 needs the bm25s backend (rank-bm25 divides 0 by 0)")
    system = f"BM25 (Lucene IDF, k1={k1}, b={b}) via {backend}"
    parameters = {
        "retriever": "bm25",
        "backend": backend,
        "k1": k1,
        "b": b,
        "idf": "lucene: log(1 + (N - df + 0.5) / (df + 0.5))",
        "tokenizer": "lower-case, Unicode word characters (\\w+)",
        "fields": "title + ' ' + text",
    }
    return system, parameters
