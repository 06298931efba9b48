"""The pipeline summary prints the cost per final label, split
by source, from DREAM_LLM_PRICES (here 1.0 per 1,000 prompt and 3.0 per 1,000 completion
tokens for the test backend). After the pipeline every new label is a consensus label, so the
consensus line carries the agreed debates' calls and tokens, and no human money."""

import re

import pytest
from django.db.models import Sum

from assess.pipeline import pipeline_run
from debates.models import Debate
from tests.fixtures.jobs import pipeline_spec

STANCE_RULE = {"backend": "test", "rule": "stance"}


@pytest.mark.django_db
def test_the_pipeline_prints_llm_calls_tokens_and_money_per_final_label(
    energy, fake_llms, tmp_path, settings
):
    settings.DREAM_LLM_PRICES = '{"test": {"prompt": 1.0, "completion": 3.0}}'
    settings.DREAM_HUMAN_PRICE_PER_HOUR = "40"
    lines: list[str] = []
    pipeline_run(
        dataset=energy,
        echo=lines.append,
        spec=pipeline_spec(
            retrievers=["bm25"], depth=3, agent=STANCE_RULE, rounds=2, out_dir=tmp_path
        ),
    )
    agreed = Debate.objects.filter(status="agreed")
    sums = agreed.aggregate(c=Sum("calls"), p=Sum("prompt_tokens"), t=Sum("completion_tokens"))
    n = agreed.count()
    money = sums["p"] / 1000 * 1.0 + sums["t"] / 1000 * 3.0
    assert n > 0 and sums["p"] > 0
    at = lines.index(
        "cost per final label (LLM prices: DREAM_LLM_PRICES; human: DREAM_HUMAN_PRICE_PER_HOUR)"
    )
    expected = (
        f"  consensus: {n:,} labels, {sums['c']:,} LLM calls, {sums['p'] + sums['t']:,} tokens "
        f"({sums['p']:,} prompt + {sums['t']:,} completion), LLM money {money:.4f}, human 0 s, "
        f"human money 0.0000; per final label {money / n:.4f}"
    )
    assert lines[at + 1] == expected
    assert re.fullmatch(rf"  all: {n:,} labels, .* per final label {money / n:.4f}", lines[at + 2])
