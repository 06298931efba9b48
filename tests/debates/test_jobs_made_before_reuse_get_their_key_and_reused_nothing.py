"""The migration that adds reuse keys gives every job made before it its key (the one a new
job with its settings gets, so a new job can take over its agreed labels) and marks it as
having reused nothing."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from debates.models import DebateJob
from debates.services.launch import JobSpec, debate_job_launch

BEFORE = ("debates", "0016_debate_job_stage0_routing")


def _migrate(targets) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets or executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_an_earlier_job_gets_the_key_a_new_job_would_have(small_pool):
    job = debate_job_launch(spec=JobSpec(pool=small_pool, rounds=1), start=False)
    key = job.reuse_key
    _migrate([BEFORE])
    _migrate(None)  # forward to the newest migration of every app
    job = DebateJob.objects.get(pk=job.pk)
    assert (job.reuse_key, job.reuse, job.reuse_note) == (key, False, "")
    again = debate_job_launch(
        spec=JobSpec(pool=small_pool, rounds=1, allow_duplicate=True), start=False
    )
    assert again.reuse_key == key and again.reuse is True
