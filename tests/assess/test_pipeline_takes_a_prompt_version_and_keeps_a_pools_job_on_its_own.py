"""The pipeline launches its job with the prompt version asked (``--prompt-version``; default
this code's newest, dream-v2); run again without one it reuses the pool's job whatever its
version (a dream-v1 job made before dream-v2 goes on as dream-v1), and asked for another
version it refuses, since labels are per pool and would mix."""

import pytest

from assess.pipeline import pipeline_run
from debates.models import DebateJob, Turn
from debates.services import DebateJobError
from tests.fixtures.jobs import pipeline_spec

STANCE_RULE = {"backend": "test", "rule": "stance"}


def _run(dataset, tmp_path, **options):
    defaults = {"retrievers": ["bm25"], "depth": 3, "agent": STANCE_RULE, "rounds": 2}
    return pipeline_run(
        dataset=dataset,
        echo=lambda _: None,
        spec=pipeline_spec(out_dir=tmp_path, **{**defaults, **options}),
    )


@pytest.mark.django_db
def test_a_v1_pipeline_job_is_reused_by_default_and_another_version_is_refused(
    energy, fake_llms, tmp_path
):
    first = _run(energy, tmp_path, prompt_version="dream-v1")
    job = DebateJob.objects.get()
    assert job.prompt_version == "dream-v1"
    assert set(Turn.objects.values_list("prompt_version", flat=True)) == {"dream-v1"}
    turns = Turn.objects.count()

    again = _run(energy, tmp_path)
    assert (again.job_id, DebateJob.objects.count(), Turn.objects.count()) == (job.pk, 1, turns)

    with pytest.raises(DebateJobError) as refused:
        _run(energy, tmp_path, prompt_version="dream-v2")
    message = str(refused.value)
    assert f"pool '{first.pool}' was already debated by job {job.pk}" in message
    assert "prompts dream-v1" in message and "asks for test, R = 2, prompts dream-v2" in message
    assert DebateJob.objects.count() == 1


@pytest.mark.django_db
def test_a_new_pipeline_job_takes_the_newest_version(energy, fake_llms, tmp_path):
    _run(energy, tmp_path, rounds=1)
    assert DebateJob.objects.get().prompt_version == "dream-v2"
