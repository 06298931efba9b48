"""A value fewer than 5 human labels bear on (n_b < 5) has the whole range the unjudged
pairs allow as its bracket: every surface that shows it under a "[95%]" heading marks it
"whole range" and says in its note that it is no 95% interval (the printout, the page and
the API's tables, the API's JSON and the datasheet alike). The ``holes`` world of
tests/fixtures/refine.py, half its agreed labels audited: every value has n_b of 0 or 1."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from assess.evaluation.interval_range import Interval
from assess.evaluation.interval_reports import (
    WHOLE_RANGE_NOTE,
    SampleSize,
    interval_json,
    sizes_text,
    whole_range,
)
from assess.refined.benchmark_zip import benchmark_datasheet
from assess.refined.datasheet import datasheet_render
from tests.fixtures.refine import refined_at_share

QUERY = "original=test&refined=test-dream"


def test_only_a_value_under_five_bearing_labels_is_marked():
    two = SampleSize(1, 1)
    assert sizes_text(Interval(0.5, 0.4, 0.6, 1, 4), two) == "(whole range; n = 2; n_b = 4)"
    assert sizes_text(Interval(0.5, 0.4, 0.6, 1, 0), two) == "(whole range; n = 2; n_b = 0)"
    assert sizes_text(Interval(0.5, 0.4, 0.6, 5, 5), two) == "(n = 2; n_b = 5)"
    # The LLM-only bootstrap has no sample behind it: no n_b, no mark.
    assert sizes_text(Interval(0.5, 0.4, 0.6, 0, None)) == ""
    assert interval_json(Interval(0.5, 0.4, 0.6, 1, 4), two)["whole_range"] is True
    assert interval_json(Interval(0.5, 0.4, 0.6, 5, 5), two)["whole_range"] is False
    assert not whole_range(Interval(0.5, 0.4, 0.6, 0, None))


def printout() -> str:
    out = io.StringIO()
    call_command(
        "rebenchmark", "holes", "--original", "test", "--refined", "test-dream", stdout=out
    )
    return out.getvalue()


@pytest.mark.django_db
def test_the_printout_marks_each_such_cell_and_says_why(refined):
    refined_at_share(refined, 0.5)
    text = printout()
    lines = text.splitlines()
    # The per-system table: alpha's P@10 (n_b = 1), then its pairs row (n_b = 1) and the
    # rank changes' Δ (n = 2 human labels, n_b = 1).
    [alpha] = [line for line in lines if line.startswith("alpha ") and "0.1000 [0.1000," in line]
    assert "0.1000 [0.1000, 0.1500] (whole range; n_b = 1)" in alpha
    [pair] = [line for line in lines if line.startswith("alpha") and " beta " in line]
    assert "-0.3378 [-0.4599, 0.0401] (whole range; n_b = 1)  no  " in pair
    [delta] = [line for line in lines if line.startswith("alpha ") and "+0.0625" in line]
    assert "(whole range; n = 2; n_b = 1)" in delta
    flat = " ".join(text.split())
    assert " ".join(WHOLE_RANGE_NOTE.split()) in flat
    assert (
        "'whole range': fewer than 5 human labels bear on the value (n_b < 5), so the "
        "bracket is every value the pairs without a human label allow, not a 95% interval" in flat
    )


@pytest.mark.django_db
def test_the_page_the_api_and_the_datasheet_mark_the_same_cells(refined, client_as, api_as):
    refined = refined_at_share(refined, 0.5)
    url = reverse("refined:rebenchmark", args=["holes"]) + "?" + QUERY
    html = client_as("researcher").get(url).content.decode()
    assert "0.1000 [0.1000, 0.1500] (whole range; n_b = 1)" in html
    assert "not a 95% interval" in html
    body = api_as("researcher").get("/api/v1/datasets/holes/refined/test-dream/rebenchmark")
    intervals = body.json()["intervals"]
    p10 = intervals["systems"]["alpha"]["P@10"]
    assert (p10["n_bearing"], p10["whole_range"]) == (1, True)
    assert [(p["n_bearing"], p["whole_range"]) for p in intervals["pairs"]] == [(1, True)]
    text = datasheet_render(sheet=benchmark_datasheet(refinement=refined.refined.refinement))
    assert "estimate 0.1000 [0.1000, 0.1500] (whole range; n = 2; n_b = 1)" in text
    assert (
        '"whole range": fewer than 5 human labels bear on the value (n_b < 5), so the bracket '
        "is every value the pairs without a human label allow, not a 95% interval"
    ) in text
