"""The job form's estimate names the pairs that cannot fit the agents' context and leaves
them out of the cost; a 5 MB document is read and tokenised only as far as could be sent.

Pool ``long`` (tests.fixtures.long_texts): (q1, d1), (q1, d2) with a 5 MB d2, and (q2, d1)
with a 200,000-character q2. Embedded agents: 2,048-token context, budget 384, so a prompt
has 1,640 tokens of room and a text over 19,680 characters cannot fit.
"""

import pytest

from debates import estimate
from debates.estimate_selectors import job_estimate_inputs, job_pairs_sample

URL = "/jobs/new/estimate/"


def _tokenised_chars(monkeypatch) -> list[int]:
    """Record the length of every text the estimate hands to its tokeniser."""
    seen: list[int] = []
    real = estimate.estimate_tokens

    def counting(text: str) -> int:
        seen.append(len(text))
        return real(text)

    monkeypatch.setattr(estimate, "estimate_tokens", counting)
    return seen


@pytest.mark.django_db
def test_the_inputs_count_the_too_long_pair_apart_and_cap_the_long_document(overlong_pool):
    inputs = job_estimate_inputs(
        pool=overlong_pool, limit=None, rounds=1, max_tokens=384, context_window=2048
    )
    assert (inputs.too_long, inputs.too_long_names) == (1, ("q2 / d1",))
    assert (inputs.pairs, inputs.sampled, inputs.prompt_limit) == (2, 3, 1640)
    # (q1, d2)'s prompt is cut to the room: 1,640 tokens; (q1, d1)'s is its real size.
    short = estimate.pair_round_one_tokens(
        estimate.SamplePair(
            query="what do solar panels do",
            title="Solar",
            chunk="Solar panels convert sunlight into electricity.",
        ),
        version="dream-v2",
        limit=1640,
    )
    assert short is not None and short < 600
    assert inputs.prompt_tokens_per_call == (short + 1640) / 2


@pytest.mark.django_db
def test_the_estimate_tokenises_a_bounded_amount_where_whole_texts_were_millions(
    overlong_pool, monkeypatch
):
    # Before: every sampled pair's whole prompt was tokenised for both agents, the 5 MB
    # document twice. Measured here by the old path (round_one_tokens on the whole texts).
    _n, whole = job_pairs_sample(pool=overlong_pool, limit=None)
    seen = _tokenised_chars(monkeypatch)
    for pair in whole:
        estimate.round_one_tokens(pair, version="dream-v2")
    before = sum(seen)
    seen.clear()
    job_estimate_inputs(
        pool=overlong_pool, limit=None, rounds=1, max_tokens=384, context_window=2048
    )
    after = sum(seen)
    assert before > 10_000_000
    # At most 19,681 characters of d2 per agent, plus short prompts; q2 is never tokenised.
    assert after < 2 * 19_681 + 20_000
    assert max(seen) < 19_681 + 5_000


@pytest.mark.django_db
def test_the_fragment_warns_of_the_pair_that_cannot_fit(overlong_pool, client_as, settings):
    settings.DREAM_LLM_PRICES = ""
    params = {"pool": overlong_pool.pk, "a_backend": "embedded", "b_backend": "embedded"}
    page = client_as("admin").get(URL, {**params, "rounds": 1}).content.decode()
    start = page.index('id="job-estimate-too-long"')
    line = " ".join(page[start : page.index("</p>", start)].split())
    assert "1 pair cannot fit the agents' context (2,048 tokens, 1,640 left" in line
    assert '<span class="id">q2 / d1</span>' in line
    # Two pairs are debated, 2 calls each: 4 calls.
    assert '<p id="job-estimate-line">≈ 4 calls, ' in page


@pytest.mark.django_db
def test_a_pool_that_fits_has_no_warning(tiny_dataset, client_as):
    pool = tiny_dataset.pools.get(name="p")
    params = {"pool": pool.pk, "a_backend": "embedded", "b_backend": "embedded"}
    page = client_as("admin").get(URL, params).content.decode()
    assert "job-estimate-line" in page and "job-estimate-too-long" not in page
