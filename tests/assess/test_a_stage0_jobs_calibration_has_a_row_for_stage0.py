"""A job with stage 0 has a calibration row for stage 0: its stored P(relevant) of the
audited pairs against their human labels (hand-worked ECE and Brier)."""

import pytest

from assess.review.calibration import job_calibration
from debates.models import Debate, DebateJob


def test_stage0_row_scores_its_stored_probabilities(calibrated_job):
    job = calibrated_job.job
    DebateJob.objects.filter(pk=job.pk).update(stage0=True, stage0_model_hash="ab" * 32)
    # Human labels of the four audited pairs: 1, 1, 0, 0. Stage 0 said 1.0, 0.5, 0.5, 0.0.
    for debate, p in zip(calibrated_job.agreed, (1.0, 0.5, 0.5, 0.0), strict=True):
        Debate.objects.filter(pk=debate.pk).update(stage0_p=p)
    job.refresh_from_db()
    rows = {row.agent: row for row in job_calibration(job=job).agents}
    stage0 = rows["stage0"]
    assert stage0.model == "stage0:" + "ab" * 6
    assert stage0.figures is not None and stage0.figures.n == 4
    # Brier: (0 + 0.25 + 0.25 + 0) / 4 = 0.125.
    assert stage0.figures.brier == pytest.approx(0.125)
    # Equal-mass bins of 10 over 4 points (ties kept together): {0.0}, {0.5, 0.5}, {1.0}:
    # |0 - 0| * 1 + |0.5 - 0.5| * 2 + |1 - 1| * 1 = 0: ECE 0.
    assert stage0.figures.ece == pytest.approx(0.0)
    assert set(rows) == {"A", "B", "stage0"}


def test_a_job_without_stage0_has_no_stage0_row(calibrated_job):
    rows = [row.agent for row in job_calibration(job=calibrated_job.job).agents]
    assert rows == ["A", "B"]
