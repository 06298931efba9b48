"""``GET /api/v1/jobs`` pages jobs, newest first, counting only the page's progress."""

import pytest

from debates.services.launch import JobSpec, debate_job_launch


@pytest.mark.django_db
def test_jobs_come_newest_first_a_page_at_a_time(api_as, tiny_dataset, settings):
    settings.NINJA_PAGINATION_PER_PAGE = 2
    pool = tiny_dataset.pools.get()
    spec = JobSpec(pool=pool, allow_duplicate=True)  # three alike on purpose
    made = [debate_job_launch(spec=spec, start=False).pk for _ in range(3)]
    api = api_as("researcher")

    first = api.get("/api/v1/jobs").json()
    second = api.get("/api/v1/jobs?page=2").json()

    assert first["count"] == second["count"] == 3
    assert [j["id"] for j in first["items"]] == made[::-1][:2]
    assert [j["id"] for j in second["items"]] == made[:1]
    assert first["items"][0]["progress"]["total"] == 2
