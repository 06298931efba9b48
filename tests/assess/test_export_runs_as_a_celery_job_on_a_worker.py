"""Exports run as a Celery job: the task is registered with every worker (autodiscovered
through assess.tasks), and an export queued through a real Redis broker is written by a
worker, not eagerly."""

import os
import subprocess
import sys
import time

import pytest
from django.db import transaction

from assess.refined.exports import export_path, export_request
from tests.fixtures.datasets import REPO


def test_a_fresh_worker_process_registers_the_export_task():
    code = (
        "import django; django.setup(); from config.celery import app; "
        "app.loader.import_default_modules(); print('assess.export_write' in app.tasks)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "True"


@pytest.mark.django_db(transaction=True)
def test_a_queued_export_is_written_by_the_worker(refined, var_dir, export_worker):
    with transaction.atomic():
        export, created = export_request(kind="trec", qrel_set=refined.refined)
    assert created
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        export.refresh_from_db()
        if export.status in ("done", "failed"):
            break
        time.sleep(0.2)
    assert (export.status, export.error, export.rows) == ("done", "", 8)
    assert export_path(export=export).read_text().splitlines()[0] == "q1 0 d1 1"
