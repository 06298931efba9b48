"""``simulate_study --strategy S --budget B``: a replication judges only the pairs the pool
strategy's order reaches within the budget, as a job on a budgeted pool does; the other
pairs stay holes, and the intervals must cover the value under the pairs judged. Pure
(assess.evaluation.simulation and simulation_pool), no database; every label simulated."""

import pytest

from assess.evaluation.simulation import StudyDesign, study_run
from assess.evaluation.simulation_pool import study_pool_choose
from debates.simulated import SimulatedAssessor
from tests.fixtures.simulated import synthetic_collection

# Two runs of one query; d2 is judged (not relevant) in the starting qrels, so the depth-3
# pool's unjudged candidates are d1, d3 and d4.
RUNS = {"a": {"q1": ["d1", "d2", "d3"]}, "b": {"q1": ["d3", "d4", "d1"]}}
START = {"q1": {"d2": 0}}
CANDIDATES = [("q1", "d1"), ("q1", "d3"), ("q1", "d4")]


def choose(strategy, budget, seen=None):
    return study_pool_choose(
        candidates=CANDIDATES,
        runs=RUNS,
        queries=["q1"],
        start=START,
        depth=3,
        strategy=strategy,
        budget=budget,
        seen=seen or dict.fromkeys(CANDIDATES, 0),
    )


def test_without_a_budget_every_candidate_is_judged_whatever_the_order():
    for strategy in ("depth", "rbp", "rrf", "bandit", "mtc"):
        assert choose(strategy, None) == CANDIDATES


def test_a_budget_takes_the_first_pairs_of_the_strategys_order():
    # depth: best ranks d1 1, d3 1, d4 2: a budget of 2 takes the two rank-1 documents.
    assert choose("depth", 2) == [("q1", "d1"), ("q1", "d3")]
    # rrf (k = 60): d1 and d3 both 1/61 + 1/63, d4 1/62; the tie goes by key, d1 first.
    assert choose("rrf", 1) == [("q1", "d1")]
    # A share below 1 is of the candidates: 0.5 of 3 rounds to 2 pairs.
    assert len(choose("bandit", 0.5)) == 2


def test_a_budget_larger_than_the_pool_judges_every_pair():
    assert choose("mtc", 50) == CANDIDATES


def test_a_study_without_a_budget_is_the_same_whatever_the_strategy():
    truth, runs = synthetic_collection()

    def result(strategy):
        design = StudyDesign(replications=3, audit_share=0.2, strategy=strategy)
        out = study_run(truth=truth, runs=runs, design=design).as_json()
        assert out.pop("strategy") == strategy
        return out

    assert result("bandit") == result("depth")


def test_a_budget_judges_that_share_of_the_depth_pool_and_fewer_debates():
    truth, runs = synthetic_collection()
    full = study_run(truth=truth, runs=runs, design=StudyDesign(replications=1))
    half = study_run(
        truth=truth, runs=runs, design=StudyDesign(replications=1, strategy="depth", budget=0.5)
    )
    assert half.depth_pool_pairs == full.depth_pool_pairs == full.pooled_pairs
    assert half.pooled_pairs == round(0.5 * full.depth_pool_pairs)
    assert half.llm_calls < full.llm_calls
    assert half.as_json()["budget"] == 0.5


@pytest.mark.parametrize("strategy", ["bandit", "mtc"])
def test_the_intervals_cover_the_value_under_the_pairs_an_adaptive_budget_judged(strategy):
    # The adaptive strategies choose pairs from the labels they see, but the audit draws are
    # independent of that choice, so given the pairs judged the audit is still a probability
    # sample of them. 60 replications x 3 systems; the systems of a replication share its
    # draws, so the check is loose (0.90) beside the 0.98-0.99 measured over 200 replications.
    # A 30% audit: at 20% a few values (5-8 of 180) rest on an effective n_b below 5 and are
    # whole ranges by design, which this test, about covering intervals, does not want.
    truth, runs = synthetic_collection()
    design = StudyDesign(
        replications=60,
        audit_share=0.3,
        hide=0.5,
        assessor=SimulatedAssessor(0.9, 0.8),
        strategy=strategy,
        budget=0.5,
    )
    result = study_run(truth=truth, runs=runs, design=design)
    ppi = result.methods["ppi"].summary()
    assert result.pooled_pairs < result.depth_pool_pairs
    assert (ppi["intervals"], ppi["failures"], ppi["whole_range_intervals"]) == (180, 0, 0)
    assert ppi["coverage"] >= 0.90
    assert ppi["mean_width"] < result.methods["human_only"].summary()["mean_width"]


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"strategy": "random"}, "strategy: one of depth, rbp, rrf, bandit, mtc"),
        ({"budget": 0}, "budget: must be more than 0, got 0"),
        ({"budget": 2.5}, "budget: 2.5: give a whole number of pairs"),
    ],
)
def test_an_unknown_strategy_or_an_unfit_budget_is_refused_naming_the_field(fields, words):
    with pytest.raises(ValueError, match=words):
        StudyDesign(**fields)
