"""Whether two systems' order is settled is what the interval on their paired per-query
difference says (it excludes 0; each pair on its own, unadjusted); the rank changes'
Wilcoxon and t-test ask another question, whether one system's score moved between the
original and the refined qrels, and are never offered as the test of two systems. The
``holes`` world of tests/fixtures/refine.py, half its agreed labels audited."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from assess.evaluation.refined_intervals import SETTLED_WORDS, interval_tables, rebench_intervals
from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from corpora.models import Run
from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db


def test_the_pairs_table_says_what_settled_means_and_what_the_tests_ask(refined):
    refined = refined_at_share(refined, 0.5)
    runs = list(Run.objects.order_by("name"))
    found = rebench_intervals(original=refined.test, refined=refined.refined, runs=runs)
    note = interval_tables(found)[1].note
    assert note.startswith(SETTLED_WORDS)
    assert (
        "The order of a and b is what the interval on their paired per-query difference says: "
        "settled when it excludes 0, at 95% for each pair on its own, not adjusted for the "
        "pairs compared."
    ) in note
    assert (
        "The rank changes' Wilcoxon and t-test p ask another question: whether one system's "
        "score moved between the original and the refined qrels."
    ) in note
    assert "paired tests' question" not in note


def test_the_printout_and_the_datasheet_say_the_same(refined):
    refined = refined_at_share(refined, 0.5)
    out = io.StringIO()
    call_command(
        "rebenchmark", "holes", "--original", "test", "--refined", "test-dream", stdout=out
    )
    printed = " ".join(out.getvalue().split())
    assert SETTLED_WORDS in printed
    assert "that is the paired tests' question" not in printed
    text = datasheet_render(sheet=benchmark_datasheet(refinement=refined.refined.refinement))
    assert (
        "settled at 95%: 0 of 1 (0%), n = 2 human labels (1 audited + 1 escalated); settled: "
        "the 95% interval on the pair's paired per-query difference excludes 0, each pair's "
        "interval on its own, not adjusted for the 1 pair compared"
    ) in text
