"""Coverage, checked as a statistical claim: over many seeded replications of a simulated
refinement (assess.evaluation.simulation; no database), the prediction-powered 95% interval
on nDCG@10 contains the human-completed value about 95% of the time, and it is narrower
than the interval from the human sample alone."""

import pytest

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
    # Real intervals, not the whole-range fallback that covers by construction.
    assert ppi["whole_range_intervals"] == 0
    # 180 intervals at a true 95%: the binomial standard deviation is 1.6 points, so 0.90
    # is three of them below the nominal level.
    assert ppi["coverage"] >= 0.90
    assert ppi["mean_width"] < human["mean_width"]
    assert result.wrong_consensus > 0  # the debaters do err: the interval has work to do


def test_with_annotators_who_err_the_interval_covers_their_value_not_the_perfect_one():
    # The estimator takes each human label as right, so with 15% annotator error it estimates
    # the value under the annotators' labels: it covers that one at about 95% and the
    # perfect assessor's less often. With error-free annotators the two coverages are equal.
    truth, runs = synthetic_collection()
    design = StudyDesign(
        replications=60, audit_share=0.2, hide=0.5, assessor=SimulatedAssessor(0.9, 0.8)
    )
    exact = study_run(truth=truth, runs=runs, design=design).methods["ppi"].summary()
    assert exact["coverage_of_annotators_value"] == exact["coverage"]
    erring = StudyDesign(
        replications=60,
        audit_share=0.2,
        hide=0.5,
        assessor=SimulatedAssessor(0.9, 0.8, annotator_error=0.15),
    )
    ppi = study_run(truth=truth, runs=runs, design=erring).methods["ppi"].summary()
    assert ppi["intervals"] == 180
    assert ppi["coverage_of_annotators_value"] >= 0.90  # three binomial sd below 95%, as above
    assert ppi["coverage"] < ppi["coverage_of_annotators_value"]


def test_the_annotators_completion_keeps_human_labels_and_draws_the_rest():
    import random

    from assess.evaluation.intervals import PooledLabel
    from assess.evaluation.simulation import annotators_completion

    truth = {"q": {"a": 1, "b": 0}}
    pool = [
        PooledLabel("q", "a", 1, 0, "label 1, round 1", True, 0.5),  # audited: the human's 0
        PooledLabel("q", "b", 0, None, "label 0, round 1", False, 0.5),  # would-be annotator
        PooledLabel("q", "c", 0, None, "label 0, round 1", False, 0.5),  # absent: not relevant
    ]
    # An annotator always wrong flips every pair without a human label.
    flipped = annotators_completion(truth, pool, 1.0, random.Random(0))
    assert flipped == {("q", "a"): 0, ("q", "b"): 1, ("q", "c"): 1}
    assert annotators_completion(truth, pool, 0.0, random.Random(0)) is None


def test_intervals_as_wide_as_the_labels_allow_are_counted_beside_their_coverage():
    # At a 1% audit most cells have no or one human label: many intervals fall back to every
    # value the labels allow and cover by construction, which a coverage of 100% alone hides.
    truth, runs = synthetic_collection()
    design = StudyDesign(
        replications=30, audit_share=0.01, hide=0.5, assessor=SimulatedAssessor(0.9, 0.8)
    )
    ppi = study_run(truth=truth, runs=runs, design=design).methods["ppi"].summary()
    assert ppi["intervals"] == 90 and ppi["coverage"] == 1.0
    assert ppi["whole_range_intervals"] > 0


def test_the_coverages_interval_treats_replications_as_the_independent_units():
    from assess.evaluation.simulation import coverage_interval

    # Four replications of three intervals: 3, 2, 3, 1 covered, p = 9/12 = 0.75. Residuals
    # c - p n: 0.75, -0.25, 0.75, -1.25, squares summing to 2.75; variance 2.75 / (4 * 3 * 3^2)
    # = 0.025463, effective size 0.75 * 0.25 / 0.025463 = 7.364 (not 12: the systems of a
    # replication share its draws). Wilson at n = 7.364, z = 1.96: centre (0.75 + 3.8416 /
    # 14.727) / (1 + 3.8416 / 7.364) = 0.66429, half width 1.28803 * sqrt(0.025463 + 0.017712)
    # = 0.26764.
    low, high = coverage_interval([(3, 3), (2, 3), (3, 3), (1, 3)])
    assert (low, high) == pytest.approx((0.39666, 0.93192), abs=1e-5)
    # Every replication covering everything: no spread, so (Korn and Graubard) the effective
    # size is the 600 intervals; Wilson's lower end at p = 1 is n / (n + z^2) = 600 / 603.84.
    assert coverage_interval([(3, 3)] * 200) == pytest.approx([600 / (600 + 1.96**2), 1.0])
    assert coverage_interval([]) is None


def test_one_more_miss_never_raises_the_coverages_lower_end():
    from assess.evaluation.simulation import coverage_interval

    # 200 replications of two intervals, all covered, against one miss among them.
    every = coverage_interval([(2, 2)] * 200)
    one_miss = coverage_interval([(1, 2)] + [(2, 2)] * 199)
    assert every is not None and one_miss is not None
    assert one_miss[0] < every[0]
    # 100 replications of 12 at 11 each, against one replication at 10.
    same = coverage_interval([(11, 12)] * 100)
    lower = coverage_interval([(10, 12)] + [(11, 12)] * 99)
    assert same is not None and lower is not None
    assert lower[0] < same[0]


def test_studies_of_one_seed_share_their_debates_whatever_the_audit_share_or_design():
    # A comparison of audit shares or designs is paired: the same seed gives the same
    # debates (escalations, wrong consensus labels, calls); only the audit differs.
    truth, runs = synthetic_collection()
    found = []
    for share, audit in ((0.1, "uniform"), (0.3, "uniform"), (0.1, "impact"), (0.1, "neyman")):
        design = StudyDesign(
            replications=5,
            audit_share=share,
            audit_design=audit,
            hide=0.5,
            assessor=SimulatedAssessor(0.9, 0.8),
        )
        result = study_run(truth=truth, runs=runs, design=design)
        found.append((result.escalated, result.wrong_consensus, result.llm_calls))
    assert found[0][0] > 0 and found[0][1] > 0
    assert found == [found[0]] * 4


def test_with_every_pair_audited_the_intervals_are_exact_not_whole_range():
    # At an audit share of 1 every pair has a human label: each interval is the one value the
    # labels give (no width, no error), an exact answer, not the fallback of a sample too
    # small to say anything, so it is not counted among the whole-range intervals.
    truth, runs = synthetic_collection()
    design = StudyDesign(
        replications=2, audit_share=1.0, hide=0.5, assessor=SimulatedAssessor(0.9, 0.8)
    )
    ppi = study_run(truth=truth, runs=runs, design=design).methods["ppi"].summary()
    assert ppi["intervals"] == 6 and ppi["coverage"] == 1.0
    assert ppi["mean_width"] == pytest.approx(0, abs=1e-9)
    assert ppi["mean_error"] == pytest.approx(0, abs=1e-9)
    assert ppi["whole_range_intervals"] == 0
