"""The quirks server's shapes reach the openai SDK as the real servers' replies do."""

import json
import urllib.error
import urllib.request

import openai
import pytest

from tests.fixtures.llm_servers import ANSWER, ANSWER_JSON, CUT_JSON, SHAPES, QuirksServer

MESSAGES = [
    {"role": "system", "content": "Reply with JSON only."},
    {"role": "user", "content": "Query: what do solar panels convert?\nText: Sunlight."},
]


def client(server: QuirksServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)


def ask(server: QuirksServer, model: str, **params):
    return client(server).chat.completions.create(model=model, messages=MESSAGES, **params)


def test_the_model_list_names_every_shape_with_a_context_and_props_is_absent(quirks_server):
    models = client(quirks_server).models.list().data

    assert [m.id for m in models] == list(SHAPES)
    assert {m.model_extra["max_model_len"] for m in models} == {8192}
    props = quirks_server.base_url.removesuffix("/v1") + "/props"
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(props, timeout=5)
    assert raised.value.code == 404


def test_plain_content_is_the_answer_json_with_a_full_chat_completion_around_it(quirks_server):
    response = ask(quirks_server, "plain", max_tokens=64)

    choice = response.choices[0]
    assert response.object == "chat.completion"
    assert choice.index == 0 and choice.message.role == "assistant"
    assert json.loads(choice.message.content) == ANSWER
    assert choice.finish_reason == "stop"
    usage = response.usage
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_think_tags_with_or_without_the_opener_stay_in_content(quirks_server):
    tagged = ask(quirks_server, "think-tags").choices[0].message.content
    no_opener = ask(quirks_server, "think-no-opener").choices[0].message.content

    assert tagged.startswith("<think>\n") and tagged.endswith("</think>\n\n" + ANSWER_JSON)
    assert "<think>" not in no_opener and no_opener.endswith("</think>\n\n" + ANSWER_JSON)


def test_the_vllm_reasoning_field_is_counted_within_completion_tokens(quirks_server):
    response = ask(quirks_server, "reasoning-field")

    message = response.choices[0].message
    assert json.loads(message.content) == ANSWER
    assert message.model_extra["reasoning"]
    assert "reasoning_content" not in message.model_extra
    reasoning_tokens = response.usage.completion_tokens_details.reasoning_tokens
    assert 0 < reasoning_tokens < response.usage.completion_tokens


def test_reasoning_content_reaches_the_sdk_as_an_extra_field(quirks_server):
    message = ask(quirks_server, "reasoning-content").choices[0].message

    assert message.model_extra["reasoning_content"]
    assert json.loads(message.content) == ANSWER


def test_json_in_reasoning_leaves_content_null(quirks_server):
    choice = ask(quirks_server, "json-in-reasoning").choices[0]

    assert choice.message.content is None
    assert ANSWER_JSON in choice.message.model_extra["reasoning_content"]
    assert choice.finish_reason == "stop"


def test_a_small_budget_goes_on_reasoning_and_a_large_one_reaches_the_answer(quirks_server):
    short = ask(quirks_server, "budget-on-reasoning", max_completion_tokens=200)
    large = ask(quirks_server, "budget-on-reasoning", max_completion_tokens=2000)

    assert short.choices[0].finish_reason == "length"
    assert short.choices[0].message.content == ""
    assert short.choices[0].message.model_extra["reasoning_content"]
    assert short.usage.completion_tokens == 200
    assert short.usage.completion_tokens_details.reasoning_tokens == 200
    assert large.choices[0].finish_reason == "stop"
    assert json.loads(large.choices[0].message.content) == ANSWER


def test_max_completion_tokens_wins_over_max_tokens_as_the_budget(quirks_server):
    response = ask(quirks_server, "cut-then-fine", max_tokens=100, max_completion_tokens=4000)

    assert response.choices[0].finish_reason == "stop"


def test_a_reply_cut_by_the_budget_is_unfinished_json_of_length(quirks_server):
    cut = ask(quirks_server, "cut-then-fine", max_tokens=300)
    fine = ask(quirks_server, "cut-then-fine", max_tokens=3000)
    always = ask(quirks_server, "always-cut", max_tokens=3000)

    assert (cut.choices[0].message.content, cut.choices[0].finish_reason) == (CUT_JSON, "length")
    assert cut.usage.completion_tokens == 300
    assert json.loads(fine.choices[0].message.content) == ANSWER
    assert always.choices[0].finish_reason == "length"
    assert always.usage.completion_tokens == 3000


def test_always_thinking_opens_a_think_tag_it_never_closes(quirks_server):
    choice = ask(quirks_server, "always-thinking", max_tokens=3000).choices[0]

    assert choice.message.content.startswith("<think>")
    assert "</think>" not in choice.message.content
    assert choice.finish_reason == "length"


def test_openai_reasoning_refuses_max_tokens_before_temperature(quirks_server):
    with pytest.raises(openai.BadRequestError) as raised:
        ask(quirks_server, "openai-reasoning", max_tokens=500, temperature=0)
    assert raised.value.code == "unsupported_parameter"
    assert raised.value.param == "max_tokens"

    with pytest.raises(openai.BadRequestError) as raised:
        ask(quirks_server, "openai-reasoning", max_completion_tokens=500, temperature=0)
    assert raised.value.code == "unsupported_value"
    assert "does not support 0 with this model" in raised.value.message


