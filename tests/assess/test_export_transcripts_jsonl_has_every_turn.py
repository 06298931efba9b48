"""The transcripts JSONL holds every stored turn of every debate of the pool's jobs, in
(query, document, job, round, agent) order, with the debate's outcome on each line."""

import io
import json

import pytest

from assess.refined.exports import export_stream


@pytest.mark.django_db
def test_twelve_turns_of_four_debates_in_order(refined):
    out = io.StringIO()
    rows = export_stream(kind="transcripts", out=out, pool=refined.pool)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert rows == len(lines) == 12  # rounds: 1 + 2 + 2 + 1, two agents each
    assert [(r["query_id"], r["doc_id"], r["round"], r["agent"]) for r in lines] == [
        ("q1", "d3", 1, "A"),
        ("q1", "d3", 1, "B"),
        ("q1", "d5", 1, "A"),
        ("q1", "d5", 1, "B"),
        ("q1", "d5", 2, "A"),
        ("q1", "d5", 2, "B"),
        ("q2", "d3", 1, "A"),
        ("q2", "d3", 1, "B"),
        ("q2", "d3", 2, "A"),
        ("q2", "d3", 2, "B"),
        ("q2", "d6", 1, "A"),
        ("q2", "d6", 1, "B"),
    ]
    escalated = lines[9]
    assert escalated["debate"] == refined.debate("q2", "d3").pk
    assert (escalated["debate_status"], escalated["escalation_reason"]) == (
        "escalated",
        "disagreement",
    )
    assert (escalated["stance"], escalated["label"], escalated["argument"]) == (
        "irrelevant",
        0,
        "no",
    )
    assert escalated["evidence"] == ["evidence B2"]
    assert escalated["raw"] == '{"label": 0}'
    assert escalated["raw_attempts"] == ['{"label": 0}']
    assert escalated["prompt_version"] == "dream-v1"
    # Machine formats are never altered: a formula-looking argument stays as it is.
    assert lines[11]["argument"] == '=HYPERLINK("http://x")'
