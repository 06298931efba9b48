"""A debate's agents are priced from their stored configs, parsed where they are read: a
config this code would no longer accept (an older job's) is still priced by the backend and
model it names, and one that is not a JSON object has no price (unknown money, never 0)."""

import json

from assess.refined.debate_cost import agent_prices
from debates.llm.config import AgentConfig
from debates.prices import parse_llm_prices

PRICES = parse_llm_prices(
    {
        "embedded": {"prompt": 0, "completion": 0},
        "llama:old-7b": {"prompt": 1, "completion": 2},
        "openai:gpt-x": {"prompt": 3, "completion": 4},
    }
)


def test_an_old_config_keeps_its_price_and_a_stored_one_is_read_as_json_text_too():
    old = {"backend": "llama", "model": "old-7b", "threads": 8}
    current = AgentConfig.load({"backend": "openai", "model": "gpt-x"}).dump()
    price_a, price_b = agent_prices(old, json.dumps(current), PRICES)
    assert (price_a.prompt, price_a.completion) == (1, 2)
    assert (price_b.prompt, price_b.completion) == (3, 4)


def test_an_unreadable_config_has_no_price():
    assert agent_prices("{not json", [1, 2], PRICES) == (None, None)
    assert agent_prices({"backend": "openai", "model": "unpriced"}, None, PRICES) == (None, None)
