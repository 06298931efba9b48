"""Fit a run's top-k chunks into the generator's context window. Pure, no database.

The RAG prompt (:func:`assess.evaluation.rag.build_rag_messages`) holds the question and k passages.
When it is longer than the model's context minus the answer budget, every passage is cut
to the same number of characters (so rank 1 is not favoured over rank 10 by length alone),
the longest cut that fits being found by binary search; only when even empty passages do
not fit are the lowest-ranked passages dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

from debates.engine import prompt_token_count
from debates.llm.base import ChatMessage, ContextTooLongError, LLMClient
from debates.prompts import TRUNCATION_MARKER

from .rag import build_rag_messages

Chunk = tuple[str, str, str]  # (doc_id, title, text)


def _cut(chunks: Sequence[Chunk], length: int) -> list[Chunk]:
    out = []
    for doc_id, title, text in chunks:
        if len(text) > length:
            head = text[:length].rstrip()
            text = f"{head} {TRUNCATION_MARKER}" if head else TRUNCATION_MARKER
        out.append((doc_id, title, text))
    return out


def fit_rag_messages(
    client: LLMClient, query: str, chunks: Sequence[Chunk], *, max_tokens: int
) -> tuple[list[ChatMessage], int, bool]:
    """The generator's messages for ``query`` and ``chunks`` (rank order), cut to fit
    ``client.context_window - max_tokens`` tokens as counted by ``client``.

    Returns ``(messages, chunks_used, truncated)``: ``chunks_used`` < len(chunks) when the
    lowest-ranked passages had to be dropped. Raises ContextTooLongError when the question
    alone does not fit.
    """
    limit = client.context_window - max_tokens

    def fits(candidate: Sequence[Chunk]) -> list[ChatMessage] | None:
        messages = build_rag_messages(query, candidate)
        return messages if prompt_token_count(client, messages) <= limit else None

    whole = fits(chunks)
    if whole is not None:
        return whole, len(chunks), False
    for used in range(len(chunks), -1, -1):
        kept = chunks[:used]
        best = fits(_cut(kept, 0))
        if best is None:
            continue
        low, high = 0, max((len(t) for _, _, t in kept), default=0)
        while high - low > 1:
            middle = (low + high) // 2
            candidate = fits(_cut(kept, middle))
            if candidate is None:
                high = middle
            else:
                low, best = middle, candidate
        return best, used, True
    raise ContextTooLongError(
        f"the RAG prompt does not fit {client.model}'s context of {client.context_window} "
        f"tokens minus {max_tokens} for the answer, even without passages"
    )
