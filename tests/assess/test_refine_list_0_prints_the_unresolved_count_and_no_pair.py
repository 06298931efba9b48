"""``refine --list 0`` refines as without it and prints the unresolved pairs' count and where
to find them, but no pair and no empty table; ``--list 1`` lists the first pair; a negative
``--list`` is a usage error naming the flag, writing nothing. The ``holes`` world
(tests/fixtures/refine.py) with two of its four pairs resolved."""

import io

import pytest
from django.core.management import CommandError, call_command

from corpora.models import QrelSet
from tests.fixtures.refine import review, settle

COUNT = "unresolved pairs (no final label, left unjudged): 2"
MORE = "--kind disagreements lists them all)"


@pytest.fixture(name="half_resolved")
def half_resolved_fixture(holes):
    """(q1, d3) and (q1, d5) agreed; (q2, d3) escalated with no human answer, (q2, d6)
    pending: 2 of 4 pairs unresolved."""
    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=1)
    review(settle(holes.debate("q2", "d3"), "escalated", reason="disagreement"), "escalated")
    return holes


def _refine(*flags: str) -> list[str]:
    out = io.StringIO()
    call_command("refine", "holes/p", "--name", "partial", "--allow-partial", *flags, stdout=out)
    return out.getvalue().splitlines()


@pytest.mark.django_db
def test_list_0_prints_the_count_and_the_export_that_lists_the_pairs(half_resolved):
    lines = _refine("--list", "0")
    at = lines.index(COUNT)
    assert lines[at + 1 :] == [
        "  ... and 2 more (export_labels DATASET partial --kind disagreements lists them all)"
    ]
    assert not any("reason" in line or "q2" in line for line in lines)
    assert QrelSet.objects.get(name="partial").qrels.count() == 6


@pytest.mark.django_db
def test_list_1_lists_the_first_unresolved_pair_and_counts_the_rest(half_resolved):
    lines = _refine("--list", "1")
    at = lines.index(COUNT)
    assert [line.split() for line in lines[at + 1 : at + 3]] == [
        ["query", "document", "reason"],
        ["q2", "d3", "escalated,", "awaiting", "human"],
    ]
    assert lines[at + 3].startswith("  ... and 1 more (") and lines[at + 3].endswith(MORE)


@pytest.mark.django_db
def test_a_negative_list_is_a_usage_error_and_refines_nothing(half_resolved):
    with pytest.raises(CommandError, match=r"argument --list: must be 0 or more, got -1"):
        _refine("--list", "-1")
    assert not QrelSet.objects.filter(name="partial").exists()
