"""The cost of every final label, by source, hand-worked.

Prices: embedded 0.5 per 1,000 prompt tokens and 2.0 per 1,000 completion tokens; humans 30
per hour. Four debates of 1,000 prompt + 100 completion tokens each: 0.5 + 0.2 = 0.7 of LLM
money per debate. Pairs 1-2 escalated (4 calls each), 3-4 agreed (2 calls each). Pair 1 is
judged by a human in 120 s (120 / 3600 * 30 = 1.0), pair 2 is adjudicated by an admin.
  consensus:   2 labels, 4 calls, LLM 1.4, human 0    -> 0.7 per label
  human:       1 label,  4 calls, LLM 0.7, human 1.0  -> 1.7 per label
  adjudicated: 1 label,  4 calls, LLM 0.7, human 0    -> 0.7 per label
  all:         4 labels, 12 calls, LLM 2.8, human 1.0 -> 0.95 per label
"""

import re
import uuid

import pytest

from assess.refined.cost import (
    LabelCost,
    cost_by_source,
    format_costs,
    parse_llm_prices,
    price_for,
)
from assess.refined.refine import qrels_refine
from assess.refined.selectors import refined_costs
from assess.review.services import adjudication_record, judgment_record
from debates.llm.config import AgentConfig
from debates.models import Debate

PRICES = (
    '{"embedded": {"prompt": 0.5, "completion": 2.0}, '
    '"openai:gpt-x": {"prompt": 1, "completion": 1}}'
)


def test_prices_are_found_by_backend_and_model_then_backend():
    prices = parse_llm_prices(PRICES)
    embedded = AgentConfig.load({"backend": "embedded"})
    assert price_for(embedded, prices).of(1000, 100) == 0.7
    gpt_x = AgentConfig.load({"backend": "openai", "model": "gpt-x"})
    assert price_for(gpt_x, prices).of(500, 500) == 1.0
    other = AgentConfig.load({"backend": "openai", "model": "other"})
    assert price_for(other, prices) is None
    with pytest.raises(ValueError, match="DREAM_LLM_PRICES\\['bad'\\]"):
        parse_llm_prices('{"bad": {"prompt": 1}}')


def test_an_unknown_price_is_never_zero():
    costs = cost_by_source(
        [LabelCost("consensus", 2, 10, 1, None, 0.0), LabelCost("human", 2, 10, 1, 0.1, 60.0)],
        human_per_hour=None,
    )
    assert costs["consensus"].llm_money is None and costs["consensus"].per_label is None
    assert costs["human"].human_money is None
    assert costs["all"].per_label is None


def test_a_refined_sets_labels_cost_by_source(make_review_job, annotators, make_user, settings):
    settings.DREAM_LLM_PRICES = PRICES
    settings.DREAM_HUMAN_PRICE_PER_HOUR = "30"
    review = make_review_job(escalated=2, agreed=2)
    Debate.objects.update(prompt_tokens=1000, completion_tokens=100)
    (alice,) = annotators(1)
    first, second = (d.review for d in review.escalated)
    judgment_record(item=first, annotator=alice, label=1, client_id=uuid.uuid4(), seconds=120)
    adjudication_record(item=second, admin=make_user("admin"), label=0)
    refined = qrels_refine(pool=review.job.pool, name="costed", allow_partial=True).qrel_set

    costs = refined_costs(qrel_set=refined)
    got = {
        s: (c.labels, c.llm_calls, round(c.llm_money, 6), round(c.human_money, 6), c.per_label)
        for s, c in costs.items()
    }
    assert got["consensus"] == (2, 4, 1.4, 0.0, pytest.approx(0.7))
    assert got["human"] == (1, 4, 0.7, 1.0, pytest.approx(1.7))
    assert got["adjudicated"] == (1, 4, 0.7, 0.0, pytest.approx(0.7))
    assert got["all"] == (4, 12, 2.8, 1.0, pytest.approx(0.95))
    assert costs["human"].human_seconds == 120.0
    assert format_costs(costs)[-1] == (
        "  all: 4 labels, 12 LLM calls, 4,400 tokens (4,000 prompt + 400 completion), LLM "
        "money 2.8000, human 120 s, human money 1.0000; per final label 0.9500"
    )


def test_the_refined_set_and_job_pages_show_the_cost_per_final_label(
    make_review_job, annotators, make_user, settings, client
):
    settings.DREAM_LLM_PRICES = PRICES
    settings.DREAM_HUMAN_PRICE_PER_HOUR = "30"
    review = make_review_job(escalated=2, agreed=2)
    Debate.objects.update(prompt_tokens=1000, completion_tokens=100)
    (alice,) = annotators(1)
    first, second = (d.review for d in review.escalated)
    judgment_record(item=first, annotator=alice, label=1, client_id=uuid.uuid4(), seconds=120)
    adjudication_record(item=second, admin=make_user("admin"), label=0)
    qrels_refine(pool=review.job.pool, name="costed", allow_partial=True)
    client.force_login(make_user("researcher"))
    expected = [
        ["consensus", "2", "4", "2,000 + 200", "1.4000", "0", "0.0000", "0.7000"],
        ["human", "1", "4", "1,000 + 100", "0.7000", "120", "1.0000", "1.7000"],
        ["adjudicated", "1", "4", "1,000 + 100", "0.7000", "0", "0.0000", "0.7000"],
        ["all", "4", "12", "4,000 + 400", "2.8000", "120", "1.0000", "0.9500"],
    ]
    # The refined set's page and the job page (newest refined set of the job's pool).
    for url in ("/datasets/annot/refined/costed/", f"/jobs/{review.job.pk}/"):
        page = client.get(url).content.decode()
        section = page[page.index('<section id="label-costs">') :]
        rows = [
            [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for row in re.findall(r"<tr>(<td.*?)</tr>", section[: section.index("</table>")])
        ]
        assert rows == expected, url


def test_cached_prompt_tokens_are_priced_at_the_cached_price_hand_worked():
    # 2,000 prompt tokens of which 1,500 cached, 300 completion tokens:
    # 500 / 1000 * 1.0 + 1500 / 1000 * 0.25 + 300 / 1000 * 4.0 = 0.5 + 0.375 + 1.2 = 2.075
    prices = parse_llm_prices(
        '{"openai:o4": {"prompt": 1.0, "cached_prompt": 0.25, "completion": 4.0}}'
    )
    price = price_for(AgentConfig.load({"backend": "openai", "model": "o4"}), prices)
    assert price.of(2000, 300, 1500) == pytest.approx(2.075)
    # Without a cached price the cached tokens cost what other prompt tokens cost.
    plain = parse_llm_prices('{"x": {"prompt": 1.0, "completion": 4.0}}')["x"]
    assert plain.of(2000, 300, 1500) == pytest.approx(3.2)
    with pytest.raises(ValueError, match="optionally 'cached_prompt'"):
        parse_llm_prices('{"x": {"prompt": 1, "completion": 1, "cached_prompt": "cheap"}}')


def test_the_summary_line_names_the_cached_and_reasoning_parts():
    costs = cost_by_source(
        [LabelCost("consensus", 2, 1000, 400, 0.5, 0.0, cached_tokens=600, reasoning_tokens=300)],
        human_per_hour=None,
    )
    assert format_costs(costs)[0] == (
        "  consensus: 1 labels, 2 LLM calls, 1,400 tokens (1,000 prompt + 400 completion; 600 "
        "prompt cached, 300 completion reasoning), LLM money 0.5000, human 0 s, human money "
        "0.0000; per final label 0.5000"
    )
