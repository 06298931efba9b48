"""The openai backend's chat request reaches the server as the SDK's ``chat.completions.create``
sends it: the same path, the same JSON body (its keys may come in another order) and the same
headers (the backend posts through the SDK's low-level ``post`` to skip ``create``'s per-call
body transform), and the reply is read the same."""

import json

import openai
import pytest

from debates import prompts
from debates.llm.base import TOP_LOGPROBS, GenerationParams
from debates.llm.openai_backend import OpenAIClient
from tests.fixtures.llm_servers import ANSWER_JSON

MESSAGES = [
    {"role": "system", "content": "Reply with JSON only."},
    {"role": "user", "content": "Query: what do solar panels convert?\nText: Sunlight."},
]
# The strict form of the binary reply schema: every object closed, every property required.
STRICT_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "reply", "schema": prompts.REPLY_JSON_SCHEMA, "strict": True},
}
GRADED_SCHEMA = prompts.reply_json_schema(3)


def _create_kwargs(*, schema, reasoning: bool) -> dict:
    """What the backend asks for, spelled as ``create``'s keyword arguments."""
    kwargs = {
        "model": "plain",
        "messages": MESSAGES,
        "max_tokens": 64,
        "temperature": 0.0,
        "seed": 7,
        "logprobs": True,
        "top_logprobs": TOP_LOGPROBS,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": schema, "strict": True},
        },
    }
    if reasoning:
        kwargs["reasoning_effort"] = "low"
        kwargs["extra_body"] = {"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}}
    return kwargs


@pytest.mark.parametrize("reasoning", [False, True], ids=["plain", "reasoning-and-extra-body"])
@pytest.mark.parametrize("graded", [False, True], ids=["binary", "graded"])
def test_the_server_receives_the_same_path_body_and_headers_as_from_create(
    quirks_server, reasoning, graded
):
    schema = GRADED_SCHEMA if graded else prompts.REPLY_JSON_SCHEMA
    backend = OpenAIClient(
        model="plain",
        base_url=quirks_server.base_url,
        api_key="sk-test",
        context_window=8192,
        reasoning_effort="low" if reasoning else None,
        extra_body={"top_k": 20} if reasoning else None,
    )
    extra = {"chat_template_kwargs": {"enable_thinking": False}} if reasoning else {}
    params = GenerationParams(
        temperature=0.0, max_tokens=64, json_schema=schema, seed=7, extra=extra
    )
    result = backend.chat(list(MESSAGES), params)
    second = backend.chat(list(MESSAGES), params)  # the response format built once, reused
    # Made as the backend makes its SDK client (its 60 s timeout is sent as a header).
    sdk = openai.OpenAI(
        base_url=quirks_server.base_url, api_key="sk-test", timeout=60.0, max_retries=0
    )
    response = sdk.chat.completions.create(**_create_kwargs(schema=schema, reasoning=reasoning))

    ours, again, theirs = quirks_server.posts
    assert ours.path == theirs.path == "/v1/chat/completions"
    assert json.loads(ours.body) == json.loads(again.body) == json.loads(theirs.body)
    assert ours.headers == again.headers == theirs.headers
    assert json.loads(ours.body)["response_format"]["json_schema"]["schema"] == schema
    assert result.text == second.text == response.choices[0].message.content == ANSWER_JSON
    assert result.prompt_tokens == response.usage.prompt_tokens


def test_the_strict_response_format_is_built_once_per_schema_and_mode():
    from debates.llm.openai_backend import response_format

    first = response_format("json_schema", prompts.REPLY_JSON_SCHEMA)

    assert first == STRICT_FORMAT
    assert response_format("json_schema", prompts.REPLY_JSON_SCHEMA) is first
    assert prompts.reply_json_schema(3) is GRADED_SCHEMA
    assert response_format("json_object_schema", prompts.REPLY_JSON_SCHEMA) == {
        "type": "json_object",
        "schema": prompts.REPLY_JSON_SCHEMA,
    }
    assert response_format("json_object", prompts.REPLY_JSON_SCHEMA) == {"type": "json_object"}
