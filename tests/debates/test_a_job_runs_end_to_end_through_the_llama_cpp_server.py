"""A small debate job through the openai backend against a real third-party server:
``python -m llama_cpp.server`` (llama-cpp-python's server extra, pinned) serving the bundled
SmolLM2 GGUF. Every debate ends (agreed or escalated, none failed) and the server's own
usage counts are what the job records."""

from __future__ import annotations

import pytest

from debates.models import Debate, Turn
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.llm import SERVER_MODEL_ALIAS, SERVER_N_CTX

pytestmark = pytest.mark.django_db


def test_a_two_round_job_on_four_pairs_ends_with_every_call_counted(small_pool, llama_server):
    agent = {
        "backend": "openai",
        "model": SERVER_MODEL_ALIAS,
        "base_url": llama_server.base_url,
        "context_window": SERVER_N_CTX,
    }
    spec = JobSpec(pool=small_pool, agent_a=agent, rounds=2, max_tokens=384, concurrency=2)

    job = debate_job_launch(spec=spec)
    progress = debate_job_wait(job=job)

    assert (progress.status, progress.total, progress.failed) == ("finished", 4, 0)
    assert progress.agreed + progress.escalated == 4
    turns = list(Turn.objects.filter(debate__job=job))
    # Each of the 4 debates asked at least its round-1 turn; each call is counted once.
    assert progress.calls == sum(t.attempts for t in turns) >= 4
    assert progress.prompt_tokens == sum(t.prompt_tokens for t in turns) > 0
    assert all(t.model == SERVER_MODEL_ALIAS for t in turns)
    assert all(a["max_tokens"] in (384, 768) for t in turns for a in t.attempt_log)
    for debate in Debate.objects.filter(job=job, status="escalated"):
        assert debate.escalation_reason in ("disagreement", "unparsed", "truncated")
