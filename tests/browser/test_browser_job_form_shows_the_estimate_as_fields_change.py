"""In Chromium: the launch form's estimated cost follows its fields through htmx (the numbers
are hand-worked in tests/debates/test_job_form_shows_the_estimated_cost_before_the_job_starts.py),
and no request for it carries a typed API key."""

import pytest

from tests.fixtures.browser import browser_login

# 2 calls of 465 prompt and 100 completion tokens: 0.93 + 0.8 = 1.73.
PRICES = '{"embedded": {"prompt": 1.0, "completion": 4.0}}'


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_estimate_follows_the_pool_rounds_and_pair_limit(
    live_server, browser_page, make_user, tiny_dataset, settings
):
    settings.DREAM_LLM_PRICES = PRICES
    make_user("admin")
    page = browser_page
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url) if "/estimate/" in r.url else None)
    browser_login(page, live_server.url, "/jobs/new/", "admin")
    page.fill("#id_a_api_key", "sk-secret-key")
    page.select_option("#id_pool", index=1)
    line = page.locator("#job-estimate-line")
    line.wait_for()
    page.fill("#id_rounds", "1")
    page.fill("#id_max_tokens", "100")
    page.press("#id_max_tokens", "Tab")
    page.wait_for_function(
        "() => (document.getElementById('job-estimate-line') || {}).textContent"
        "?.startsWith('≈ 4 calls, 1,860 prompt + 400 completion tokens')"
    )
    page.fill("#id_pair_limit", "1")
    page.press("#id_pair_limit", "Tab")
    page.wait_for_function(
        "() => document.getElementById('job-estimate-line').textContent.startsWith('≈ 2 calls')"
    )
    assert "≈ 1.73 at SmolLM2-135M-Instruct-Q4_1's prices" in line.inner_text()
    assert urls and not any("sk-secret-key" in u or "api_key" in u for u in urls)
