"""Two GGUF files are two models everywhere: the bundled file and a copy of it at another
path get different clients (and loaded models), rate-limit keys and RAG generator keys."""

import pytest

from assess.evaluation.rag_eval import generator_key
from debates.llm.config import AgentConfig
from debates.llm.registry import backend_key
from debates.services import agent_client_get, agent_config_validate


@pytest.mark.django_db
def test_the_bundled_model_and_a_copy_are_told_apart(gguf_copy):
    bundled = agent_config_validate({"backend": "embedded"})
    copy = agent_config_validate({"backend": "embedded", "model_path": str(gguf_copy)})
    a, b = agent_client_get(config=bundled), agent_client_get(config=copy)
    assert a is not b and a.llama is not b.llama
    assert (a.model, b.model) == ("SmolLM2-135M-Instruct-Q4_1", str(gguf_copy))
    # The same file, its config stored and read again: one client per process.
    assert agent_client_get(config=AgentConfig.stored(copy.dump())) is b
    assert backend_key(bundled) == "embedded:SmolLM2-135M-Instruct-Q4_1"
    assert backend_key(copy) == f"embedded:{gguf_copy}"
    assert generator_key(backend=copy, model=b.model) == f"embedded:in-process:{gguf_copy}"
    assert generator_key(backend=bundled, model=a.model) != generator_key(
        backend=copy, model=b.model
    )
