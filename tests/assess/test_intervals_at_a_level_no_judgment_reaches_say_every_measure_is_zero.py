"""A relevance level above every grade (``--rel-level 2`` on binary qrels) is not refused, as
ir_measures and trec_eval give 0 at such a level, but the intervals say it in words: every
measure is 0 (estimates of 0, with at most the estimator's variance floor as width), a note
shown wherever the intervals are (the printout, the page, the API). The ``holes`` world of
tests/fixtures/refine.py is binary: its highest grade, original or pooled, is 1."""

import html
import io

import pytest
from django.core.management import call_command

from assess.evaluation.refined_intervals import rebench_intervals
from tests.fixtures.refine import refined_at_share

pytestmark = pytest.mark.django_db

NOTE = (
    "no judgment reaches relevance level 2 (the highest grade is 1): every measure is 0, and an "
    "interval wider than 0 shows only the estimator's allowance for label errors its sample "
    "did not see"
)


@pytest.fixture
def audited(refined):
    return refined_at_share(refined, 0.5)


def test_at_level_2_every_interval_is_zero_and_a_note_says_why(audited):
    found = rebench_intervals(
        original=audited.test, refined=audited.refined, runs=audited.runs, rel_level=2
    )
    assert found.error == "" and found.notes[0] == NOTE
    cells = [i for by in found.ppi.by_system.values() for i in by.values()]
    assert len(cells) == 6
    assert all((i.estimate, i.low) == (0.0, 0.0) for i in cells)
    # P@10 and R@100 have no width; nDCG@10's is the floor of the cells the audit saw.
    widths = {m: i.high for by in found.ppi.by_system.values() for m, i in by.items()}
    assert widths["P@10"] == widths["R@100"] == 0.0
    # At level 1 (grade 1 is relevant) there is no such note.
    found = rebench_intervals(original=audited.test, refined=audited.refined, runs=audited.runs)
    assert not any("relevance level" in n for n in found.notes)


def test_the_printout_the_page_and_the_api_carry_the_note(audited, client_as, api_as):
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "test-dream", "--rel-level", "2", stdout=out)
    assert f"Note: {NOTE}." in out.getvalue()
    page = client_as("researcher").get(
        "/datasets/holes/rebenchmark/?original=test&refined=test-dream&rel=2"
    )
    assert f"Note: {NOTE}." in html.unescape(page.content.decode())
    body = (
        api_as("researcher")
        .get("/api/v1/datasets/holes/refined/test-dream/rebenchmark?rel_level=2")
        .json()
    )
    assert body["intervals"]["notes"][0] == NOTE
