"""Dense document vectors: encode, store and reuse them per (document, model).

Vectors are kept in DocumentEmbedding and encoded only for documents without one, chunk by
chunk, each chunk committed as it is encoded, so an interrupted encoding resumes where it
stopped. A bundled dataset may ship precomputed vectors (a "seed" file), used only when its
corpus and model match. Dense runs (:mod:`corpora.services.runs`) read their vectors here;
runs with ``--windows`` read the vectors of overlapping windows (:func:`embeddings_windows_ensure`,
stored apart, under a ``windowing`` key) and count the documents longer than the model reads
(:func:`truncated_document_count`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction

from .. import retrieval
from ..models import Dataset, Document, DocumentEmbedding
from .datasets import BATCH_SIZE, progress_bar


def run_documents(dataset: Dataset) -> list[tuple[int, str, str]]:
    """``(pk, doc_id, indexed text)`` for every document, in primary-key order."""
    qs = Document.objects.filter(dataset=dataset).order_by("pk")
    return [
        (pk, doc_id, retrieval.document_text(title, text))
        for pk, doc_id, title, text in qs.values_list("pk", "doc_id", "title", "text").iterator(
            chunk_size=BATCH_SIZE
        )
    ]


def _embeddings_store(
    dataset: Dataset,
    documents: Sequence[tuple[int, str, str]],
    vectors: np.ndarray,
    model_name: str,
) -> list[bytes]:
    """Store one vector per document (rows of ``vectors`` in ``documents`` order); a document
    that already has one keeps it. Returns the rows as stored bytes."""
    blobs = retrieval.vectors_to_bytes(vectors)
    with transaction.atomic():
        # ignore_conflicts: two workers encoding the same dataset at once both succeed.
        DocumentEmbedding.objects.bulk_create(
            (
                DocumentEmbedding(
                    dataset=dataset, document_id=d[0], model_name=model_name, vector=blob
                )
                for d, blob in zip(documents, blobs, strict=True)
            ),
            batch_size=2000,
            ignore_conflicts=True,
        )
    return blobs


def embeddings_ensure(
    *,
    dataset: Dataset,
    documents: Sequence[tuple[int, str, str]] | None = None,
    model_name: str = retrieval.DENSE_MODEL_NAME,
    progress: bool = False,
    cache_dir: Path | None = None,
) -> np.ndarray:
    """Dense vectors of ``documents`` (default: all, as :func:`run_documents` lists them).

    Returns float32 ``(len(documents), 384)``, L2-normalised, in the order given. Vectors are
    stored per (document, model) in DocumentEmbedding and reused: only documents without one
    are encoded, longest text first, in chunks of :data:`corpora.retrieval.ENCODE_CHUNK`
    documents, and each chunk is committed as soon as it is encoded. So an interrupted call
    (an exception, a task's time limit, a killed worker) keeps every chunk stored before it,
    at most one chunk of work is lost (about a minute on 2 CPU cores), and the next call
    encodes only the rest. ``cache_dir`` adds an on-disk cache of all the missing documents'
    vectors keyed by their texts' content hash (tests and benchmarks, whose databases are
    recreated), written once every chunk is encoded.
    """
    if documents is None:
        documents = run_documents(dataset)
    stored = dict(
        DocumentEmbedding.objects.filter(
            dataset=dataset, model_name=model_name, windowing=""
        ).values_list("document_id", "vector")
    )
    missing = [d for d in documents if d[0] not in stored]
    if missing:

        def store(positions: list[int], vectors: np.ndarray) -> None:
            chunk = [missing[i] for i in positions]
            blobs = _embeddings_store(dataset, chunk, vectors, model_name)
            stored.update({d[0]: blob for d, blob in zip(chunk, blobs, strict=True)})

        retrieval.encode_cached(
            retrieval.load_encoder(),
            [d[2] for d in missing],
            cache_dir=cache_dir,
            model_name=model_name,
            progress=progress_bar(progress, desc="encoding", unit=" chunks"),
            on_chunk=store,
        )
    if not documents:
        return np.zeros((0, 0), dtype=np.float32)
    first = bytes(stored[documents[0][0]])
    return retrieval.vectors_from_bytes([stored[d[0]] for d in documents], len(first) // 4)


# --- windowed document vectors (MaxP: a document longer than the model's input is split ----
# --- into windows and scored by its best window) ------------------------------------------


def embeddings_windows_ensure(
    *,
    dataset: Dataset,
    documents: Sequence[tuple[int, str, str]],
    model_name: str = retrieval.DENSE_MODEL_NAME,
    max_length: int,
    stride: int,
    progress: bool = False,
    cache_dir: Path | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Dense vectors of the overlapping windows of ``documents``
    (:func:`corpora.retrieval.document_windows` with the model's own tokenizer).

    Returns ``(vectors, starts)``: float32 ``(windows, 384)``, L2-normalised, the windows of
    each document in order and the documents in the order given; ``starts[i]`` (int64) is
    the row of document *i*'s first window, as :func:`corpora.retrieval.cosine_search`
    takes it. Stored and reused like :func:`embeddings_ensure`'s vectors, under windowing
    ``"<max_length>/<stride>"`` with one row per window; documents without stored windows
    are encoded longest first, about :data:`corpora.retrieval.ENCODE_CHUNK` windows at a
    time, each group committed (all windows of a document together) once encoded.
    """
    windowing = f"{max_length}/{stride}"
    stored: dict[int, list[bytes]] = {}
    rows = (
        DocumentEmbedding.objects.filter(
            dataset=dataset, model_name=model_name, windowing=windowing
        )
        .order_by("document_id", "window")
        .values_list("document_id", "vector")
    )
    for document_id, blob in rows.iterator(chunk_size=BATCH_SIZE):
        stored.setdefault(document_id, []).append(blob)
    missing = [d for d in documents if d[0] not in stored]
    if missing:
        model = retrieval.load_encoder()
        windows = retrieval.document_windows(
            retrieval.load_tokenizer(),
            [d[2] for d in missing],
            max_length=max_length,
            stride=stride,
        )
        groups = _window_groups(missing, windows)
        bar = progress_bar(progress, desc="encoding windows", unit=" chunks")
        for group in bar(groups) if bar else groups:
            texts = [w for i in group for w in windows[i]]
            vectors = retrieval.encode_cached(
                model, texts, cache_dir=cache_dir, model_name=f"{model_name} {windowing}"
            )
            blobs = retrieval.vectors_to_bytes(vectors)
            objs: list[DocumentEmbedding] = []
            row = 0
            for i in group:
                document_id = missing[i][0]
                stored[document_id] = blobs[row : row + len(windows[i])]
                objs.extend(
                    DocumentEmbedding(
                        dataset=dataset,
                        document_id=document_id,
                        model_name=model_name,
                        windowing=windowing,
                        window=w,
                        vector=blob,
                    )
                    for w, blob in enumerate(stored[document_id])
                )
                row += len(windows[i])
            with transaction.atomic():
                DocumentEmbedding.objects.bulk_create(objs, batch_size=2000, ignore_conflicts=True)
    if not documents:
        return np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.int64)
    counts = [len(stored[d[0]]) for d in documents]
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    dim = len(bytes(stored[documents[0][0]][0])) // 4
    blobs = [blob for d in documents for blob in stored[d[0]]]
    return retrieval.vectors_from_bytes(blobs, dim), starts


