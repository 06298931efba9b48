"""The labels JSONL gives ``llm_money``: the money of the debate behind a new label at
DREAM_LLM_PRICES, hand-worked, the same by the fast line writer and by json.dumps, and equal
to what the cost pages count.

The ``holes`` world (tests/fixtures/refine.py). Debate (q1, d5): 2,000 prompt tokens of which
500 cached, 300 completion tokens. Embedded prices: prompt 1.0, cached 0.25, completion 4.0,
batch prompt 0.5, batch completion 2.0 per 1,000 tokens, so
  direct: 1.5 + 0.125 + 1.2 = 2.825;   batch-mode job: 0.75 + 0.125 + 0.6 = 1.475.
With agent B on openai:gpt-x (prompt 2.0, completion 10.0) the two prices differ and each
agent's turns are priced at its own: (q1, d5) has two rounds of turns of 100 prompt and 20
completion tokens each, so A 200 / 1000 * 1.0 + 40 / 1000 * 4.0 = 0.36 and
B 200 / 1000 * 2.0 + 40 / 1000 * 10.0 = 0.8: 1.16.
"""

import io
import json

import pytest

from assess.refined.exports import export_stream
from debates.models import Debate, DebateJob

PRICES = {
    "embedded": {
        "prompt": 1.0,
        "cached_prompt": 0.25,
        "completion": 4.0,
        "batch_prompt": 0.5,
        "batch_completion": 2.0,
    },
    "openai:gpt-x": {"prompt": 2.0, "completion": 10.0},
}


def _lines(refined) -> dict[tuple[str, str], dict]:
    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=refined.refined)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    return {(r["query_id"], r["doc_id"]): r for r in lines}


def _tokens(refined) -> None:
    Debate.objects.filter(pk=refined.debate("q1", "d5").pk).update(
        prompt_tokens=2000, cached_tokens=500, completion_tokens=300
    )


@pytest.mark.django_db
def test_llm_money_is_the_hand_worked_money_of_the_debate(refined, settings):
    settings.DREAM_LLM_PRICES = json.dumps(PRICES)
    _tokens(refined)
    lines = _lines(refined)
    assert lines["q1", "d5"]["llm_money"] == 2.825
    assert lines["q1", "d1"]["llm_money"] is None  # an original row: no debate
    # A debate with no tokens costs 0 at a known price (never None).
    assert lines["q1", "d3"]["llm_money"] == 0.0


@pytest.mark.django_db
def test_a_batch_jobs_labels_carry_batch_money(refined, settings):
    settings.DREAM_LLM_PRICES = json.dumps(PRICES)
    _tokens(refined)
    DebateJob.objects.filter(pk=refined.job.pk).update(batch=True)
    assert _lines(refined)["q1", "d5"]["llm_money"] == 1.475


@pytest.mark.django_db
def test_agents_with_different_prices_are_priced_per_agent_from_their_turns(refined, settings):
    from assess.refined.selectors import refined_label_costs

    settings.DREAM_LLM_PRICES = json.dumps(PRICES)
    agent_b = {"backend": "openai", "model": "gpt-x", "base_url": None}
    DebateJob.objects.filter(pk=refined.job.pk).update(agent_b=agent_b)
    lines = _lines(refined)
    assert lines["q1", "d5"]["llm_money"] == 1.16
    # The cost pages count the same money for the same labels.
    total = sum(c.llm_money for c in refined_label_costs(qrel_set=refined.refined))
    exported = sum(r["llm_money"] for r in lines.values() if r["source"] != "original")
    assert total == pytest.approx(exported)


@pytest.mark.django_db
def test_an_unknown_price_gives_null_money(refined, settings):
    settings.DREAM_LLM_PRICES = '{"openai": {"prompt": 1, "completion": 1}}'
    _tokens(refined)
    assert _lines(refined)["q1", "d5"]["llm_money"] is None


@pytest.mark.django_db
def test_the_fast_line_writer_matches_json_dumps_with_money(refined, settings):
    from assess.refined.export_formats import LABEL_FIELDS, jsonl_line
    from assess.refined.export_rows import labels_records

    settings.DREAM_LLM_PRICES = json.dumps(PRICES)
    _tokens(refined)
    out = io.StringIO()
    export_stream(kind="labels", out=out, qrel_set=refined.refined)
    records = list(labels_records(qrel_set=refined.refined))
    assert out.getvalue() == "".join(jsonl_line(r) for r in records)
    assert set(records[0]) == set(LABEL_FIELDS)


@pytest.mark.django_db
def test_a_changed_price_makes_the_stored_labels_file_out_of_date(refined, settings):
    from assess.refined.exports import export_key

    settings.DREAM_LLM_PRICES = json.dumps(PRICES)
    first = export_key(kind="labels", qrel_set=refined.refined)
    assert export_key(kind="labels", qrel_set=refined.refined) == first
    settings.DREAM_LLM_PRICES = json.dumps({"embedded": {"prompt": 1.0, "completion": 5.0}})
    assert export_key(kind="labels", qrel_set=refined.refined) != first
