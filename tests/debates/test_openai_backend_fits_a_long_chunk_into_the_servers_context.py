"""The OpenAI backend never sends a prompt known to exceed the server's context.

Against the real llama.cpp server (llama-cpp-python, 2048-token context, which reports its
context nowhere) behind a recording proxy: ``--context-window 2048`` makes run_debates cut a
~7,000-token chunk and the debate complete without any HTTP 400; a server that reports
``max_model_len`` (as vLLM does) sets the window when none is configured; without either, the
server's first rejection ("maximum context length is 2048 tokens") lowers the window and the
chunk is fitted again; a rejection that states no maximum fails the debate at once, naming
``--context-window``, instead of three attempts.
"""

from __future__ import annotations

import gzip
import json

import pytest
from django.core.management import call_command

from debates.engine import DebateConfig, PairText, judge_single
from debates.llm.config import AgentConfig
from debates.llm.registry import client_from_config
from debates.models import Debate, DebateJob
from debates.services import debate_run
from debates.services.launch import JobSpec, debate_job_launch
from tests.fixtures.datasets import BUNDLED_SCIFACT, write_beir
from tests.fixtures.jobs import pool_of
from tests.fixtures.llm import SERVER_MODEL_ALIAS


def long_text(chars: int = 30_000) -> str:
    """Real SciFact abstracts joined until ``chars`` characters (about 7,000 tokens)."""
    parts, size = [], 0
    with gzip.open(BUNDLED_SCIFACT / "corpus.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            text = json.loads(line)["text"]
            parts.append(text)
            size += len(text) + 1
            if size >= chars:
                break
    return " ".join(parts)[:chars]


LONG = long_text()
PAIR = PairText(
    query_id="q1",
    query="Does vitamin D lower the risk of fractures?",
    doc_id="long",
    title="Many abstracts",
    chunk=LONG,
)
CONFIG = DebateConfig(rounds=1)


@pytest.fixture
def long_pool(tmp_path):
    from corpora.services import dataset_import_beir

    folder = write_beir(
        tmp_path / "long",
        corpus=[{"_id": "long", "title": "Many abstracts", "text": LONG}],
        queries=[{"_id": "q1", "text": PAIR.query}],
        qrels={"test": "query-id\tcorpus-id\tscore\nq1\tlong\t1\n"},
    )
    return pool_of(dataset_import_beir(path=folder, name="long"), [("q1", "long")])


@pytest.mark.django_db
def test_run_debates_with_context_window_2048_cuts_the_chunk_and_sends_no_400(
    long_pool, recording_proxy, capsys
):
    call_command(
        "run_debates",
        "long/pool",
        "--backend",
        "openai",
        "--model",
        SERVER_MODEL_ALIAS,
        "--base-url",
        recording_proxy.base_url,
        "--context-window",
        "2048",
        "--rounds",
        "1",
        "--no-progress",
    )
    job = DebateJob.objects.get()
    assert job.agent_a["context_window"] == job.agent_b["context_window"] == 2048
    debate = job.debates.get()
    assert debate.status in ("agreed", "escalated"), debate.last_error
    assert debate.chunk_truncated is True
    turns = list(debate.turns.all())
    assert [(t.round, t.agent, t.chunk_truncated) for t in turns] == [
        (1, "A", True),
        (1, "B", True),
    ]
    statuses = [r["status"] for r in recording_proxy.chat_requests()]
    assert 400 not in statuses
    # One 500 at most: this server refuses {"type": "json_schema"} and the client falls back.
    assert statuses.count(200) == sum(t.attempts for t in turns)
    assert all(t.prompt_tokens + 384 <= 2048 * t.attempts for t in turns)
    assert "failed: 0" in capsys.readouterr().out.splitlines()


def test_a_window_the_server_reports_is_used_when_none_is_configured(recording_proxy):
    recording_proxy.models_extra = {"max_model_len": 2048}  # what vLLM says in GET /v1/models
    client = client_from_config(
        AgentConfig.load(
            {"backend": "openai", "model": SERVER_MODEL_ALIAS, "base_url": recording_proxy.base_url}
        )
    )
    assert (client.context_window, client.context_source) == (2048, "server")
    turn = judge_single(PAIR, client, CONFIG)
    assert turn.chunk_truncated is True
    assert [r["status"] for r in recording_proxy.chat_requests()] in ([200], [500, 200])
    assert [r["path"] for r in recording_proxy.requests][0] == "/v1/models"


def test_the_servers_rejection_lowers_the_window_and_the_chunk_is_fitted_again(recording_proxy):
    client = client_from_config(
        AgentConfig.load(
            {"backend": "openai", "model": SERVER_MODEL_ALIAS, "base_url": recording_proxy.base_url}
        )
    )
    # llama-cpp-python's server reports no context (GET /models, /props): the default.
    assert (client.context_window, client.context_source) == (8192, "default")
    turn = judge_single(PAIR, client, CONFIG)
    assert (client.context_window, client.context_source) == (2048, "server rejection")
    assert turn.chunk_truncated is True
    statuses = [r["status"] for r in recording_proxy.chat_requests()]
    # Fitted to 8192: refused once (after the response-format fallback's 500, if any); fitted
    # to 2048: answered.
    assert statuses.count(400) == 1
    assert statuses[-1] == 200


@pytest.mark.django_db
def test_a_rejection_stating_no_maximum_fails_the_debate_at_once_naming_the_flag(
    long_pool, recording_proxy
):
    config = {
        "backend": "openai",
        "model": SERVER_MODEL_ALIAS,
        "base_url": recording_proxy.base_url,
        "context_window": 2048,
    }
    job = debate_job_launch(spec=JobSpec(pool=long_pool, agent_a=config, rounds=1), start=False)
    recording_proxy.reject_next_as_too_long(5)
    debate = debate_run(debate_id=job.debates.get().pk, requeue=False)
    assert (debate.status, debate.attempts) == (Debate.Status.FAILED, 1)
    assert debate.last_error.startswith(
        f"ContextTooLongError: {SERVER_MODEL_ALIAS} at {recording_proxy.base_url}: HTTP 400: "
        "prompt is too long for this model (the prompt was fitted to a context window of 2048 "
        "tokens: set --context-window, or context_window in the backend config, to the "
        "server's context)"
    )
    assert len(recording_proxy.chat_requests()) == 1  # not retried
