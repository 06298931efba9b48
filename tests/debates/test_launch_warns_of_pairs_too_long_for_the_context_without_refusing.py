"""A job on a pool with pairs too long for the agents' context is launched all the same; its
page and its API body say how many pairs are too long and name them."""

import pytest

from debates.services.launch import JobSpec, debate_job_launch, debate_job_warnings

WARNING = (
    "1 pair cannot fit the agents' context (2,048 tokens) even with an empty document "
    "(q2 / d1): they make no LLM call and end escalated as too long for the context, for a "
    "human to judge"
)


@pytest.mark.django_db
def test_the_launch_keeps_every_pair_and_warns_of_the_long_one(overlong_pool, caplog):
    job = debate_job_launch(spec=JobSpec(pool=overlong_pool, rounds=1), start=False)
    assert job.debates.count() == 3
    assert debate_job_warnings(job=job) == [WARNING]
    assert f"job {job.pk}: {WARNING}" in caplog.text


@pytest.mark.django_db
def test_a_larger_context_fits_the_long_query(overlong_pool):
    # 200,000 characters need at most 200,000 / 12 tokens of room only by the bound; a
    # 32,768-token context leaves 32,360, so the bound no longer rules the pair out.
    agent = {"backend": "embedded", "n_ctx": 32768}
    job = debate_job_launch(spec=JobSpec(pool=overlong_pool, agent_a=agent), start=False)
    assert debate_job_warnings(job=job) == []


@pytest.mark.django_db
def test_the_job_page_and_the_api_body_carry_the_warning(overlong_pool, client_as, api_as):
    job = debate_job_launch(spec=JobSpec(pool=overlong_pool, rounds=1), start=False)
    page = client_as("researcher").get(f"/jobs/{job.pk}/").content.decode()
    start = page.index('id="job-too-long"')
    line = page[start : page.index("</p>", start)]
    assert "1 pair cannot fit the agents&#x27; context (2,048 tokens)" in line
    assert "(q2 / d1)" in line
    body = api_as("researcher").get(f"/api/v1/jobs/{job.pk}").json()
    assert body["warnings"] == [WARNING]


@pytest.mark.django_db
def test_a_job_that_fits_has_no_warning(small_pool, api_as):
    job = debate_job_launch(spec=JobSpec(pool=small_pool, rounds=1), start=False)
    assert api_as("researcher").get(f"/api/v1/jobs/{job.pk}").json()["warnings"] == []
