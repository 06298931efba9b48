"""A job's agents were checked at launch against the operator's endpoints, key variables and
models folder; the Django admin shows them but has no field to change them afterwards."""

import pytest

from debates.services import JobSpec, debate_job_launch


@pytest.mark.django_db
def test_the_change_page_has_no_agent_fields(client_as, tiny_dataset):
    job = debate_job_launch(spec=JobSpec(pool=tiny_dataset.pools.get(), rounds=1), start=False)
    page = client_as("admin").get(f"/admin/debates/debatejob/{job.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="agent_a"' not in html and 'name="agent_b"' not in html
    assert "SmolLM2-135M-Instruct-Q4_1" in html  # shown, read-only
    assert 'name="note"' in html  # other fields stay editable
