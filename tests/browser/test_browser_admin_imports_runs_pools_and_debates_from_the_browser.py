"""In Chromium, the whole job without a shell: an admin uploads a small BEIR zip, runs BM25,
builds a pool, launches a debate job on it and sees it finish, every long step followed on
its page by htmx polling. A researcher sees none of those controls; an annotator none of the
dataset pages."""

import threading

import pytest

from debates.models import DebateJob
from tests.fixtures.browser import browser_login


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_admin_goes_from_a_zip_to_a_finished_job_in_the_browser(
    live_server, browser_page, make_user, beir_zip, tmp_path, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = True  # no broker: every step runs in a web thread
    make_user("admin")
    archive = tmp_path / "tiny.zip"
    archive.write_bytes(beir_zip())
    page = browser_page
    browser_login(page, live_server.url, "/datasets/", "admin")

    page.click("#dataset-new")
    assert "Uploads up to" in page.inner_text("main")
    page.fill("#id_name", "Tiny BEIR")
    page.set_input_files("#id_archive", str(archive))
    page.click("#import")
    page.wait_for_url("**/operations/*/")
    page.wait_for_selector("#operation-status[data-status='done']", timeout=60_000)
    page.click("#operation-result a")
    page.wait_for_url("**/datasets/tiny-beir/")

    page.select_option("#id_retriever", "bm25")
    page.fill("#id_k", "3")
    page.click("#retrieve")
    page.wait_for_url("**/datasets/tiny-beir/")
    page.wait_for_selector(".run-status[data-run='bm25']:has-text('done')", timeout=60_000)

    page.reload()  # the pool form lists the runs that are done
    page.check("#pool-form input[value='bm25']")
    page.fill("#id_depth", "3")
    page.click("#build-pool")
    page.wait_for_url("**/operations/*/")
    page.wait_for_selector("#operation-status[data-status='done']", timeout=60_000)
    assert "1 pairs" in page.inner_text("#operation-result")

    page.click("#launch-job")
    page.wait_for_url("**/jobs/new/?pool=*")
    assert page.locator("#id_pool option:checked").inner_text().startswith("Tiny BEIR / ")
    page.fill("#id_rounds", "1")
    page.click("#launch")
    page.wait_for_url("**/jobs/*/")
    page.wait_for_function(
        "() => document.getElementById('job-percent').textContent === '100%'", timeout=300_000
    )
    job = DebateJob.objects.get()
    for thread in threading.enumerate():
        if thread.name == f"debate-job-{job.pk}":
            thread.join(timeout=60)
    job.refresh_from_db()
    assert (job.status, job.debates.count()) == ("finished", 1)


@pytest.mark.django_db(transaction=True)
def test_a_researcher_sees_no_control_and_an_annotator_no_dataset_page(
    live_server, browser_page, make_user, tiny_dataset
):
    make_user("researcher")
    page = browser_page
    browser_login(page, live_server.url, "/datasets/", "researcher")
    assert page.locator("#dataset-new").count() == 0
    page.goto(f"{live_server.url}/datasets/tiny/")
    for control in ("#qrels-form", "#run-form", "#retrieve-form", "#pool-form"):
        assert page.locator(control).count() == 0
    assert page.get_by_text("Launch a debate job").count() == 0
    assert page.goto(f"{live_server.url}/datasets/new/").status == 403

    page.context.clear_cookies()
    make_user("annotator")
    browser_login(page, live_server.url, "/", "annotator")
    assert page.get_by_role("link", name="Datasets").count() == 0
    assert page.goto(f"{live_server.url}/datasets/tiny/").status == 403
