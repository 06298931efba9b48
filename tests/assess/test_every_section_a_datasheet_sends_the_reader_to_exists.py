"""Where the datasheet sends the reader to another part of it ('under "..."'), that part is
a heading of the same file, word for word; and no reference is left unquoted ("under
Counts" named a section that never existed: the counts are under "Final labels of the
pool's pairs")."""

from __future__ import annotations

import re

import pytest

from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import LABELS_HEADING, IntervalCell, IntervalsSheet, datasheet_render
from tests.assess.test_benchmark_datasheet_says_how_the_labels_were_made import sheet
from tests.fixtures.refine import refined_at_share

QUOTED = re.compile(r'\bunder "([^"]+)"')
# A capital after "under" is a section's name; quoted ones are checked against the headings.
UNQUOTED = re.compile(r"\bunder (?=[A-Z])")


def references(text: str) -> tuple[list[str], list[str]]:
    """(the sections referred to that no heading names, the unquoted references)."""
    headings = {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")}
    missing = [name for name in QUOTED.findall(text) if name not in headings]
    loose = [text[m.start() : m.start() + 30] for m in UNQUOTED.finditer(text)]
    return missing, loose


INTERVALS = IntervalsSheet(
    systems={"bm25": {"nDCG@10": IntervalCell(0.5, 0.4, 0.6, 12, 7, plain=0.52)}},
    audited=10,
    escalated=2,
    agreed=40,
    pairs=1,
    settled=1,
    tau=(1.0, 1.0, 1.0),
)


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"intervals": None},
        {"intervals": INTERVALS},
        {"intervals": IntervalsSheet(error="no audited pair has a human label yet")},
        {"pool_budget": 10, "pool_pairs": 25, "beyond_budget": 6, "pool_strategy": "MTF"},
    ],
    ids=["plain", "no-intervals", "intervals", "interval-error", "budget"],
)
def test_every_reference_of_a_rendered_sheet_names_one_of_its_headings(changes):
    text = datasheet_render(sheet=sheet(**changes))
    assert QUOTED.findall(text), "the sheet refers the reader to its label counts"
    assert references(text) == ([], [])


def test_the_counts_are_referred_to_under_their_own_heading():
    text = datasheet_render(sheet=sheet())
    assert f"## {LABELS_HEADING}" in text
    assert f'is under "{LABELS_HEADING}". Written by ' in text
    assert f'(under "{LABELS_HEADING}": each pool pair once' in text
    assert "under Counts" not in text


@pytest.mark.django_db
def test_the_zips_datasheet_refers_only_to_its_own_headings(refined):
    refined = refined_at_share(refined, 0.5)
    text = datasheet_render(sheet=benchmark_datasheet(refinement=refined.refined.refinement))
    assert "## Intervals on the refined measures" in text
    assert QUOTED.findall(text) == [LABELS_HEADING, LABELS_HEADING]
    assert references(text) == ([], [])
