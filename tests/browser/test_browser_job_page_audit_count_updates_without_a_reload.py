"""In Chromium: a researcher keeps a running job's page open; the job ends and its agreed
pairs are drawn for the audit; the review panel's audit count changes from 0 to 6 and the
end time appears, by htmx polling alone (no reload)."""

import pytest
from django.utils import timezone

from assess.review.services import review_items_sync
from debates.models import Debate, DebateJob
from tests.fixtures.browser import browser_login


@pytest.mark.django_db(transaction=True)
def test_the_audit_count_and_the_end_time_update_on_an_open_job_page(
    live_server, browser_page, make_user, make_review_job
):
    review = make_review_job(escalated=1, agreed=6, audit_share=1.0, sync=False)
    job = review.job
    DebateJob.objects.filter(pk=job.pk).update(
        status=DebateJob.Status.RUNNING, started=timezone.now(), finished=None
    )
    Debate.objects.filter(pk=review.escalated[0].pk).update(status=Debate.Status.PENDING)
    make_user("researcher")
    page = browser_page
    browser_login(page, live_server.url, f"/jobs/{job.pk}/", "researcher")
    assert "0 agreed pairs sampled for an audit" in page.inner_text("#job-review")
    assert page.locator("#job-ended").count() == 0
    navigations: list[str] = []
    page.on("framenavigated", lambda frame: navigations.append(frame.url))

    Debate.objects.filter(pk=review.escalated[0].pk).update(
        status=Debate.Status.ESCALATED, escalation_reason="disagreement"
    )
    DebateJob.objects.filter(pk=job.pk).update(
        status=DebateJob.Status.FINISHED, finished=timezone.now()
    )
    review_items_sync(job=job)

    page.wait_for_function(
        "() => document.getElementById('job-review').textContent"
        ".includes('6 agreed pairs sampled for an audit')",
        timeout=20_000,
    )
    assert page.locator("#job-ended").count() == 1
    assert page.get_attribute("#job-progress", "data-status") == "finished"
    assert navigations == []  # no reload: htmx swapped the fragment in
