"""Stage 0's term-matching scalars (``cover``, ``bm25_rel``, ``doclen``) on a toy corpus of
three documents, every number worked by hand, and BM25 equal to the built-in run's."""

import math

import numpy as np
import pytest

from corpora import retrieval
from debates.stage0.lexical import SCALARS, Lexicon, lucene_idf, pair_scalars

# Documents (key: tokens, as retrieval.tokenize(retrieval.document_text(title, text))):
#   10: title "Apple", text "banana"  -> [apple, banana]          2 tokens
#   20: "Apple apple cherry"           -> [apple, apple, cherry]   3 tokens
#   30: "Banana date"                  -> [banana, date]           2 tokens
# N = 3, average length 7/3. df: apple 2, banana 2, cherry 1, date 1.
# Lucene IDF ln(1 + (N - df + 0.5) / (df + 0.5)):
#   df 2: ln(1 + 1.5 / 2.5) = ln 1.6   = 0.470004
#   df 1: ln(1 + 2.5 / 1.5) = ln(8/3)  = 0.980829
IDF2, IDF1 = math.log(1.6), math.log(8 / 3)
TEXTS = {10: ("Apple", "banana"), 20: ("", "Apple apple cherry"), 30: ("", "Banana date")}


def _tokens(key: int) -> list[str]:
    return retrieval.tokenize(retrieval.document_text(*TEXTS[key]))


@pytest.fixture
def lexicon() -> Lexicon:
    return Lexicon((key, _tokens(key)) for key in sorted(TEXTS))


def test_the_idf_is_lucenes_and_a_term_of_no_document_has_none(lexicon):
    assert lucene_idf(3, 2) == pytest.approx(IDF2) and lucene_idf(3, 1) == pytest.approx(IDF1)
    assert lexicon.n == 3
    assert lexicon.idf == pytest.approx(
        {"apple": IDF2, "banana": IDF2, "cherry": IDF1, "date": IDF1}
    )


def test_bm25_is_the_built_in_runs_score_worked_by_hand(lexicon):
    # BM25 = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)), k1 0.9, b 0.4.
    # dl 2: k1 * (0.6 + 0.4 * 2 / (7/3)) = 0.848571; dl 3: 0.9 * (0.6 + 0.4 * 9/7) = 1.002857.
    # Query [apple, cherry]:
    #   doc 10: apple tf 1: 0.470004 * 1.9 / (1 + 0.848571) = 0.483079
    #   doc 20: apple tf 2: 0.470004 * 2 * 1.9 / (2 + 1.002857) = 0.594771
    #           cherry tf 1: 0.980829 * 1.9 / (1 + 1.002857) = 0.930459; sum 1.525230
    #   doc 30: neither term: 0
    expected = [0.483079, 1.525230, 0.0]
    assert lexicon.bm25(["apple", "cherry"]).tolist() == pytest.approx(expected, abs=1e-6)
    reference = retrieval.bm25_index([_tokens(k) for k in sorted(TEXTS)], backend="rank_bm25")
    assert reference.scores(["apple", "cherry"]).tolist() == pytest.approx(expected, abs=1e-6)


def test_cover_bm25_rel_and_doclen_of_four_pairs_are_worked_by_hand(lexicon):
    a = retrieval.tokenize("Apple, cherry and kiwi?")  # [apple, cherry, and, kiwi]
    b = retrieval.tokenize("kiwi")  # in no document: no weighted term
    out = pair_scalars(
        lexicon,
        [a, a, a, b],
        [_tokens(10), _tokens(20), _tokens(30), _tokens(20)],
        [10, 20, 30, 20],
    )
    assert SCALARS == ("cover", "bm25_rel", "doclen")
    assert out.dtype == np.float32 and out.shape == (4, 3)
    # cover: query a's weighted terms apple (0.470004) and cherry (0.980829), total 1.450833
    # ("and" and "kiwi" are in no document: weight 0). Doc 10 holds apple: 0.470004 /
    # 1.450833 = 0.323954; doc 20 both: 1; doc 30 neither: 0. Query b: no weight, 0.
    # bm25_rel: a's BM25 over its best in the corpus (doc 20, 1.525230): 0.483079 /
    # 1.525230 = 0.316726, 1, 0; b's best is 0: 0.
    # doclen: ln(1 + 2) = 1.098612 for docs 10 and 30, ln(1 + 3) = 1.386294 for doc 20.
    assert out.ravel().tolist() == pytest.approx(
        [
            *(0.323954, 0.316726, 1.098612),
            *(1.0, 1.0, 1.386294),
            *(0.0, 0.0, 1.098612),
            *(0.0, 0.0, 1.386294),
        ],
        abs=1e-6,
    )


def test_a_document_outside_the_corpus_or_keys_out_of_order_are_refused(lexicon):
    with pytest.raises(KeyError, match="document 99 is not in the corpus"):
        pair_scalars(lexicon, [["apple"]], [["apple"]], [99])
    with pytest.raises(ValueError, match="one query, document and key per pair"):
        pair_scalars(lexicon, [["apple"]], [], [10])
    with pytest.raises(ValueError, match="keys must increase"):
        Lexicon([(20, ["apple"]), (10, ["pear"])])
    with pytest.raises(ValueError, match="empty corpus"):
        Lexicon([])
    assert pair_scalars(lexicon, [], [], []).shape == (0, 3)
