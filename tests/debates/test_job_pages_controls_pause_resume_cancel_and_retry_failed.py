"""Admins pause, resume, cancel a job and retry its failed debates with POST buttons on the
job page; researchers see no buttons and are refused; a refused action says why."""

import pytest

from debates.models import Debate, DebateJob


@pytest.fixture
def job(make_review_job, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # nothing runs: on-commit sends are captured
    review = make_review_job(escalated=1, agreed=2, sync=False)
    DebateJob.objects.filter(pk=review.job.pk).update(status=DebateJob.Status.RUNNING)
    Debate.objects.filter(pk=review.agreed[0].pk).update(
        status=Debate.Status.FAILED, last_error="boom", attempts=3
    )
    Debate.objects.filter(pk=review.agreed[1].pk).update(status=Debate.Status.PENDING)
    return review.job


def _buttons(html: str) -> list[str]:
    return [
        action for action in ("pause", "resume", "cancel", "retry-failed") if f'/{action}/"' in html
    ]


def test_the_buttons_follow_the_jobs_status(client_as, job, django_capture_on_commit_callbacks):
    client = client_as("admin")
    url = f"/jobs/{job.pk}/"
    assert _buttons(client.get(url).content.decode()) == ["pause", "cancel", "retry-failed"]

    answer = client.post(f"{url}pause/")
    assert (answer.status_code, answer["Location"]) == (302, url)
    job.refresh_from_db()
    assert job.status == "paused"
    assert _buttons(client.get(url).content.decode()) == ["resume", "cancel", "retry-failed"]

    with django_capture_on_commit_callbacks(execute=False) as sent:
        client.post(f"{url}resume/")
    job.refresh_from_db()
    assert job.status == "running"
    assert len(sent) == 1

    with django_capture_on_commit_callbacks(execute=False):
        client.post(f"{url}retry-failed/")
    assert Debate.objects.filter(job=job, status="failed").count() == 0
    assert Debate.objects.filter(job=job, status="pending").count() == 2

    client.post(f"{url}cancel/")
    job.refresh_from_db()
    assert job.status == "cancelled"
    assert _buttons(client.get(url).content.decode()) == []


def test_a_refused_action_is_reported(client_as, job):
    client = client_as("admin")
    client.post(f"/jobs/{job.pk}/cancel/")
    html = client.post(f"/jobs/{job.pk}/resume/", follow=True).content.decode()
    assert "only a paused job resumes" in html


def test_researchers_see_no_buttons_and_cannot_post(client_as, job):
    client = client_as("researcher")
    assert _buttons(client.get(f"/jobs/{job.pk}/").content.decode()) == []
    assert client.post(f"/jobs/{job.pk}/pause/").status_code == 403
    job.refresh_from_db()
    assert job.status == "running"


def test_an_unknown_action_is_404_and_get_is_405(client_as, job):
    client = client_as("admin")
    assert client.post(f"/jobs/{job.pk}/explode/").status_code == 404
    assert client.get(f"/jobs/{job.pk}/pause/").status_code == 405
