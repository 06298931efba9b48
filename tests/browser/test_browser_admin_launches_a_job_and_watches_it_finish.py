"""In Chromium: an admin launches a small job (2 pairs, R = 1, the embedded model) from the
form and watches the progress bar, refreshed by htmx polling, reach 100%; polling then
stops. The screenshot of a job page in README.md (docs/job.png) is taken here."""

import threading
import time

import pytest

from debates.models import Debate, DebateJob
from tests.fixtures.browser import DOCS_SCREENSHOTS, browser_login


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_admin_launches_an_embedded_job_and_sees_the_bar_reach_100_percent(
    live_server, browser_page, make_user, tiny_dataset, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = True  # no broker: the job runs in a web thread
    make_user("admin")
    page = browser_page
    browser_login(page, live_server.url, "/jobs/new/", "admin")
    page.select_option("#id_pool", index=1)
    page.fill("#id_rounds", "1")
    page.fill("#id_pair_limit", "2")
    page.fill("#id_note", "browser test")
    started = time.monotonic()
    page.click("#launch")
    page.wait_for_url("**/jobs/*/")
    job = DebateJob.objects.get()
    assert page.url == f"{live_server.url}/jobs/{job.pk}/"
    assert "for trying the pipeline" in page.inner_text("#embedded-warning")

    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "/jobs/" in r.url else None)
    page.wait_for_function(
        "() => document.getElementById('job-percent').textContent === '100%'", timeout=300_000
    )
    elapsed = time.monotonic() - started
    bar = page.locator("#job-progress-bar")
    assert (bar.get_attribute("value"), bar.get_attribute("max")) == ("2", "2")
    assert page.get_attribute("#job-progress", "data-status") == "finished"
    assert page.get_attribute("#job-progress", "hx-trigger") is None
    polls_at_end = len(requests)
    assert polls_at_end >= 1  # the bar moved by polling, not by a reload
    page.wait_for_timeout(4500)
    # Polling stopped after the one last refresh the ended job's first fragment asks for
    # (2 s on, for the review items made just after the end).
    last = requests[polls_at_end:]
    assert len(last) <= 1 and all("since=ended" in url for url in last)
    settled = len(requests)
    page.wait_for_timeout(3000)
    assert len(requests) == settled
    # The review panel refreshed with the fragment: it reads as a reload of the page does.
    live_review = page.inner_text("#job-review")
    page.reload()
    assert page.inner_text("#job-review") == live_review
    page.screenshot(path=str(DOCS_SCREENSHOTS / "job.png"))

    for thread in threading.enumerate():
        if thread.name == f"debate-job-{job.pk}":
            thread.join(timeout=60)
    job.refresh_from_db()
    assert job.status == DebateJob.Status.FINISHED
    assert job.rounds == 1 and job.pair_limit == 2
    statuses = sorted(Debate.objects.filter(job=job).values_list("status", flat=True))
    assert len(statuses) == 2
    assert set(statuses) <= {"agreed", "escalated"}
    print(f"job of 2 pairs, R=1, embedded: {elapsed:.1f} s to 100%")
