"""The job page's progress fragment is polled by htmx every 2 s while the job runs; the same
URL answers htmx requests with the fragment alone, and the fragment of a job that is not
running has no trigger, so polling stops."""

import re

import pytest

from debates.models import Debate, DebateJob
from tests.fixtures.ui import html_elements


def _progress_root(html: str) -> dict:
    elements, _ = html_elements(html)
    roots = [attrs for tag, attrs in elements if attrs.get("id") == "job-progress"]
    assert len(roots) == 1
    return roots[0]


@pytest.fixture
def running_job(make_review_job):
    review = make_review_job(escalated=1, agreed=2, sync=False)
    job = review.job
    DebateJob.objects.filter(pk=job.pk).update(status=DebateJob.Status.RUNNING)
    Debate.objects.filter(pk=review.agreed[1].pk).update(status=Debate.Status.PENDING)
    return job


def test_a_running_jobs_page_polls_its_fragment_every_two_seconds(client_as, running_job):
    client = client_as("researcher")
    page = client.get(f"/jobs/{running_job.pk}/").content.decode()
    root = _progress_root(page)
    assert root["hx-get"] == f"/jobs/{running_job.pk}/"
    assert root["hx-trigger"] == "every 2s"
    assert root["hx-swap"] == "outerHTML"
    assert '<strong id="job-percent">66%</strong>' in page  # 2 of 3 debates done

    fragment = client.get(f"/jobs/{running_job.pk}/", headers={"HX-Request": "true"})
    html = fragment.content.decode()
    assert html.lstrip().startswith('<section id="job-progress"')
    assert "<html" not in html
    assert _progress_root(html)["hx-trigger"] == "every 2s"
    bar = re.search(r'<progress id="job-progress-bar" value="(\d+)" max="(\d+)"', html)
    assert bar.groups() == ("2", "3")


@pytest.mark.parametrize("status", ["finished", "cancelled", "paused"])
def test_a_job_that_is_not_running_renders_a_fragment_without_a_trigger(
    client_as, running_job, status
):
    DebateJob.objects.filter(pk=running_job.pk).update(status=status)
    html = (
        client_as("admin")
        .get(f"/jobs/{running_job.pk}/", headers={"HX-Request": "true"})
        .content.decode()
    )
    root = _progress_root(html)
    assert "hx-trigger" not in root
    assert "hx-get" not in root
    assert root["data-status"] == status
