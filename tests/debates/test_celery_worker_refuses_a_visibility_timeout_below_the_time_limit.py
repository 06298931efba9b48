"""A worker does not start when the broker could redeliver a task that is still running."""

import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.celery import check_visibility_timeout
from tests.fixtures.datasets import REPO


def conf(broker="redis://127.0.0.1:6379/0", limit=1800, options=None):
    return SimpleNamespace(
        broker_url=broker, task_time_limit=limit, broker_transport_options=options or {}
    )


def test_a_visibility_timeout_longer_than_the_time_limit_passes():
    check_visibility_timeout(conf(options={"visibility_timeout": 3600}))


@pytest.mark.parametrize("timeout", [1800, 600])
def test_a_visibility_timeout_not_longer_than_the_time_limit_is_refused(timeout):
    with pytest.raises(ImproperlyConfigured, match=rf"visibility timeout \({timeout} s"):
        check_visibility_timeout(conf(options={"visibility_timeout": timeout}))


def test_kombus_default_of_one_hour_counts_when_no_timeout_is_set():
    check_visibility_timeout(conf(limit=3599))
    with pytest.raises(ImproperlyConfigured, match=r"\(3600 s"):
        check_visibility_timeout(conf(limit=3600))


def test_a_retrieval_time_limit_not_below_the_visibility_timeout_is_refused(settings):
    settings.DREAM_RETRIEVE_TIME_LIMIT = 3600
    with pytest.raises(ImproperlyConfigured, match=r"retrieval task's time limit \(3600 s"):
        check_visibility_timeout(conf(options={"visibility_timeout": 3600}))
    settings.DREAM_RETRIEVE_TIME_LIMIT = 3599
    check_visibility_timeout(conf(options={"visibility_timeout": 3600}))


def test_a_redis_broker_needs_a_time_limit():
    with pytest.raises(ImproperlyConfigured, match="CELERY_TASK_TIME_LIMIT must be set"):
        check_visibility_timeout(conf(limit=None))


@pytest.mark.parametrize("broker", ["", "amqp://guest@localhost//", "memory://"])
def test_brokers_without_a_visibility_timeout_are_not_checked(broker):
    check_visibility_timeout(conf(broker=broker, limit=None))


def test_a_real_worker_exits_at_start_up_with_the_reason():
    env = {
        **os.environ,
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/14",
        "CELERY_VISIBILITY_TIMEOUT": "60",
        "CELERY_TASK_TIME_LIMIT": "120",
    }
    done = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert (
        "ImproperlyConfigured: the broker's visibility timeout (60 s, CELERY_VISIBILITY_TIMEOUT) "
        "must be longer than the task time limit (120 s, CELERY_TASK_TIME_LIMIT)"
    ) in done.stderr
