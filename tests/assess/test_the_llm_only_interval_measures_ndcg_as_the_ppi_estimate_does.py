"""The LLM-only interval's nDCG@10 is the prediction-powered estimate's: every grade made
binary at the relevance level before the measure, so the columns of the re-benchmark's
interval table measure the same thing on graded qrels and at a level above 1.

Hand-worked: one query, the run ranks b then a; a is graded 2 and b 1. At level 2 only a is
relevant: DCG = 1 / log2(3) = 0.6309 over an ideal 1. At level 1 both are: DCG = ideal, 1.
With graded gains (what the column gave before) it would be (1 + 2 / log2 3) / (2 + 1 /
log2 3) = 0.8597 at every level."""

import math

import pytest

from assess.evaluation.interval_comparisons import machine_only_intervals
from assess.evaluation.interval_strata import PooledLabel

RUN = {"s": {"q": ["b", "a", "c"]}}


@pytest.mark.parametrize(("level", "expected"), [(2, 1 / math.log2(3)), (1, 1.0)])
def test_fixed_grades_count_at_the_relevance_level(level, expected):
    found = machine_only_intervals(
        runs=RUN, fixed={"q": {"a": 2, "b": 1}}, pool=[], queries=["q"], rel_level=level
    )["s"]
    assert found.estimate == pytest.approx(expected)
    assert found.n_human == 0


def test_a_machine_label_below_the_level_is_not_relevant():
    # c at rank 3 agreed grade 1 by the debate: relevant at level 1, not at level 2.
    pool = [PooledLabel("q", "c", 1, None, "label 1, round 1", False, 0.1)]
    at_two = machine_only_intervals(
        runs=RUN, fixed={"q": {"a": 2}}, pool=pool, queries=["q"], rel_level=2
    )["s"]
    assert at_two.estimate == pytest.approx(1 / math.log2(3))
    at_one = machine_only_intervals(
        runs=RUN, fixed={"q": {"a": 2}}, pool=pool, queries=["q"], rel_level=1
    )["s"]
    # Relevant a (rank 2) and c (rank 3) over the ideal of two relevant documents.
    ideal = 1 + 1 / math.log2(3)
    assert at_one.estimate == pytest.approx((1 / math.log2(3) + 1 / math.log2(4)) / ideal)
