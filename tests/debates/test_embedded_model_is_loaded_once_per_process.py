"""Embedded clients share one loaded model per process, and concurrent calls are serialised."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from debates.llm.base import GenerationParams
from debates.llm.config import AgentConfig
from debates.llm.embedded import EmbeddedClient
from debates.llm.registry import client_from_config
from tests.fixtures.llm import RELEVANCE_MESSAGES


def test_every_client_uses_the_same_loaded_model():
    first, second = EmbeddedClient(), client_from_config(AgentConfig.load({"backend": "embedded"}))
    assert first.llama is second.llama


def test_a_different_context_size_loads_its_own_copy():
    assert EmbeddedClient(n_ctx=1024).llama is not EmbeddedClient().llama


def test_two_threads_calling_at_once_get_the_replies_of_sequential_calls():
    params = GenerationParams(max_tokens=8)
    clients = [EmbeddedClient(), EmbeddedClient()]
    sequential = clients[0].chat(RELEVANCE_MESSAGES, params).text
    with ThreadPoolExecutor(max_workers=2) as pool:
        texts = list(pool.map(lambda c: c.chat(RELEVANCE_MESSAGES, params).text, clients))
    assert texts == [sequential, sequential]
