"""A job's note is free text cleaned as replies are: a NUL or a lone surrogate becomes
U+FFFD at launch (so PostgreSQL, which refuses NUL, and SQLite, which would keep it, store
the same), through the service and the API alike; a note over 200 characters is refused
naming the field, before the database."""

import pytest

from debates.models import DebateJob
from debates.services.common import DebateJobError
from debates.services.launch import JobSpec, debate_job_launch

pytestmark = pytest.mark.django_db


def test_the_launch_service_stores_a_nul_and_a_lone_surrogate_as_replacements(tiny_dataset):
    spec = JobSpec(pool=tiny_dataset.pools.get(), note="before\x00after \ud83d")

    job = debate_job_launch(spec=spec, start=False)

    job.refresh_from_db()
    assert job.note == "before\ufffdafter \ufffd"


def test_the_api_stores_a_nul_in_a_note_cleaned(api_as, tiny_dataset, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    pool = tiny_dataset.pools.get().pk
    body = '{"pool": ' + str(pool) + ', "rounds": 1, "note": "a\\u0000b"}'  # a JSON escape

    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")

    assert answer.status_code == 202, answer.content
    assert DebateJob.objects.get().note == "a\ufffdb"


def test_a_note_over_200_characters_is_refused_naming_the_field(tiny_dataset):
    spec = JobSpec(pool=tiny_dataset.pools.get(), note="n" * 5000)

    with pytest.raises(DebateJobError) as refused:
        debate_job_launch(spec=spec, start=False)

    assert str(refused.value) == "note: it has 5,000 characters, at most 200 are allowed"
    assert not DebateJob.objects.exists()
