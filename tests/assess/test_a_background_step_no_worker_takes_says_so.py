"""With a broker, an upload's operation or an export that no Celery worker has taken for a
minute says so on its page and in the API (naming the queue and the worker command), as a
debate job does; without a broker (the step runs in a thread here) or once a worker claimed
it, nothing is said."""

import datetime as dt

import pytest
from django.utils import timezone

from assess.models import ExportFile
from assess.refined.exports import export_request
from core.broker import background_wait_warning
from corpora.models import Operation

SENTENCE = (
    'No worker has taken this step for 2 minutes: it waits on the Celery queue "celery". Is '
    "a worker listening on that queue, with the same CELERY_BROKER_URL? Start one with: "
    "celery -A config worker -Q celery -P prefork -c 2 (in a checkout set up by ./dream: "
    ".venv/bin/celery)."
)


def test_the_warning_waits_a_minute_and_only_for_a_row_no_worker_claimed(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    now = timezone.now()
    since = now - dt.timedelta(seconds=125)
    assert background_wait_warning(status="queued", queued="queued", since=since, now=now) == (
        SENTENCE
    )
    early = now - dt.timedelta(seconds=59)
    assert background_wait_warning(status="queued", queued="queued", since=early, now=now) == ""
    assert background_wait_warning(status="running", queued="queued", since=since, now=now) == ""
    settings.CELERY_TASK_ALWAYS_EAGER = True  # no broker: the step runs in this process
    assert background_wait_warning(status="queued", queued="queued", since=since, now=now) == ""


@pytest.mark.django_db
def test_an_operation_no_worker_took_says_so_on_its_page_and_in_the_api(
    settings, client_as, api_as, tiny_dataset
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    operation = Operation.objects.create(
        kind=Operation.Kind.BUILD_POOL, dataset=tiny_dataset, stage="queued"
    )
    Operation.objects.filter(pk=operation.pk).update(
        created=timezone.now() - dt.timedelta(minutes=2)
    )
    page = client_as("admin").get(f"/operations/{operation.pk}/").content.decode()
    assert 'id="operation-worker-warning"' in page and "this step for 2 minutes" in page
    body = api_as("admin").get(f"/api/v1/operations/{operation.pk}").json()
    assert body["warning"].startswith("No worker has taken this step for 2 minutes")
    Operation.objects.filter(pk=operation.pk).update(status=Operation.Status.RUNNING)
    assert api_as("admin").get(f"/api/v1/operations/{operation.pk}").json()["warning"] == ""


@pytest.mark.django_db
def test_an_export_no_worker_took_says_so_in_the_api(
    settings, refined, var_dir, api_as, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    with django_capture_on_commit_callbacks(execute=False):  # the message is never sent
        export, _ = export_request(kind="trec", qrel_set=refined.refined)
    assert export.worker_warning == ""  # just requested
    ExportFile.objects.filter(pk=export.pk).update(created=timezone.now() - dt.timedelta(minutes=2))
    export.refresh_from_db()
    assert export.worker_warning == SENTENCE
    body = api_as("admin").get(f"/api/v1/exports/{export.pk}").json()
    assert body["status"] == "pending" and body["warning"] == SENTENCE
