"""Tied scores are ordered by doc_id ascending (our convention), not trec_eval's way."""

from __future__ import annotations

import math

import pytest

from assess.evaluation.metrics import evaluate_run, rank_run, to_ir_measures_run

QRELS = {"q1": {"b": 1, "a": 0}}


def test_a_tie_puts_the_smaller_doc_id_first():
    """a and b share score 1.0: rank order is a (judged 0) then b (relevant)."""
    assert rank_run({"q1": {"b": 1.0, "a": 1.0, "c": 2.0}}) == {"q1": ["c", "a", "b"]}


def test_ir_measures_sees_strictly_decreasing_scores_in_our_order():
    """Scores handed to ir_measures are -rank, so no tie is left for trec_eval to break."""
    assert to_ir_measures_run({"q1": {"b": 1.0, "a": 1.0}}) == {"q1": {"a": -1.0, "b": -2.0}}


def test_the_tied_relevant_document_counts_at_rank_two():
    """With a before b, the relevant b is at rank 2: nDCG@10 = (1/log2(3)) / 1 = 0.630930.
    (trec_eval breaks ties by doc id descending and would put b first, giving 1.0.)"""
    aggregate, _ = evaluate_run(QRELS, {"q1": {"a": 1.0, "b": 1.0}})

    assert aggregate["nDCG@10"] == pytest.approx(1 / math.log2(3))
    assert aggregate["nDCG@10"] == pytest.approx(0.630930, abs=1e-6)


def test_rows_are_ordered_by_score_not_by_their_rank_column():
    """Rows give b rank 1 but a higher score to a: a is ranked first, as with a mapping."""
    rows = [("q1", "b", 1, 0.5), ("q1", "a", 2, 0.9)]

    assert rank_run(rows) == {"q1": ["a", "b"]}
    assert evaluate_run(QRELS, rows)[0]["nDCG@10"] == pytest.approx(0.630930, abs=1e-6)
