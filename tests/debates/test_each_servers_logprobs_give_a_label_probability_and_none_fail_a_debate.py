"""A debate job through the openai backend against servers answering with logprobs in their
own shape (vLLM, llama.cpp, SGLang, OpenAI; tests/fixtures/llm_servers.py), with none, with
logprobs of other tokens only, and refusing the parameter: the label probability is stored
when the label's token is there, else None, and every debate ends normally."""

from __future__ import annotations

import pytest

from debates.llm.base import TOP_LOGPROBS
from debates.models import Debate, Turn
from debates.services.launch import JobSpec, debate_job_launch, debate_job_wait
from tests.fixtures.llm_servers import LABEL_P

pytestmark = pytest.mark.django_db


def _run(small_pool, server, shape: str):
    agent = {"backend": "openai", "model": shape, "base_url": server.base_url}
    spec = JobSpec(pool=small_pool, agent_a=agent, rounds=1, limit=2, concurrency=1)
    job = debate_job_launch(spec=spec)
    progress = debate_job_wait(job=job)
    return job, progress


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ("logprobs-vllm", LABEL_P),
        ("logprobs-llama-cpp", LABEL_P),
        ("logprobs-sglang", LABEL_P),
        ("logprobs-openai", LABEL_P),
        ("plain", None),  # vLLM's "logprobs": null
        ("logprobs-other-tokens", None),
        ("refuses-logprobs", None),
    ],
)
def test_the_label_probability_is_stored_when_the_server_gives_the_labels_token(
    shape, expected, small_pool, quirks_server
):
    job, progress = _run(small_pool, quirks_server, shape)

    assert progress.failed == 0
    assert set(Debate.objects.filter(job=job).values_list("status", flat=True)) == {"agreed"}
    turns = list(Turn.objects.filter(debate__job=job))
    assert len(turns) == 4
    for turn in turns:
        assert turn.label == 1
        if expected is None:
            assert turn.label_probability is None
        else:
            assert turn.label_probability == pytest.approx(0.83 / 0.98)
    first = quirks_server.requests_for(shape)[0]
    assert (first["logprobs"], first["top_logprobs"]) == (True, TOP_LOGPROBS)


def test_a_server_refusing_logprobs_is_asked_again_without_and_never_asked_again(
    small_pool, quirks_server
):
    _run(small_pool, quirks_server, "refuses-logprobs")

    asked = [("logprobs" in body) for body in quirks_server.requests_for("refuses-logprobs")]
    # The first request is refused, the same turn is asked again without; 4 turns, 5 requests.
    assert asked == [True, False, False, False, False]
