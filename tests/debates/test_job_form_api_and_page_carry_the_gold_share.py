"""The gold share (known-answer pairs in each annotator's queue) is set on the job form and
over the API, defaults to 5%, is refused above 50%, and shows on the job page."""

from debates.models import DebateJob
from debates.services.launch import JobSpec
from tests.fixtures.jobs import job_form_data


def test_the_form_stores_the_gold_share_and_the_page_shows_it(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    with django_capture_on_commit_callbacks(execute=False):
        answer = client.post(
            "/jobs/new/", job_form_data(tiny_dataset.pools.get().pk, gold_percent="10")
        )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    job = DebateJob.objects.get()
    assert job.gold_share == 0.1
    html = client.get(f"/jobs/{job.pk}/").content.decode()
    assert ">10% of each annotator's pairs are known-answer pairs" in html


def test_an_empty_gold_share_takes_five_percent_and_over_half_is_refused(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    pool = tiny_dataset.pools.get().pk
    refused = client.post("/jobs/new/", job_form_data(pool, gold_percent="60"))
    assert refused.status_code == 200
    assert "Ensure this value is less than or equal to 50." in refused.content.decode()
    with django_capture_on_commit_callbacks(execute=False):
        client.post("/jobs/new/", job_form_data(pool))
    assert DebateJob.objects.get().gold_share == JobSpec.gold_share == 0.05


def test_the_api_takes_and_returns_the_gold_share(api_as, tiny_dataset, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = api_as("admin")
    pool = tiny_dataset.pools.get().pk
    body = {"pool": pool, "rounds": 1, "gold_share": 0.2}
    created = client.post("/api/v1/jobs", body, content_type="application/json")
    assert created.status_code == 202, created.content
    assert created.json()["gold_share"] == 0.2
    refused = client.post(
        "/api/v1/jobs", {**body, "gold_share": 0.9}, content_type="application/json"
    )
    assert refused.status_code == 422
    assert refused.json()["detail"] == "gold_share: Input should be less than or equal to 0.5"
