"""Coverage, checked as a statistical claim: over many seeded replications of a simulated
refinement (assess.evaluation.simulation; no database), the prediction-powered 95% interval
on nDCG@10 contains the human-completed value about 95% of the time, and it is narrower
than the interval from the human sample alone."""

from assess.evaluation.simulation import StudyDesign, study_run
from debates.simulated import SimulatedAssessor
from tests.fixtures.simulated import synthetic_collection


def test_the_ppi_interval_covers_near_95_percent_and_beats_the_human_only_width():
    truth, runs = synthetic_collection()
    result = study_run(
        truth=truth,
        runs=runs,
        design=StudyDesign(
            replications=60, audit_share=0.2, hide=0.5, assessor=SimulatedAssessor(0.9, 0.8)
        ),
    )
    ppi = result.methods["ppi"].summary()
    human = result.methods["human_only"].summary()
    assert ppi["intervals"] == 180 and ppi["failures"] == 0
    # 180 intervals at a true 95%: the binomial standard deviation is 1.6 points, so 0.90
    # is three of them below the nominal level.
    assert ppi["coverage"] >= 0.90
    assert ppi["mean_width"] < human["mean_width"]
    assert result.wrong_consensus > 0  # the debaters do err: the interval has work to do
