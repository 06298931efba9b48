"""The benchmark zip's README gives, per debate job, each agent's calibration (n, ECE, Brier,
with the method's sources) or in words what is missing: rendered from a hand-filled sheet,
and built from the database for the ``refined`` world of tests/fixtures/refine.py."""

from __future__ import annotations

import pytest

from assess.models import Refinement
from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import (
    CALIBRATION_SOURCES,
    AgreementSheet,
    AuditSheet,
    CalibrationSheet,
    JobSheet,
    datasheet_render,
)
from assess.review.agreement import wilson_interval
from debates.models import Turn


def _job(**changes) -> JobSheet:
    return JobSheet(
        job=7,
        agents=(),
        prompt_version="dream-v2",
        rounds=2,
        scale="binary",
        max_grade=1,
        consensus="exact",
        temperature=0.0,
        max_tokens=512,
        max_tokens_cap=1024,
        audit=AuditSheet(share=0.1, sampled=0, error=wilson_interval(0, 0)),
        agreement=AgreementSheet(0, 0, None, 0, None, 0),
        **changes,
    )


def test_the_calibration_line_gives_n_ece_and_brier_or_what_is_missing():
    from assess.refined import datasheet

    sheet = _job(
        calibration=(
            CalibrationSheet("A", 4, 4, 0.3, 0.125),
            CalibrationSheet("B", 0, 4, None, None, "no P(label): the server sent no logprobs"),
        )
    )
    line = datasheet._calibration(sheet)
    assert line == (
        f"- Calibration ({CALIBRATION_SOURCES}): agent A n = 4 of 4, ECE 0.300, Brier 0.125; "
        "agent B: no P(label): the server sent no logprobs"
    )
    missing = datasheet._calibration(_job(calibration_missing="calibration needs gold"))
    assert missing.endswith("): none, calibration needs gold")


@pytest.mark.django_db
def test_the_readme_holds_the_jobs_calibration_from_its_audited_pairs(refined):
    # The audited pair q2/d6: both agents said 1 in round 1 (consensus), the human 0.
    debate = refined.debate("q2", "d6")
    Turn.objects.filter(debate=debate, agent="A").update(label_probability=0.8)
    refinement = Refinement.objects.filter(qrel_set=refined.refined).latest("pk")

    sheet = benchmark_datasheet(refinement=refinement)

    (job,) = sheet.jobs
    agent_a, agent_b = job.calibration
    # One point, P(relevant) 0.8 against 0: ECE |0 - 0.8|, Brier 0.64.
    assert (agent_a.n, agent_a.labelled) == (1, 1)
    assert agent_a.ece == pytest.approx(0.8) and agent_a.brier == pytest.approx(0.64)
    assert (agent_b.n, agent_b.ece) == (0, None)
    readme = datasheet_render(sheet=sheet)
    # The missing words come from the database, so they are escaped as Markdown text.
    assert "agent A n = 1 of 1, ECE 0.800, Brier 0.640; agent B: no P(label):" in readme
