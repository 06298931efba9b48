"""``POST /api/v1/jobs`` takes ``stage0``, ``stage0_alpha``, ``stage0_delta``, ``stage0_beta`` and
``min_agreement_probability``; a level outside (0, 1) is a 422 naming the field; the job's
body says stage 0's state, words, band and judge hash."""

import pytest

from debates.models import DebateJob


@pytest.fixture(autouse=True)
def _no_run(settings):
    # The job is only stored here: its stage-0 step is queued after a commit that never comes.
    settings.CELERY_TASK_ALWAYS_EAGER = False


def test_a_job_is_launched_with_stage0_waiting(api_as, tiny_dataset):
    body = {
        "pool": tiny_dataset.pools.get().pk,
        "rounds": 1,
        "stage0": True,
        "stage0_alpha": 0.05,
        "stage0_delta": 0.2,
        "min_agreement_probability": 0.7,
    }
    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 202, answer.content
    out = answer.json()
    assert (out["stage0"], out["stage0_state"], out["stage0_band"]) == (True, "waiting", None)
    job = DebateJob.objects.get()
    assert (job.stage0_alpha, job.stage0_delta, job.min_agreement_probability) == (0.05, 0.2, 0.7)
    detail = api_as("researcher").get(f"/api/v1/jobs/{job.pk}").json()
    assert (detail["stage0_state"], detail["stage0_note"], detail["stage0_model_hash"]) == (
        "waiting",
        "",
        "",
    )


def test_a_level_outside_zero_to_one_is_a_422_naming_the_field(api_as, tiny_dataset):
    body = {"pool": tiny_dataset.pools.get().pk, "stage0": True, "stage0_alpha": 1.5}
    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("stage0_alpha: ")
    assert DebateJob.objects.count() == 0


def test_stage0_beta_is_taken_and_one_above_one_is_a_422(api_as, tiny_dataset):
    pool = tiny_dataset.pools.get().pk
    body = {"pool": pool, "stage0": True, "stage0_beta": 0.25}
    answer = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert answer.status_code == 202, answer.content
    assert DebateJob.objects.get().stage0_beta == 0.25
    body = {"pool": pool, "stage0": True, "stage0_beta": 1.5, "allow_duplicate": True}
    refused = api_as("admin").post("/api/v1/jobs", body, content_type="application/json")
    assert refused.status_code == 422 and refused.json()["detail"].startswith("stage0_beta: ")
    assert DebateJob.objects.count() == 1
