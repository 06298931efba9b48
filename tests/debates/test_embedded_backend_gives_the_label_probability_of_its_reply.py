"""The embedded SmolLM2 backend returns its reply's token logprobs (recorded from the raw
logits, before the grammar), in order and spelling the reply, so a real call gives the
label a probability."""

from __future__ import annotations

import json

from debates.label_probability import label_probability
from debates.llm.base import TOP_LOGPROBS, GenerationParams
from tests.fixtures.llm import RELEVANCE_MESSAGES, REPLY_SCHEMA


def test_a_real_reply_carries_logprobs_and_its_label_a_probability(embedded_client):
    result = embedded_client.chat(
        RELEVANCE_MESSAGES, GenerationParams(max_tokens=200, json_schema=REPLY_SCHEMA)
    )

    assert result.logprobs is not None
    spelled = "".join(token.token for token in result.logprobs)
    # Every generated token but the last (the one generation stops after) is recorded.
    assert result.text.startswith(spelled) and len(spelled) >= len(result.text) - 10
    for token in result.logprobs:
        assert token.logprob <= 0 and len(token.top) == TOP_LOGPROBS
        assert token.top[0][1] >= token.logprob  # the most likely first
    label = json.loads(result.text)["label"]
    p = label_probability(text=result.text, label=label, logprobs=result.logprobs)
    assert p is not None and 0.5 <= p <= 1.0  # normalised over 0 and 1: the chosen is likelier
