"""What the stage-0 judge reads of pairs, from the database: their MiniLM vectors
(:func:`debates.stage0.vectors.pair_vectors`) and their term-matching scalars
(:mod:`debates.stage0.lexical`) over the dataset's corpus.

The corpus statistics (:func:`dataset_lexicon`: document frequencies and the BM25 index of
every document of the dataset) are built once per call of a service and passed to each
:func:`pair_inputs` of that call; the documents are streamed from the database in chunks
and only the sparse index and the IDF table are kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from corpora import retrieval
from corpora.models import Dataset, Document, Query

from .fit import PairInputs
from .lexical import Lexicon, pair_scalars
from .vectors import pair_vectors

#: Documents read from the database per query while the corpus statistics are built.
CHUNK = 2_000


def dataset_lexicon(*, dataset: Dataset) -> Lexicon:
    """The corpus statistics of every document of ``dataset`` (keys: document primary keys),
    tokens as the built-in BM25 run reads them. Raises ValueError for a dataset without
    documents."""
    rows = (
        Document.objects.filter(dataset=dataset)
        .order_by("pk")
        .values_list("pk", "title", "text")
        .iterator(chunk_size=CHUNK)
    )
    return Lexicon(
        (pk, retrieval.tokenize(retrieval.document_text(title, text))) for pk, title, text in rows
    )


def pair_inputs(
    *,
    dataset: Dataset,
    pairs: Sequence[tuple[int, int]],
    lexicon: Lexicon,
    windowing: str = "",
) -> PairInputs:
    """The vectors and raw scalars of ``pairs`` (``(query pk, document pk)``), row *i* pair
    *i*; ``lexicon`` from :func:`dataset_lexicon` of the same dataset; ``windowing`` as
    :func:`debates.stage0.vectors.pair_vectors`. Each query and document is read and
    tokenised once however many pairs hold it."""
    queries, documents = pair_vectors(dataset=dataset, pairs=pairs, windowing=windowing)
    query_pks = {q for q, _ in pairs}
    doc_pks = {d for _, d in pairs}
    query_tokens = {
        pk: retrieval.tokenize(text)
        for pk, text in Query.objects.filter(pk__in=query_pks).values_list("pk", "text")
    }
    doc_tokens = {
        pk: retrieval.tokenize(retrieval.document_text(title, text))
        for pk, title, text in Document.objects.filter(pk__in=doc_pks).values_list(
            "pk", "title", "text"
        )
    }
    scalars = pair_scalars(
        lexicon,
        [query_tokens[q] for q, _ in pairs],
        [doc_tokens[d] for _, d in pairs],
        [d for _, d in pairs],
    )
    return PairInputs(queries, documents, scalars)
