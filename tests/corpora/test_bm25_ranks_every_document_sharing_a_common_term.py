"""BM25 with Lucene's IDF scores a term found in half the documents; rank-bm25's BM25Okapi
gives it zero IDF. Tokens are lower-cased runs of Unicode word characters."""

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from corpora import retrieval

DOCS = ["solar panel efficiency", "solar tax credit", "wind turbine noise", "heat pump cost"]
IDS = ["d1", "d2", "d3", "d4"]


def test_tokens_are_lower_case_unicode_word_characters():
    assert retrieval.tokenize("Solar-Panel Efficiency, 2024! Über_cool naïve") == [
        "solar",
        "panel",
        "efficiency",
        "2024",
        "über_cool",
        "naïve",
    ]


def test_rank_bm25_okapi_would_give_solar_no_weight():
    scores = BM25Okapi([retrieval.tokenize(d) for d in DOCS]).get_scores(["solar"])
    # log((4 - 2 + 0.5) / (2 + 0.5)) = 0: both solar documents tie with the others
    assert list(scores) == [0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("backend", ["rank_bm25", "bm25s"])
def test_solar_ranks_the_two_solar_documents_first(backend):
    index = retrieval.bm25_index([retrieval.tokenize(d) for d in DOCS], backend=backend)
    (ranking,) = retrieval.bm25_search(index, ["solar"], doc_ids=IDS, k=4)
    # idf = ln(1 + 2.5 / 2.5) = ln 2; tf = 1, dl = avgdl = 3: score = ln 2 * 1.9 / 1.9
    assert [i for i, _ in ranking] == [0, 1]
    assert np.allclose([s for _, s in ranking], [np.log(2), np.log(2)])


def test_a_query_with_no_known_term_returns_nothing():
    index = retrieval.bm25_index([retrieval.tokenize(d) for d in DOCS])
    assert retrieval.bm25_search(index, ["geothermal", ""], doc_ids=IDS, k=4) == [[], []]
