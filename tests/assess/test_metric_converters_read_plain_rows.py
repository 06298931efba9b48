"""Plain rows convert to the qrels and run shapes, and both run shapes score the same."""

from __future__ import annotations

import math

import pytest

from assess.evaluation.metrics import evaluate_run, to_ir_measures_qrels, to_ir_measures_run
from tests.fixtures.metrics import ALPHA, ORIGINAL, as_rows


def test_qrels_rows_become_nested_dicts_with_integer_grades():
    rows = [("q1", "a", 2), ("q1", "b", 0), ("q2", "e", "1")]

    assert to_ir_measures_qrels(rows) == {"q1": {"a": 2, "b": 0}, "q2": {"e": 1}}


def test_a_qrels_pair_given_twice_is_an_error_naming_it():
    with pytest.raises(ValueError, match="query 'q1' document 'a'"):
        to_ir_measures_qrels([("q1", "a", 1), ("q1", "a", 0)])


def test_run_rows_become_minus_rank_scores_grouped_by_query():
    rows = [("q2", "e", 1, 3.5), ("q1", "x", 2, 0.1), ("q1", "y", 1, 0.7)]

    assert to_ir_measures_run(rows) == {"q2": {"e": -1.0}, "q1": {"y": -1.0, "x": -2.0}}


def test_a_run_document_listed_twice_or_a_nan_score_is_an_error():
    with pytest.raises(ValueError, match="query 'q1' document 'x' twice"):
        to_ir_measures_run([("q1", "x", 1, 0.5), ("q1", "x", 2, 0.4)])
    with pytest.raises(ValueError, match="not a finite number"):
        to_ir_measures_run({"q1": {"x": math.nan}})


def test_rows_and_the_mapping_of_the_same_run_give_identical_scores():
    assert evaluate_run(ORIGINAL, as_rows(ALPHA)) == evaluate_run(ORIGINAL, ALPHA)