def test_openai_reasoning_hides_its_reasoning_and_counts_it_and_the_cache(quirks_server):
    long_messages = [{"role": "user", "content": "word " * 1200}]
    response = client(quirks_server).chat.completions.create(
        model="openai-reasoning",
        messages=long_messages,
        max_completion_tokens=2000,
        reasoning_effort="low",
    )
    short = ask(quirks_server, "openai-reasoning", max_completion_tokens=2000, temperature=1)

    message = response.choices[0].message
    assert json.loads(message.content) == ANSWER
    assert "reasoning" not in message.model_extra
    assert "reasoning_content" not in message.model_extra
    usage = response.usage
    assert usage.completion_tokens_details.reasoning_tokens == 192 < usage.completion_tokens
    assert usage.prompt_tokens >= 1024
    assert usage.prompt_tokens_details.cached_tokens == 1024
    assert short.usage.prompt_tokens_details.cached_tokens == 0
    assert quirks_server.requests_for("openai-reasoning")[-2]["reasoning_effort"] == "low"


def test_openai_reasoning_spends_a_small_budget_on_hidden_reasoning(quirks_server):
    response = ask(quirks_server, "openai-reasoning", max_completion_tokens=100)

    choice = response.choices[0]
    assert (choice.message.content, choice.finish_reason) == ("", "length")
    assert response.usage.completion_tokens == 100
    assert response.usage.completion_tokens_details.reasoning_tokens == 100


def test_a_lone_surrogate_escape_reaches_the_client_in_content_or_after_json_loads(
    quirks_server,
):
    in_content = ask(quirks_server, "surrogate-in-content").choices[0].message.content
    in_argument = ask(quirks_server, "surrogate-in-argument").choices[0].message.content

    assert "\ud83d" in in_content
    assert in_content.startswith(ANSWER_JSON)
    assert "\ud83d" not in in_argument and "\\ud83d" in in_argument
    assert "\ud83d" in json.loads(in_argument)["argument"]


def test_a_nul_escape_becomes_a_nul_in_the_argument(quirks_server):
    content = ask(quirks_server, "nul-in-argument").choices[0].message.content

    assert "\x00" not in content and "\\u0000" in content
    assert "\x00" in json.loads(content)["argument"]


def test_a_valid_emoji_arrives_intact(quirks_server):
    content = ask(quirks_server, "valid-emoji").choices[0].message.content

    assert "😀" in json.loads(content)["argument"]
    content.encode("utf-8")  # no lone surrogate


def test_llama_cpp_adds_timings_and_reports_usage_without_details(quirks_server):
    response = ask(quirks_server, "llama-cpp-reasoning")

    assert response.choices[0].message.model_extra["reasoning_content"]
    assert response.model_extra["timings"]["predicted_n"] == response.usage.completion_tokens
    assert response.usage.prompt_tokens_details is None
    assert response.usage.completion_tokens_details is None


def test_cached_reports_half_the_prompt_and_details_null_reports_none(quirks_server):
    cached = ask(quirks_server, "cached").usage
    null = ask(quirks_server, "details-null").usage

    assert cached.prompt_tokens_details.cached_tokens == cached.prompt_tokens // 2
    assert null.prompt_tokens_details is None and null.completion_tokens_details is None


def test_ollama_limits_only_on_max_tokens_and_puts_reasoning_in_reasoning(quirks_server):
    ignored = ask(quirks_server, "ollama-reasoning", max_completion_tokens=10)
    cut = ask(quirks_server, "ollama-reasoning", max_tokens=20)

    assert ignored.choices[0].finish_reason == "stop"
    assert ignored.usage.completion_tokens > 10
    assert ignored.choices[0].message.model_extra["reasoning"]
    assert (cut.choices[0].message.content, cut.choices[0].finish_reason) == ("", "length")
    assert cut.choices[0].message.model_extra["reasoning"]
    assert cut.system_fingerprint == "fp_ollama"


def test_ik_llama_cpp_reports_a_cut_reply_as_stop(quirks_server):
    response = ask(quirks_server, "ik-llama-cpp-cut-as-stop", max_tokens=100)

    assert response.choices[0].message.content == CUT_JSON
    assert response.choices[0].finish_reason == "stop"
    assert response.usage.completion_tokens == 100


def test_vllm_cut_in_reasoning_leaves_content_null(quirks_server):
    response = ask(quirks_server, "vllm-cut-in-reasoning", max_completion_tokens=300)

    assert response.choices[0].message.content is None
    assert response.choices[0].message.model_extra["reasoning"]
    assert response.choices[0].finish_reason == "length"
    assert response.usage.completion_tokens_details.reasoning_tokens == 300


def test_an_unknown_model_is_a_404_naming_it(quirks_server):
    with pytest.raises(openai.NotFoundError, match="The model `gpt-9` does not exist."):
        ask(quirks_server, "gpt-9")


def test_requests_are_recorded_in_order_per_model_and_reset_clears_them(quirks_server):
    ask(quirks_server, "plain", max_tokens=11)
    ask(quirks_server, "cached", max_tokens=22)
    ask(quirks_server, "plain", max_tokens=33, response_format={"type": "json_object"})

    assert [body["model"] for body in quirks_server.requests] == ["plain", "cached", "plain"]
    plain = quirks_server.requests_for("plain")
    assert [body["max_tokens"] for body in plain] == [11, 33]
    assert plain[0]["messages"] == MESSAGES
    assert plain[1]["response_format"] == {"type": "json_object"}
    quirks_server.reset()
    assert quirks_server.requests == []
