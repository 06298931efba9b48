"""The simulated study's comparison tally (assess.evaluation.simulation_comparisons): how it
counts covered, settled and wrongly settled pair differences and the tau interval, on
hand-made intervals; and, as a statistical claim over seeded replications of a synthetic
collection, that the paired differences cover near 95% and the tau interval at least that."""

import pytest

from assess.evaluation import simulation_comparisons
from assess.evaluation.interval_comparisons import PairComparison
from assess.evaluation.intervals import Interval
from assess.evaluation.simulation import MethodTally, StudyDesign, study_run
from assess.evaluation.simulation_comparisons import ComparisonTally
from debates.simulated import SimulatedAssessor
from tests.fixtures.simulated import synthetic_collection


@pytest.fixture
def hand_made(monkeypatch):
    """Three pairs a-b, a-c, b-c with hand-made difference intervals and a tau interval of
    (0.5, 0.2, 1.0), whatever the estimator would have given."""
    pairs = [
        PairComparison("a", "b", Interval(0.10, 0.05, 0.15, 9)),  # settled a > b
        PairComparison("a", "c", Interval(-0.02, -0.04, -0.01, 9)),  # settled a < c
        PairComparison("b", "c", Interval(0.01, -0.03, 0.05, 9)),  # open
    ]
    monkeypatch.setattr(simulation_comparisons, "pair_comparisons", lambda found, m: pairs)
    monkeypatch.setattr(
        simulation_comparisons, "kendall_tau_interval", lambda found, o, measure: (0.5, 0.2, 1.0)
    )


def test_a_settled_pair_against_the_true_order_counts_as_wrongly_settled(hand_made):
    tally = ComparisonTally()
    # True differences: a-b 0.12 (inside, same sign), a-c +0.11 (outside, sign flipped),
    # b-c -0.01 (inside, open).
    truths = {"a": 0.50, "b": 0.38, "c": 0.39}
    # Original order c > b > a; the truth a > c > b: concordant pairs (b, c) only, so
    # tau-b = (1 - 2) / 3 = -1/3, below the interval's 0.2.
    original = {"a": 0.1, "b": 0.2, "c": 0.3}
    tally.add(None, "nDCG@10", truths, original)
    summary = tally.summary()
    assert summary["pairs"] == 3
    assert summary["coverage"] == round(2 / 3, 4)
    assert summary["mean_width"] == round((0.10 + 0.03 + 0.08) / 3, 4)
    assert summary["settled_share"] == round(2 / 3, 4)
    assert (summary["wrongly_settled"], summary["wrongly_settled_share"]) == (1, 0.5)
    assert summary["tau"] == {"intervals": 1, "coverage": 0.0, "mean_width": 0.8, "undefined": 0}


def test_a_true_tau_inside_the_interval_is_covered(hand_made):
    tally = ComparisonTally()
    # The same order before and after: tau 1, inside (0.2, 1.0).
    tally.add(None, "nDCG@10", {"a": 0.3, "b": 0.2, "c": 0.1}, {"a": 0.3, "b": 0.2, "c": 0.1})
    assert tally.summary()["tau"]["coverage"] == 1.0


def test_pair_differences_cover_near_95_percent_and_tau_at_least_that_over_replications():
    truth, runs = synthetic_collection()
    result = study_run(
        truth=truth,
        runs=runs,
        design=StudyDesign(
            replications=60,
            audit_share=0.2,
            hide=0.5,
            assessor=SimulatedAssessor(0.9, 0.8),
            measures=("nDCG@10", "P@10"),
        ),
    )
    for measure in ("nDCG@10", "P@10"):
        c = result.comparisons[measure].summary()
        assert c["pairs"] == 180  # three pairs in each of 60 replications
        # 180 intervals at a true 95%: three binomial standard deviations below is 0.90.
        assert c["coverage"] >= 0.90
        # Bonferroni over three pairs makes the tau interval conservative: 60 at >= 95%.
        assert c["tau"]["intervals"] == 60 and c["tau"]["coverage"] >= 0.90
        # A wrongly settled pair is a non-covering interval on the wrong side of 0.
        assert c["wrongly_settled"] <= round((1 - c["coverage"]) * c["pairs"])


def test_a_measure_outside_the_interval_measures_is_refused_naming_only_the_unknown_one():
    with pytest.raises(ValueError) as refused:
        StudyDesign(measures=("nDCG@10", "MAP"))
    assert str(refused.value) == (
        "measures: unknown measure MAP; each must be one of nDCG@10, P@10, R@100"
    )
    with pytest.raises(ValueError) as refused:
        StudyDesign(measures=("nDCG@10", "MAP", "P@5"))
    assert str(refused.value) == (
        "measures: unknown measures MAP, P@5; each must be one of nDCG@10, P@10, R@100"
    )
    with pytest.raises(ValueError) as refused:
        StudyDesign(measures=("P@10",))
    assert str(refused.value) == "measures: must include the headline nDCG@10; got P@10"


def test_the_lowest_covering_system_is_named_beside_the_pooled_coverage():
    tally = MethodTally()
    # System a: 2 of 2 intervals hold the truth; system b: 1 of 2. Pooled 3 of 4.
    tally.add(Interval(0.5, 0.4, 0.6, 9), 0.45, "a")
    tally.add(Interval(0.5, 0.4, 0.6, 9), 0.55, "a")
    tally.add(Interval(0.5, 0.4, 0.6, 9), 0.65, "b")
    tally.add(Interval(0.5, 0.4, 0.6, 9), 0.60, "b")
    summary = tally.summary()
    assert summary["coverage"] == 0.75
    # Wilson at 1 of 2: centre 0.5, half width 1.96 / 2.9208 * sqrt(0.125 + 3.8416 / 16)
    # = 0.40547.
    assert summary["lowest_system_coverage"] == {
        "system": "b",
        "coverage": 0.5,
        "intervals": 2,
        "coverage_interval": pytest.approx([0.09453, 0.90547], abs=1e-5),
    }
    assert MethodTally().summary()["lowest_system_coverage"] is None
    # The mean error, estimate - truth: (0.05 - 0.05 - 0.15 - 0.10) / 4 = -0.0625.
    assert summary["mean_error"] == pytest.approx(-0.0625)
    assert MethodTally().summary()["mean_error"] is None


def test_a_settled_pair_whose_true_difference_is_zero_up_to_rounding_is_wrong(hand_made):
    tally = ComparisonTally()
    # a and b tie in truth up to float rounding: settling a > b is no right order.
    a = (0.1 + 0.2 + 0.3) / 3
    b = (0.3 + 0.2 + 0.1) / 3
    assert a != b
    tally.add(None, "nDCG@10", {"a": a, "b": b, "c": 0.39}, {"a": 0.1, "b": 0.2, "c": 0.3})
    # a-b (settled, a tie in truth) is wrong; a-c (settled below 0, truth -0.19) is right.
    assert tally.summary()["wrongly_settled"] == 1