def _window_groups(
    missing: Sequence[tuple[int, str, str]], windows: Sequence[Sequence[str]]
) -> list[list[int]]:
    """The indexes of ``missing`` in encoding groups: longest text first, a new group once
    the current one holds :data:`corpora.retrieval.ENCODE_CHUNK` windows or more (a
    document's windows, ``windows[i]``, are never split)."""
    order = sorted(range(len(missing)), key=lambda i: -len(missing[i][2]))
    groups: list[list[int]] = [[]]
    size = 0
    for i in order:
        if size >= retrieval.ENCODE_CHUNK:
            groups.append([])
            size = 0
        groups[-1].append(i)
        size += len(windows[i])
    return groups


def truncated_document_count(documents: Sequence[tuple[int, str, str]]) -> int:
    """How many documents the dense model reads only in part: more word pieces (its own
    tokenizer, special tokens included) than its ``max_seq_length``."""
    lengths = retrieval.token_lengths(retrieval.load_tokenizer(), [d[2] for d in documents])
    limit = retrieval.max_seq_length()
    return sum(1 for n in lengths if n > limit)


# --- end of windowed document vectors -------------------------------------------------------


def _seed_documents(dataset: Dataset) -> list[tuple[int, str, str]]:
    # doc_id (code-point) order, not primary-key order: a seed file must not depend on the
    # order in which the corpus happened to be imported.
    return sorted(run_documents(dataset), key=lambda d: d[1])  # str order: code points


