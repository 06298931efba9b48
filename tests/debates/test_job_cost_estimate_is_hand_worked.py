"""The estimate of a job's cost before it starts (debates.estimate), hand-worked.

100 pairs at 2.6 calls a pair (R = 2), 500 prompt and 150 completion tokens a call:
260 calls, 130,000 prompt and 39,000 completion tokens. At prompt 1.0 and completion 4.0 per
1,000 tokens: 130 + 156 = 286; at batch prompt 0.5 and batch completion 2.0: 65 + 78 = 143.
With agent B at prompt 2.0 and completion 10.0, each agent pays for half the calls:
A 65 + 78 = 143, B 130 + 195 = 325, together 468.
"""

import pytest

from debates import estimate, prompts
from debates.engine import PairText, debate_builder
from debates.llm.openai_backend import estimate_tokens
from debates.prices import Price

PRICE = Price(prompt=1.0, completion=4.0, batch_prompt=0.5, batch_completion=2.0)


def test_calls_and_completion_tokens_per_call_follow_the_documented_rules():
    assert estimate.calls_per_pair(1) == 2
    assert estimate.calls_per_pair(2) == pytest.approx(2.6)  # 2 + 2 * 1 * 0.3
    assert estimate.calls_per_pair(3) == pytest.approx(3.2)  # 2 + 2 * 2 * 0.3
    assert estimate.completion_tokens_per_call(2048) == 150
    assert estimate.completion_tokens_per_call(100) == 100
    with pytest.raises(ValueError):
        estimate.calls_per_pair(0)


def test_the_estimate_of_100_pairs_hand_worked():
    got = estimate.job_cost_estimate(
        pairs=100,
        prompt_tokens_per_call=500,
        completion_tokens_per_call=150,
        calls_per_pair=2.6,
        price=PRICE,
    )
    assert (got.pairs, got.calls, got.prompt_tokens, got.completion_tokens) == (
        100,
        260,
        130_000,
        39_000,
    )
    assert got.money == pytest.approx(286.0)
    assert got.batch_money == pytest.approx(143.0)
    assert got.batch_priced


def test_two_agents_at_different_prices_pay_for_half_the_calls_each():
    got = estimate.job_cost_estimate(
        pairs=100,
        prompt_tokens_per_call=500,
        completion_tokens_per_call=150,
        calls_per_pair=2.6,
        price=(Price(1.0, 4.0), Price(2.0, 10.0)),
    )
    assert got.money == pytest.approx(468.0)
    # No batch price set: a batch costs the same (no discount assumed).
    assert got.batch_money == pytest.approx(468.0) and not got.batch_priced


def test_an_unpriced_agent_makes_the_money_unknown():
    got = estimate.job_cost_estimate(
        pairs=10,
        prompt_tokens_per_call=500,
        completion_tokens_per_call=150,
        calls_per_pair=2,
        price=(PRICE, None),
    )
    assert (got.calls, got.money, got.batch_money) == (20, None, None)


def test_later_rounds_add_the_previous_turns_to_the_prompt():
    # R = 2: 0.6 of 2.6 calls are in round 2 and carry 120 fixed tokens + 2 * 150 of turns.
    per_call = estimate.prompt_tokens_per_call(
        round_one=400, history_fixed=120, completion=150, rounds=2
    )
    assert per_call == pytest.approx(400 + 0.6 / 2.6 * 420)
    assert (
        estimate.prompt_tokens_per_call(round_one=400, history_fixed=120, completion=150, rounds=1)
        == 400
    )


@pytest.mark.parametrize("version", ["dream-v1", "dream-v2"])
def test_a_round_one_prompt_is_counted_as_the_engine_builds_it(version):
    pair = estimate.SamplePair(
        query="solar power", title="Tax", chunk="solar tax credit", answers=("yes",)
    )
    text = PairText("q1", pair.query, "d2", pair.title, pair.chunk, pair.answers)
    counts = []
    for agent, stance in prompts.AGENT_STANCES.items():
        build = debate_builder(
            pair=text,
            agent=agent,
            stance=stance,
            round=1,
            previous={},
            max_grade=None,
            version=version,
        )
        counts.append(sum(estimate_tokens(m["content"]) for m in build(pair.chunk)))
    assert estimate.round_one_tokens(pair, version=version) == sum(counts) / 2


def test_token_counts_and_money_read_as_sentences():
    assert estimate.format_tokens(4_160) == "4,160"
    assert estimate.format_tokens(150_000) == "0.15 M"
    assert estimate.format_tokens(1_234_567) == "1.2 M"
    assert estimate.format_money(3.4) == "3.40"
    assert estimate.format_money(0.00123) == "0.0012"
    assert estimate.format_money(1234.5) == "1,234"
