"""The RAG prompt is fitted to the generator's context: every passage is cut to the same
length (rank 1 is not favoured), the lowest-ranked passages are dropped only when even empty
ones do not fit, and a question that alone does not fit is an error. No database."""

import pytest

from assess.evaluation.rag import build_rag_messages
from assess.evaluation.rag_context import fit_rag_messages
from debates.engine import prompt_token_count
from debates.llm.base import ContextTooLongError
from debates.llm.scripted import ScriptedClient
from debates.prompts import TRUNCATION_MARKER

CHUNKS = [(f"d{i}", f"T{i}", " ".join(f"w{i}x{j}" for j in range(200))) for i in range(1, 4)]


def client(window: int) -> ScriptedClient:
    return ScriptedClient([], context_window=window)  # counts whitespace-separated words


def test_a_prompt_that_fits_is_left_whole():
    messages, used, truncated = fit_rag_messages(client(10_000), "q?", CHUNKS, max_tokens=64)
    assert (used, truncated) == (3, False)
    assert messages == build_rag_messages("q?", CHUNKS)


def test_every_passage_is_cut_to_the_same_length_and_the_prompt_fits():
    small = client(400)
    messages, used, truncated = fit_rag_messages(small, "q?", CHUNKS, max_tokens=64)
    assert (used, truncated) == (3, True)
    assert prompt_token_count(small, messages) <= 400 - 64
    text = messages[1]["content"]
    kept = [text.count(f"w{i}x") for i in (1, 2, 3)]
    assert kept[0] == kept[1] == kept[2] > 50
    assert text.count(TRUNCATION_MARKER) == 3


def test_the_lowest_ranked_passages_go_when_even_empty_ones_do_not_fit():
    empty_three = prompt_token_count(
        client(1), build_rag_messages("q?", [(d, t, "") for d, t, _ in CHUNKS])
    )
    tight = client(empty_three + 64 - 1)
    _, used, truncated = fit_rag_messages(tight, "q?", CHUNKS, max_tokens=64)
    assert used < 3 and truncated


def test_a_question_that_alone_does_not_fit_is_an_error():
    with pytest.raises(ContextTooLongError, match="even without passages"):
        fit_rag_messages(client(70), "q? " * 50, CHUNKS, max_tokens=64)
