"""A fixed-latency OpenAI-compatible server (``bench/latency_server.py``) for the throughput
tests: valid DREAM replies after a set latency, counting requests, the peak in flight and
repeated requests. Import what you use explicitly::

    from tests.latency_fixtures import latency_server_fixture, remote_agent  # noqa: F401
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO


def _load():
    name = "latency_server"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "bench" / "latency_server.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


latency_server_module = _load()
LatencyServer = latency_server_module.LatencyServer
MODEL = latency_server_module.MODEL


@pytest.fixture(name="latency_server")
def latency_server_fixture(tmp_path: Path):
    """``start(latency)``: a running server (stopped at the end of the test)."""
    servers: list[Any] = []

    def start(latency: float = 0.5):
        server = LatencyServer(latency, log=tmp_path / f"latency{len(servers)}.log").start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def remote_agent(server, **extra: Any) -> dict[str, Any]:
    """An openai agent config pointing at ``server``."""
    return {
        "backend": "openai",
        "model": MODEL,
        "base_url": server.url,
        "api_key_env": "DREAM_TEST_NO_KEY",
        "timeout": 30,
        "context_window": 8192,
        **extra,
    }


def stored_calls(job) -> int:
    """LLM calls behind the job's stored turns (re-asks included)."""
    from django.db.models import Sum

    from debates.models import Turn

    return Turn.objects.filter(debate__job=job).aggregate(n=Sum("attempts"))["n"] or 0


def counted_calls(job) -> tuple[int, int, int]:
    """``(calls, prompt tokens, completion tokens)`` summed over the job's debates."""
    from django.db.models import Sum

    sums = job.debates.aggregate(c=Sum("calls"), p=Sum("prompt_tokens"), t=Sum("completion_tokens"))
    return sums["c"] or 0, sums["p"] or 0, sums["t"] or 0
