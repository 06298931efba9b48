"""Without a tokenizer the OpenAI backend estimates tokens from the text's pieces; on every
bundled SciFact document and query, and on awkward hand-picked strings, the estimate is at
least SmolLM2's real count (49k-token vocabulary, a less efficient tokenizer than those of
hosted models), without being absurdly high."""

from __future__ import annotations

import gzip
import json

from debates.llm.openai_backend import OpenAIClient, estimate_tokens
from tests.fixtures.datasets import BUNDLED_SCIFACT

SCIFACT = BUNDLED_SCIFACT
AWKWARD = [
    "JACOBI (Algorithm 85)",
    "\nBcp1 is a chaperone for Rpl23.",
    "Ünïcödé naïve café",
    "数据 检索 评估",
    "🙂🚀 emoji",
    "1234567890" * 5,
    "    indented\n\tcode()",
    "x",
    "",
]


def test_the_estimate_bounds_the_real_count_on_scifact(embedded_client):
    texts = []
    for name in ("corpus.jsonl.gz", "queries.jsonl.gz"):
        with gzip.open(SCIFACT / name, "rt", encoding="utf-8") as lines:
            for line in lines:
                obj = json.loads(line)
                texts.append(f"{obj.get('title', '')}\n{obj['text']}")
    assert len(texts) == 5183 + 1109
    ratios = [embedded_client.count_tokens(text) / estimate_tokens(text) for text in texts]
    assert max(ratios) <= 1.0
    assert 0.45 < sum(ratios) / len(ratios) < 0.65  # over-counts, but not absurdly


def test_the_estimate_bounds_the_real_count_on_awkward_text(embedded_client):
    for text in AWKWARD:
        assert embedded_client.count_tokens(text) <= estimate_tokens(text), text


def test_the_estimate_on_hand_worked_strings():
    assert estimate_tokens("") == 3
    assert estimate_tokens("hello world") == 3 + 2 + 2  # ceil(5/3) twice
    assert estimate_tokens("NASA, 2024.") == 3 + (2 + 1) + 1 + 4 + 1
    assert estimate_tokens("é") == 3 + 2


def test_a_given_tokenizer_replaces_the_estimate():
    client = OpenAIClient(
        model="m", base_url="http://127.0.0.1:9/v1", api_key="k", tokenizer=lambda t: len(t.split())
    )
    assert client.count_tokens("one two three") == 3
