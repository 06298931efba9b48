"""The job form offers the scale and the graded consensus rule; a graded job takes G from
its pool's qrels, and the job page shows the scale."""

from debates.models import DebateJob
from tests.fixtures.jobs import job_form_data


def test_a_graded_job_is_launched_with_its_rule_and_shown_as_graded(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    client = client_as("admin")
    page = client.get("/jobs/new/").content.decode()
    assert 'name="scale"' in page and 'name="consensus"' in page
    pool = tiny_dataset.pools.get()  # its qrels grade only 1: G = 1

    with django_capture_on_commit_callbacks(execute=False):
        answer = client.post(
            "/jobs/new/", job_form_data(pool.pk, scale="graded", consensus="binary")
        )

    job = DebateJob.objects.get()
    assert answer.status_code == 302
    assert (job.scale, job.max_grade, job.consensus, job.prompt_version) == (
        "graded",
        1,
        "binary",
        "dream-graded-v2",
    )
    detail = client.get(f"/jobs/{job.pk}/").content.decode()
    assert '<dd id="job-scale">graded 0..1, consensus binary</dd>' in detail


def test_a_form_without_the_scale_launches_a_binary_job(
    client_as, tiny_dataset, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    with django_capture_on_commit_callbacks(execute=False):
        client_as("admin").post("/jobs/new/", job_form_data(tiny_dataset.pools.get().pk))
    job = DebateJob.objects.get()
    assert (job.scale, job.max_grade, job.consensus, job.prompt_version) == (
        "binary",
        1,
        "exact",
        "dream-v2",
    )


def test_an_unknown_scale_is_a_form_error_and_creates_nothing(client_as, tiny_dataset):
    answer = client_as("admin").post(
        "/jobs/new/", job_form_data(tiny_dataset.pools.get().pk, scale="ordinal")
    )
    assert answer.status_code == 200
    assert "ordinal is not one of the available choices" in answer.content.decode()
    assert not DebateJob.objects.exists()
