"""The embedded model runs on half the CPUs (llama-cpp-python's default; more threads than free
cores makes llama.cpp far slower), or on DREAM_EMBEDDED_THREADS threads when set."""

from __future__ import annotations

import pytest

from debates.llm import embedded
from debates.llm.base import PermanentLLMError


@pytest.mark.parametrize(("cpus", "threads"), [(1, 1), (2, 1), (8, 4), (None, 1)])
def test_half_the_cpus_and_at_least_one(monkeypatch, cpus, threads):
    monkeypatch.delenv("DREAM_EMBEDDED_THREADS", raising=False)
    monkeypatch.setattr(embedded.os, "cpu_count", lambda: cpus)
    assert embedded.default_threads() == threads


def test_the_environment_variable_wins(monkeypatch):
    monkeypatch.setenv("DREAM_EMBEDDED_THREADS", "3")
    assert embedded.default_threads() == 3


def test_a_malformed_thread_count_is_refused(monkeypatch):
    monkeypatch.setenv("DREAM_EMBEDDED_THREADS", "many")
    with pytest.raises(PermanentLLMError, match="DREAM_EMBEDDED_THREADS"):
        embedded.default_threads()
