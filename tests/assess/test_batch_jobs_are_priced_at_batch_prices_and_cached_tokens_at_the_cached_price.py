"""Batch and cached prices, hand-worked.

Prices (money per 1,000 tokens): prompt 1.0, cached prompt 0.25, completion 4.0, batch prompt
0.5, batch completion 2.0. One debate of 2,000 prompt tokens of which 500 cached and 300
completion tokens costs
  direct: 1,500 / 1000 * 1.0 + 500 / 1000 * 0.25 + 300 / 1000 * 4.0 = 1.5 + 0.125 + 1.2 = 2.825
  batch:  1,500 / 1000 * 0.5 + 500 / 1000 * 0.25 + 300 / 1000 * 2.0 = 0.75 + 0.125 + 0.6 = 1.475
(cached tokens in a batch keep the cached price). Without a cached price the cached tokens of a
batch cost the batch prompt price: 2,000 / 1000 * 0.5 + 0.6 = 1.6. Without batch prices a batch
costs what direct calls cost (no discount is assumed): 2.0 + 1.2 = 3.2.
"""

import pytest

from assess.refined import cost
from debates.prices import Price, parse_llm_prices

PRICES = (
    '{"embedded": {"prompt": 1.0, "cached_prompt": 0.25, "completion": 4.0, '
    '"batch_prompt": 0.5, "batch_completion": 2.0}}'
)


def test_batch_and_cached_prices_hand_worked():
    price = parse_llm_prices(PRICES)["embedded"]
    assert price.of(2000, 300, 500) == pytest.approx(2.825)
    assert price.of(2000, 300, 500, batch=True) == pytest.approx(1.475)
    no_cached = Price(prompt=1.0, completion=4.0, batch_prompt=0.5, batch_completion=2.0)
    assert no_cached.of(2000, 300, 500, batch=True) == pytest.approx(1.6)
    plain = parse_llm_prices('{"x": {"prompt": 1.0, "completion": 4.0}}')["x"]
    assert plain.of(2000, 300, 500, batch=True) == plain.of(2000, 300, 500) == pytest.approx(3.2)
    assert not plain.has_batch_prices and price.has_batch_prices


def test_a_malformed_batch_price_is_named():
    with pytest.raises(ValueError, match="'batch_prompt' and 'batch_completion'"):
        parse_llm_prices('{"x": {"prompt": 1, "completion": 1, "batch_prompt": "half"}}')
    with pytest.raises(ValueError, match=r"DREAM_LLM_PRICES\['x'\]: prices must be finite"):
        parse_llm_prices('{"x": {"prompt": 1, "completion": 1, "batch_completion": -1}}')


def test_the_prices_live_in_debates_and_assess_re_exports_them():
    import debates.prices

    for name in ("Price", "parse_llm_prices", "llm_prices", "price_for"):
        assert getattr(cost, name) is getattr(debates.prices, name)


def _batch_refined(make_review_job, settings, *, batch: bool):
    from assess.refined.refine import qrels_refine
    from debates.models import Debate, DebateJob

    settings.DREAM_LLM_PRICES = PRICES
    settings.DREAM_HUMAN_PRICE_PER_HOUR = "30"
    review = make_review_job(escalated=0, agreed=2)
    DebateJob.objects.filter(pk=review.job.pk).update(batch=batch)
    Debate.objects.update(prompt_tokens=2000, cached_tokens=500, completion_tokens=300)
    refined = qrels_refine(pool=review.job.pool, name="batched", allow_partial=True).qrel_set
    return review, refined


def test_a_batch_jobs_refined_labels_are_priced_at_batch_prices(make_review_job, settings):
    from assess.refined.selectors import refined_costs

    _, refined = _batch_refined(make_review_job, settings, batch=True)
    costs = refined_costs(qrel_set=refined)
    # Two consensus labels, each behind one debate at 1.475: 2.95, 1.475 a label.
    assert costs["consensus"].llm_money == pytest.approx(2.95)
    assert costs["consensus"].per_label == pytest.approx(1.475)
    assert costs["all"].batch_labels == 2
    assert cost.format_costs(costs)[0] == (
        "  consensus: 2 labels, 4 LLM calls, 4,600 tokens (4,000 prompt + 600 completion; "
        "1,000 prompt cached), LLM money 2.9500 (batch prices), human 0 s, human money "
        "0.0000; per final label 1.4750"
    )


def test_a_direct_jobs_labels_keep_the_normal_prices(make_review_job, settings):
    from assess.refined.selectors import refined_costs

    _, refined = _batch_refined(make_review_job, settings, batch=False)
    costs = refined_costs(qrel_set=refined)
    assert costs["consensus"].llm_money == pytest.approx(2 * 2.825)
    assert costs["all"].batch_labels == 0
    assert "batch" not in cost.format_costs(costs)[0]


def test_the_job_page_and_the_pipeline_summary_say_batch_prices(
    make_review_job, settings, client, make_user, tmp_path
):
    from assess.pipeline import _refined_ensure

    review, _ = _batch_refined(make_review_job, settings, batch=True)
    client.force_login(make_user("researcher"))
    page = client.get(f"/jobs/{review.job.pk}/").content.decode()
    section = page[page.index('<section id="job-label-costs"') :]
    assert "this job runs in batch mode, so its debates are priced at batch prices" in section
    assert "All labels came from batch-mode jobs" in section
    lines: list[str] = []
    _refined_ensure(
        pool=review.job.pool,
        qrel_set=review.job.pool.qrel_set,
        name="batched",
        relevant_grade=1,
        out_dir=tmp_path,
        echo=lines.append,
    )
    at = lines.index(
        "cost per final label (LLM prices: DREAM_LLM_PRICES, batch prices for batch-mode jobs; "
        "human: DREAM_HUMAN_PRICE_PER_HOUR)"
    )
    assert "LLM money 2.9500 (batch prices)" in lines[at + 1]
