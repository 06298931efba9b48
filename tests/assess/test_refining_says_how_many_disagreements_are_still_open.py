"""Refining says how many disagreements are still open (escalated pairs no human settled
yet): the command's report, the page after refining, the refined set's page and the API."""

import io

import pytest
from django.core.management import call_command

from assess.refined.refine import open_disagreements_count, open_disagreements_sentence
from tests.fixtures.refine import review, settle
from tests.fixtures.refine_again import refine_started

ONE_OPEN = (
    "1 disagreement is still open (escalated pairs no human has settled yet): they stay "
    "unjudged in this set; refine again once they are judged."
)


@pytest.fixture
def one_open(holes):
    # (q2, d3) escalated, no human answer; (q2, d6) still pending (not a disagreement).
    settle(holes.debate("q1", "d3"), "agreed", label=1, round=1)
    settle(holes.debate("q1", "d5"), "agreed", label=0, round=1)
    review(settle(holes.debate("q2", "d3"), "escalated", reason="disagreement"), "escalated", [])
    return holes


def test_the_count_takes_only_escalated_pairs_no_human_settled():
    by_reason = {
        "escalated, awaiting human": 2,
        "human tie": 1,
        "human review incomplete": 1,
        "over the human budget": 3,
        "pending": 5,
        "failed": 4,
    }
    assert open_disagreements_count(by_reason) == 7
    assert open_disagreements_count(None) == 0
    assert open_disagreements_sentence(0).startswith("No escalated pair is still open")


@pytest.mark.django_db
def test_the_command_reports_the_open_disagreement(one_open):
    out = io.StringIO()
    call_command("refine", "holes/p", "--name", "partial", "--allow-partial", stdout=out)
    assert ONE_OPEN in out.getvalue().splitlines()


@pytest.mark.django_db
def test_the_pages_and_the_api_say_it(one_open, client_as, api_as):
    client = client_as("admin")
    answer, _ = refine_started(
        client,
        "/datasets/holes/refined/new/",
        {"pool": one_open.pool.pk, "name": "partial", "allow_partial": "on"},
    )
    page = client.get(answer["Location"]).content.decode()
    assert "1 disagreement is still open (escalated pairs no human has settled yet)" in page
    page = client.get("/datasets/holes/refined/partial/").content.decode()
    start = page.index('id="open-disagreements"')
    assert ONE_OPEN in page[start : page.index("</dd>", start)]
    body = api_as("researcher").get("/api/v1/datasets/holes/refined").json()
    (partial,) = [r for r in body["items"] if r["name"] == "partial"]  # one page of sets
    assert (partial["open_disagreements"], partial["open_disagreements_note"]) == (1, ONE_OPEN)