def _seed_path(folder: Path, model_name: str, documents: Sequence[tuple[int, str, str]]) -> Path:
    key = retrieval.embeddings_cache_key(model_name, [d[2] for d in documents])
    return Path(folder) / f"{key}.npy"


def embeddings_seed(
    *, dataset: Dataset, folder: Path, model_name: str = retrieval.DENSE_MODEL_NAME
) -> int:
    """Store precomputed dense vectors shipped with a bundled dataset, if they match it.

    ``folder/<key>.npy`` holds float32 vectors ``(documents, dim)`` in doc_id (code-point)
    order; ``key`` is :func:`retrieval.embeddings_cache_key` of ``model_name`` and the
    documents' indexed texts in that order, so a file made from other texts or another model
    is never used. Documents that have a vector keep it. Returns how many documents the file
    covered (0 when no file matches, or every document already has a vector).
    """
    documents = _seed_documents(dataset)
    stored = DocumentEmbedding.objects.filter(
        dataset=dataset, model_name=model_name, windowing=""
    ).count()
    if stored == len(documents):  # nothing to seed (a rerun): skip hashing and reading the file
        return 0
    path = _seed_path(folder, model_name, documents)
    if not path.is_file():
        return 0
    vectors = np.load(path)
    if vectors.ndim != 2 or vectors.shape[0] != len(documents):
        return 0
    _embeddings_store(dataset, documents, vectors, model_name)
    return len(documents)


def embeddings_seed_write(
    *, dataset: Dataset, folder: Path, model_name: str = retrieval.DENSE_MODEL_NAME
) -> Path:
    """Write the file :func:`embeddings_seed` reads for ``dataset`` (encoding the documents
    that have no stored vector yet). Returns its path."""
    documents = _seed_documents(dataset)
    vectors = embeddings_ensure(dataset=dataset, documents=documents, model_name=model_name)
    path = _seed_path(folder, model_name, documents)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, np.ascontiguousarray(vectors, dtype="<f4"))
    return path


def bundled_vector_folders() -> list[Path]:
    """The folders of precomputed vectors shipped in this repository: ``data/<dataset>/
    embeddings`` (SciFact's), in name order."""
    return sorted((Path(settings.BASE_DIR) / "data").glob("*/embeddings"))


def embeddings_seed_bundled(
    *, dataset: Dataset, model_name: str = retrieval.DENSE_MODEL_NAME
) -> int:
    """:func:`embeddings_seed` from each of :func:`bundled_vector_folders` in turn, until one
    matches the dataset's documents and ``model_name`` exactly: a dataset imported from the
    bundled folder (by the demo, ``import_beir data/scifact`` or an upload of the same
    files) gets its vectors without encoding; any other finds no file of its key and costs
    one hash of its texts. Returns how many documents were seeded (0: none)."""
    total = Document.objects.filter(dataset=dataset).count()
    stored = DocumentEmbedding.objects.filter(
        dataset=dataset, model_name=model_name, windowing=""
    ).count()
    if stored >= total:  # every vector stored: no text is read
        return 0
    for folder in bundled_vector_folders():
        # A file with another number of rows cannot be this corpus's: looked at (its header
        # only) before any text is read and hashed.
        if not any(
            np.load(path, mmap_mode="r").shape[:1] == (total,) for path in folder.glob("*.npy")
        ):
            continue
        seeded = embeddings_seed(dataset=dataset, folder=folder, model_name=model_name)
        if seeded:
            return seeded
    return 0
