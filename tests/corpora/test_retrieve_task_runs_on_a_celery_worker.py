"""A run queued through a real Redis broker is executed by a Celery worker (not eagerly)."""

import os
import time

import pytest
from django.db import transaction

from corpora.models import Run
from corpora.services import run_create, run_enqueue
from tests.fixtures.celery_support import app_on_broker

BROKER = os.environ.get("CELERY_TEST_BROKER_URL", "")


@pytest.fixture
def celery_worker_on_redis():
    """An in-process Celery worker consuming from CELERY_TEST_BROKER_URL (e.g. Redis db 15)."""
    if not BROKER:
        if os.environ.get("CI"):
            pytest.fail("CELERY_TEST_BROKER_URL is not set in CI")
        pytest.skip("set CELERY_TEST_BROKER_URL=redis://127.0.0.1:6379/<db> to run")
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    with app_on_broker(app, BROKER):
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
            yield app


@pytest.mark.django_db(transaction=True)
def test_a_queued_run_is_done_by_the_worker(energy, celery_worker_on_redis):
    with transaction.atomic():
        run = run_create(dataset=energy, retriever="bm25", k=2)
        run_enqueue(run=run)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in ("done", "failed"):
            break
        time.sleep(0.2)
    assert (run.status, run.error) == ("done", "")
    assert run.entries.count() == 3
    assert Run.objects.count() == 1
