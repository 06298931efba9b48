"""count_tokens and prompt_tokens of the embedded backend are SmolLM2's own counts."""

from __future__ import annotations

import gzip
import json

from debates.llm.base import GenerationParams
from tests.fixtures.datasets import BUNDLED_SCIFACT
from tests.fixtures.llm import RELEVANCE_MESSAGES

SCIFACT_CORPUS = BUNDLED_SCIFACT / "corpus.jsonl.gz"


def test_hello_world_is_two_tokens_like_the_tokenizer_says(embedded_client):
    llama = embedded_client.llama
    assert embedded_client.count_tokens("hello world") == len(llama.tokenize(b"hello world")) == 2


def test_a_real_scifact_abstract_counts_as_the_tokenizer_counts_it(embedded_client):
    with gzip.open(SCIFACT_CORPUS, "rt", encoding="utf-8") as corpus:
        doc = json.loads(corpus.readline())
    text = doc["text"]
    expected = len(embedded_client.llama.tokenize(text.encode("utf-8"), add_bos=False))
    assert embedded_client.count_tokens(text) == expected
    assert expected > 100


def test_prompt_tokens_is_what_the_model_reports_for_the_call(embedded_client):
    result = embedded_client.chat(RELEVANCE_MESSAGES, GenerationParams(max_tokens=1))
    assert result.prompt_tokens == embedded_client.prompt_tokens(RELEVANCE_MESSAGES)
    content = sum(embedded_client.count_tokens(m["content"]) for m in RELEVANCE_MESSAGES)
    # ChatML markup: 5-6 tokens a message plus 3 for the assistant cue.
    assert content + 2 * 5 + 3 <= result.prompt_tokens <= content + 2 * 6 + 3
