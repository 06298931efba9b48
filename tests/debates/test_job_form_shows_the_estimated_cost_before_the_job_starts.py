"""The launch form shows the estimated cost of a job before it starts: a fragment the form
asks for with htmx on every change (debates.estimate_views), hand-worked on the tiny pool.

Pool ``p`` of ``tiny_dataset`` has 2 pairs, (q1, d2) and (q2, d2): queries "solar power" and
"wind noise", chunk "Tax" / "solar tax credit". A round-1 prompt of the newest layout on either
pair is 465 tokens by estimate_tokens (both agents; checked against the engine's own builder in
test_job_cost_estimate_is_hand_worked.py). Embedded agents, prices prompt 1.0, completion 4.0,
batch prompt 0.5, batch completion 2.0 per 1,000 tokens.

R = 1, budget 100: 2 pairs * 2 calls = 4 calls of 465 prompt and 100 completion tokens:
1,860 prompt + 400 completion tokens; 1.86 + 1.6 = 3.46, at batch prices 0.93 + 0.8 = 1.73.
"""

import pytest

from debates import estimate

PRICES = (
    '{"embedded": {"prompt": 1.0, "completion": 4.0, "batch_prompt": 0.5, "batch_completion": 2.0}}'
)
MODEL = "SmolLM2-135M-Instruct-Q4_1"
URL = "/jobs/new/estimate/"


def _line(client, **params) -> str:
    response = client.get(URL, params, headers={"HX-Request": "true"})
    assert response.status_code == 200
    page = response.content.decode()
    start = page.index('<p id="job-estimate-line">') + len('<p id="job-estimate-line">')
    return page[start : page.index("</p>", start)]


def _params(dataset, **extra):
    pool = dataset.pools.get(name="p")
    return {"pool": pool.pk, "a_backend": "embedded", "b_backend": "embedded", **extra}


@pytest.mark.django_db
def test_the_estimate_of_the_tiny_pool_hand_worked(tiny_dataset, client_as, settings):
    settings.DREAM_LLM_PRICES = PRICES
    sample = estimate.SamplePair(query="solar power", title="Tax", chunk="solar tax credit")
    assert estimate.round_one_tokens(sample, version="dream-v2") == 465
    client = client_as("admin")
    line = _line(client, **_params(tiny_dataset, rounds=1, max_tokens=100))
    assert line == (
        f"≈ 4 calls, 1,860 prompt + 400 completion tokens; ≈ 3.46 at {MODEL}'s prices (batch: 1.73)"
    )
    batch = _line(client, **_params(tiny_dataset, rounds=1, max_tokens=100, batch="on"))
    assert batch == (
        f"≈ 4 calls, 1,860 prompt + 400 completion tokens; ≈ 1.73 at {MODEL}'s batch prices "
        "(direct calls: 3.46)"
    )
    # The pair limit takes the first pair only: 2 calls.
    one = _line(client, **_params(tiny_dataset, rounds=1, max_tokens=100, pair_limit=1))
    assert one.startswith("≈ 2 calls, 930 prompt + 200 completion tokens; ")


@pytest.mark.django_db
def test_two_rounds_add_the_later_rounds_calls_and_history(tiny_dataset, client_as, settings):
    # R = 2: 2 * 2.6 = 5.2 calls (shown 5); the default budget (384, embedded) leaves 150
    # completion tokens a call: 780. A round-2 call adds the previous turns: 135.5 fixed
    # tokens (history_fixed_tokens) + 2 * 150, on 0.6 of 2.6 calls: 465 + 0.6 / 2.6 * 435.5
    # = 565.5 a call, 5.2 * 565.5 = 2,940.6 -> 2,941 prompt tokens.
    settings.DREAM_LLM_PRICES = PRICES
    assert estimate.history_fixed_tokens(version="dream-v2") == 135.5
    line = _line(client_as("admin"), **_params(tiny_dataset, rounds=2))
    assert line.startswith("≈ 5 calls, 2,941 prompt + 780 completion tokens; ")


@pytest.mark.django_db
def test_an_unpriced_model_says_the_price_is_not_set(tiny_dataset, client_as, settings):
    settings.DREAM_LLM_PRICES = ""
    line = _line(client_as("admin"), **_params(tiny_dataset, rounds=1, max_tokens=100))
    assert line == (
        "≈ 4 calls, 1,860 prompt + 400 completion tokens; price not set for "
        f"{MODEL} (DREAM_LLM_PRICES)"
    )


@pytest.mark.django_db
def test_only_admins_get_the_estimate_by_get_and_nothing_is_written(tiny_dataset, client_as):
    from debates.models import DebateJob

    params = _params(tiny_dataset, rounds=1)
    assert client_as("researcher").get(URL, params).status_code == 403
    admin = client_as("admin")
    assert admin.post(URL, params).status_code == 405
    assert admin.get(URL, params).status_code == 200
    assert not DebateJob.objects.exists()


@pytest.mark.django_db
def test_the_launch_form_asks_for_the_estimate_without_sending_api_keys(client_as):
    page = client_as("admin").get("/jobs/new/").content.decode()
    form = page[page.index('<form method="post" class="launch"') :]
    form = form[: form.index(">")]
    assert f'hx-get="{URL}"' in form and 'hx-trigger="change"' in form
    assert "hx-include=" in form
    params = form[form.index('hx-params="') + len('hx-params="') :].split('"')[0].split(",")
    assert {"pool", "a_backend", "a_model", "rounds", "pair_limit", "max_tokens", "batch"} <= set(
        params
    )
    assert not any("api_key" in p for p in params)
    assert '<section id="job-estimate"' in page


@pytest.mark.django_db
def test_a_large_pool_is_sampled_not_read_whole(tiny_dataset, monkeypatch):
    from debates.estimate_selectors import job_pairs_sample

    pool = tiny_dataset.pools.get(name="p")
    monkeypatch.setattr(estimate, "SAMPLE_PAIRS", 1)
    n, sample = job_pairs_sample(pool=pool, limit=None)
    # Every 2nd pair in the job's order, from the first: only (q1, d2)'s texts are read.
    assert n == 2 and [s.query for s in sample] == ["solar power"]
    monkeypatch.setattr(estimate, "SAMPLE_PAIRS", 200)
    n, sample = job_pairs_sample(pool=pool, limit=None)
    assert n == 2 and [s.query for s in sample] == ["solar power", "wind noise"]
