"""Over-long texts of a dataset: queries and documents longer than ``DREAM_LONG_TEXT_CHARS``
characters, counted at import (:func:`dataset_long_texts`) and left out of the cost estimate
(:func:`texts_longer_than`) without reading them whole. Read-only."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Func, IntegerField, Q, QuerySet
from django.db.models.functions import Length

from ..models import Dataset

#: The most ids of over-long queries (and of documents) an import lists.
LONG_TEXT_IDS = 20


class _OctetLength(Func):
    # PostgreSQL reads a stored text's byte length from its header, without unpacking it: a
    # cheap first filter before the exact character count of the few texts it lets through.
    function = "OCTET_LENGTH"
    output_field = IntegerField()

    def as_sqlite(self, compiler: Any, connection: Any, **extra_context: Any) -> Any:
        # SQLite before 3.43 has no OCTET_LENGTH: a text cast to a blob has its byte length.
        return self.as_sql(
            compiler, connection, template="LENGTH(CAST(%(expressions)s AS BLOB))", **extra_context
        )


def texts_longer_than(rows: QuerySet, *, field: str, chars: int) -> QuerySet:
    """``rows`` whose text ``field`` has more than ``chars`` characters. Cheap on a large
    table: the stored byte size filters first (a text never has more characters than bytes,
    so that filter loses none), and only the texts it lets through are counted exactly."""
    by_bytes = rows.alias(text_bytes=_OctetLength(field)).filter(text_bytes__gt=chars)
    return by_bytes.alias(text_chars=Length(field)).filter(text_chars__gt=chars)


def long_text_chars() -> int:
    """``DREAM_LONG_TEXT_CHARS``: characters beyond which a query or document is over-long
    (see docs/configuration.md for why the default, 100,000, cannot fit 8,192 tokens)."""
    return int(settings.DREAM_LONG_TEXT_CHARS)


def dataset_long_texts(*, dataset: Dataset) -> dict:
    """The dataset's over-long texts: queries and documents (text or title) longer than
    :func:`long_text_chars` characters. Returns ``{"chars": threshold, "queries": n,
    "query_ids": [...], "documents": n, "document_ids": [...]}``, at most
    :data:`LONG_TEXT_IDS` ids each, in id order. An over-long query cannot fit an agent's
    context (its debates end as "too long for the context"); of an over-long document only
    the beginning is read. Read-only."""
    chars = long_text_chars()
    queries = texts_longer_than(dataset.queries.all(), field="text", chars=chars)
    queries = queries.order_by("query_id")
    long_texts, long_titles = (
        texts_longer_than(dataset.documents.all(), field=f, chars=chars).values("pk")
        for f in ("text", "title")
    )
    documents = dataset.documents.filter(Q(pk__in=long_texts) | Q(pk__in=long_titles)).order_by(
        "doc_id"
    )
    return {
        "chars": chars,
        "queries": queries.count(),
        "query_ids": list(queries.values_list("query_id", flat=True)[:LONG_TEXT_IDS]),
        "documents": documents.count(),
        "document_ids": list(documents.values_list("doc_id", flat=True)[:LONG_TEXT_IDS]),
    }
