"""The job page's polled fragment holds every figure that changes while a job runs: progress,
its times and the other apps' panels (human review, audit). As the job's state changes the
same fragment URL answers with the new figures; the first poll from a running page that finds
the job ended asks once more (2 s on) for the review items made just after the end, and that
last answer asks nothing more."""

import pytest
from django.utils import timezone

from assess.review.services import review_items_sync
from debates.models import Debate, DebateJob
from tests.fixtures.ui import html_elements

HX = {"HX-Request": "true"}


def _fragment(client, job, since: str | None = None) -> str:
    params = {"since": since} if since else {}
    response = client.get(f"/jobs/{job.pk}/", params, headers=HX)
    assert response.status_code == 200
    return response.content.decode()


def _attrs(html: str, element_id: str) -> dict | None:
    elements, _ = html_elements(html)
    found = [attrs for _tag, attrs in elements if attrs.get("id") == element_id]
    return found[0] if found else None


def _audit_line(html: str) -> str:
    start = html.index("sampled for an audit") - 40
    return " ".join(html[start : html.index("</p>", start)].split())


@pytest.fixture
def running(make_review_job):
    review = make_review_job(escalated=1, agreed=6, audit_share=1.0, sync=False)
    DebateJob.objects.filter(pk=review.job.pk).update(
        status=DebateJob.Status.RUNNING, started=timezone.now(), finished=None
    )
    Debate.objects.filter(pk=review.escalated[0].pk).update(status=Debate.Status.PENDING)
    return review.job


@pytest.mark.django_db
def test_the_audit_count_and_the_end_refresh_in_the_polled_fragment(running, client_as):
    client = client_as("researcher")
    html = _fragment(client, running)
    root = _attrs(html, "job-progress")
    assert (root["hx-trigger"], root["hx-vals"]) == ("every 2s", '{"since": "running"}')
    assert 'id="job-review"' in html  # the review panel is inside the polled fragment
    assert "0 agreed pairs sampled for an audit" in _audit_line(html)
    assert _attrs(html, "job-ended") is None
    assert "refresh every 2 seconds while it runs" in html

    # The job ends; its last debate's review items come just after.
    Debate.objects.filter(job=running, status=Debate.Status.PENDING).update(
        status=Debate.Status.ESCALATED, escalation_reason="disagreement"
    )
    DebateJob.objects.filter(pk=running.pk).update(
        status=DebateJob.Status.FINISHED, finished=timezone.now()
    )
    review_items_sync(job=running)

    html = _fragment(client, running, since="running")
    root = _attrs(html, "job-progress")
    assert "hx-trigger" not in root and root["data-status"] == "finished"
    assert "6 agreed pairs sampled for an audit" in _audit_line(html)
    assert _attrs(html, "job-ended") is not None
    final = _attrs(html, "job-final-refresh")
    assert final["hx-trigger"] == "load delay:2s"
    assert (final["hx-get"], final["hx-vals"]) == (f"/jobs/{running.pk}/", '{"since": "ended"}')
    assert final["hx-target"] == "#job-progress"

    last = _fragment(client, running, since="ended")
    assert _attrs(last, "job-final-refresh") is None
    assert "hx-trigger" not in _attrs(last, "job-progress")
    assert "6 agreed pairs sampled for an audit" in _audit_line(last)


@pytest.mark.django_db
def test_a_page_opened_on_an_ended_job_asks_nothing_more(make_review_job, client_as):
    job = make_review_job(escalated=1, agreed=2).job
    page = client_as("researcher").get(f"/jobs/{job.pk}/").content.decode()
    assert _attrs(page, "job-final-refresh") is None
    assert "hx-trigger" not in _attrs(page, "job-progress")
    assert 'id="job-review"' in page
