"""A stored RAG answer is reused only by the same generator: backend kind, server (base URL)
and model. Two servers that report the same model name never share answers; settings that
do not change an answer (API key variable, timeout, rate limit) do not split them."""

import pytest

from assess.evaluation.rag_eval import generator_key, rag_evaluate
from assess.models import RagGeneration
from debates.llm.config import AgentConfig
from debates.llm.scripted import RuleClient, ScriptedClient
from tests.fixtures.refine import rag_rule

GPU1 = {"backend": "openai", "model": "llama", "base_url": "http://gpu1:8000/v1"}
GPU2 = {"backend": "openai", "model": "llama", "base_url": "http://gpu2:8000/v1"}


def evaluate(world, client, backend):
    return rag_evaluate(
        dataset=world.dataset,
        runs=world.runs,
        k=1,
        original=world.test,
        refined=world.refined,
        client=client,
        backend=backend,
    )


def test_the_generator_key_names_kind_server_and_model(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    gpu1 = AgentConfig.load(GPU1)
    assert generator_key(backend=gpu1, model="llama") == "openai:http://gpu1:8000/v1:llama"
    slash = AgentConfig.load({**GPU1, "base_url": "http://gpu1:8000/v1/"})
    assert generator_key(backend=slash, model="llama") == "openai:http://gpu1:8000/v1:llama"
    default = AgentConfig.load({"backend": "openai", "model": "gpt-4o", "base_url": None})
    assert generator_key(backend=default, model="gpt-4o") == (
        "openai:https://api.openai.com/v1:gpt-4o"
    )
    embedded = AgentConfig.stored(
        {"backend": "embedded", "model": "SmolLM2-135M-Instruct-Q4_1", "n_ctx": 2048}
    )
    assert generator_key(backend=embedded, model="SmolLM2-135M-Instruct-Q4_1") == (
        "embedded:in-process:SmolLM2-135M-Instruct-Q4_1"
    )


@pytest.mark.django_db
def test_another_server_with_the_same_model_name_generates_its_own_answers(holes_rag):
    first = RuleClient(rag_rule, model="llama")
    evaluate(holes_rag, first, GPU1)
    assert len(first.calls) == 6
    second = RuleClient(rag_rule, model="llama")
    report = evaluate(holes_rag, second, GPU2)
    assert len(second.calls) == 6
    assert [(s.generated, s.reused) for s in report.systems] == [(2, 0)] * 3
    assert sorted(RagGeneration.objects.values_list("generator", flat=True).distinct()) == [
        "openai:http://gpu1:8000/v1:llama",
        "openai:http://gpu2:8000/v1:llama",
    ]
    assert RagGeneration.objects.count() == 12


@pytest.mark.django_db
def test_the_same_server_reuses_its_answers_whatever_its_key_or_rate_limit(holes_rag):
    evaluate(holes_rag, RuleClient(rag_rule, model="llama"), GPU1)
    silent = ScriptedClient([], model="llama")  # any call would fail the test
    same = {**GPU1, "api_key_env": "OTHER_KEY", "timeout": 5.0, "rpm": 10}
    report = evaluate(holes_rag, silent, same)
    assert silent.calls == []
    assert [(s.generated, s.reused) for s in report.systems] == [(0, 2)] * 3
    assert report.generator == "openai:http://gpu1:8000/v1:llama"
