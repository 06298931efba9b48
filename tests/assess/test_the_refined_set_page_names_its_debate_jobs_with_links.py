"""The refined set's page names the debate jobs its labels came from as jobs, linked to their
pages: a bare "2" under "Debate jobs" read as a count of jobs."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_jobs_are_named_and_linked(refined, client_as):
    shown = client_as("researcher").get("/datasets/holes/refined/test-dream/").content.decode()
    job = refined.job.pk
    assert f'<dd id="refined-jobs"><a href="/jobs/{job}/">job {job}</a></dd>' in shown
