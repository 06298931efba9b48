"""The labels JSONL has one line per judged pair of the refined set: original rows with
source "original", new labels with their source, consensus round, job, debate (transcript
id), models, prompt version and annotators."""

import io
import json

import pytest

from assess.models import Judgment
from assess.refined.exports import export_stream
from debates.models import Debate

MODELS = ["SmolLM2-135M-Instruct-Q4_1", "SmolLM2-135M-Instruct-Q4_1"]


@pytest.mark.django_db
def test_each_judged_pair_is_one_line_in_canonical_order(refined):
    Judgment.objects.filter(item__debate=refined.debate("q2", "d6")).update(seconds_on_task=42.5)
    out = io.StringIO()
    rows = export_stream(kind="labels", out=out, qrel_set=refined.refined)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert rows == len(lines) == 8
    assert [(r["query_id"], r["doc_id"], r["label"], r["source"]) for r in lines] == [
        ("q1", "d1", 1, "original"),
        ("q1", "d2", 0, "original"),
        ("q1", "d3", 1, "consensus"),
        ("q1", "d5", 0, "consensus"),
        ("q2", "d3", 1, "human"),
        ("q2", "d4", 1, "original"),
        ("q2", "d5", -1, "original"),
        ("q2", "d6", 0, "human"),
    ]
    original = lines[0]
    assert original == {
        "query_id": "q1",
        "doc_id": "d1",
        "label": 1,
        "source": "original",
        "assessed_label": None,
        "assessed_source": None,
        "original_label": None,
        "consensus_label": None,
        "consensus_round": None,
        "correction": False,
        "job": None,
        "debate": None,
        "models": [],
        "prompt_version": None,
        "annotators": [],
        "adjudicator": None,
        "decided_at": None,
        "llm_calls": None,
        "prompt_tokens": None,
        "completion_tokens": None,
        "cached_tokens": None,
        "reasoning_tokens": None,
        "generation": None,
        "human_seconds": None,
        "inclusion": None,
        "llm_money": None,
        "label_probabilities": None,
        "label_source": "original",
        "human_judgments": [],
        "reused": None,
        "simulated": False,
        "simulated_from": None,
    }
    consensus = lines[3]
    assert consensus["consensus_round"] == 2
    assert consensus["job"] == refined.job.pk
    assert consensus["debate"] == refined.debate("q1", "d5").pk
    assert consensus["models"] == MODELS
    assert consensus["prompt_version"] == "dream-v1"
    assert consensus["decided_at"] == "2026-01-02T03:06:05+00:00"
    audit = lines[7]
    assert (audit["label"], audit["source"], audit["annotators"]) == (0, "human", ["bob"])
    assert (audit["consensus_label"], audit["consensus_round"]) == (1, 1)
    assert audit["debate"] == refined.debate("q2", "d6").pk
    # Where each label came from, and the annotator's record on known-answer pairs (none yet).
    assert consensus["label_source"] == "consensus"
    assert audit["label_source"] == "single-human"
    assert [
        (j["annotator"], j["label"], j["gold_answers"], j["gold_accuracy"])
        for j in audit["human_judgments"]
    ] == [("bob", 0, 0, None)]
    # The calls and tokens of the debate and the human seconds behind each label.
    for line in (consensus, audit):
        debate = Debate.objects.get(pk=line["debate"])
        assert (line["llm_calls"], line["prompt_tokens"], line["completion_tokens"]) == (
            debate.calls,
            debate.prompt_tokens,
            debate.completion_tokens,
        )
    assert consensus["human_seconds"] == 0
    assert audit["human_seconds"] == 42.5
    # Each pair's probability of going to humans: agreed ones at the job's audit share.
    assert consensus["inclusion"] == audit["inclusion"] == refined.job.audit_share == 0.02
    # The job's budgets and each agent's generation options (none given: {}).
    assert consensus["generation"] == {
        "agents": [{}, {}],
        "max_tokens": refined.job.max_tokens,
        "max_tokens_cap": 2 * refined.job.max_tokens,  # the job set none: the default
        "max_tokens_cap_default": True,
    }
    assert (consensus["cached_tokens"], consensus["reasoning_tokens"]) == (0, 0)
    assert consensus["reused"] is None  # debated by its own job, not taken over


@pytest.mark.django_db
def test_a_labels_provenance_names_each_agents_reasoning_options_and_token_parts(refined):
    from debates.models import DebateJob

    agent_b = {
        **refined.job.agent_b,
        "backend": "openai",
        "model": "qwen3",
        "base_url": None,
        "api_key_env": "OPENAI_API_KEY",
        "timeout": 60.0,
        "reasoning_effort": "high",
        "extra_body": {"chat_template_kwargs": {"enable_thinking": True}},
    }
    agent_b.pop("n_ctx", None)
    DebateJob.objects.filter(pk=refined.job.pk).update(agent_b=agent_b, max_tokens_cap=5000)
    debate = refined.debate("q1", "d5")
    Debate.objects.filter(pk=debate.pk).update(cached_tokens=64, reasoning_tokens=321)
    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=refined.refined)

    line = next(json.loads(x) for x in out.getvalue().splitlines() if f'"debate":{debate.pk},' in x)
    assert line["generation"] == {
        "agents": [
            {},
            {
                "reasoning_effort": "high",
                "extra_body": {"chat_template_kwargs": {"enable_thinking": True}},
            },
        ],
        "max_tokens": refined.job.max_tokens,
        "max_tokens_cap": 5000,
        "max_tokens_cap_default": False,
    }
    assert (line["cached_tokens"], line["reasoning_tokens"]) == (64, 321)


@pytest.mark.django_db
def test_the_line_format_is_sorted_keys_compact_utf8(refined):
    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=refined.refined)
    first = out.getvalue().splitlines()[0]
    assert first.startswith('{"adjudicator":null,"annotators":[],"assessed_label":null,')
    assert first.endswith(
        '"query_id":"q1","reasoning_tokens":null,"reused":null,"simulated":false,'
        '"simulated_from":null,"source":"original"}'
    )


@pytest.mark.django_db
def test_the_fast_line_writer_matches_json_dumps_even_for_odd_ids(refined):
    from assess.refined.export_formats import jsonl_line
    from assess.refined.export_rows import labels_records
    from corpora.models import Document

    Document.objects.filter(doc_id="d6").update(doc_id='d6"é\\\u2028')
    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=refined.refined)
    expected = "".join(jsonl_line(r) for r in labels_records(qrel_set=refined.refined))
    assert out.getvalue() == expected
    assert '"doc_id":"d6\\"é\\\\\u2028"' in out.getvalue()
