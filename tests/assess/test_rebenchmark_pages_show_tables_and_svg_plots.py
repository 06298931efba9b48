"""The re-benchmark page shows the same tables as the command, the per-query changes in a
collapsible section, and its plots (three, and the intervals for a refined set) as <img> of
SVG files that can be downloaded."""

import pytest
from django.urls import reverse

from assess.evaluation.rebench import rebench_compute
from assess.evaluation.refined_intervals import interval_tables, rebench_intervals
from assess.evaluation.tables import rebench_tables
from tests.fixtures.ui import html_elements, html_tables

QUERY = "original=test&refined=test-dream"


@pytest.mark.django_db
def test_the_page_tables_are_the_command_tables(refined, client_as):
    url = reverse("refined:rebenchmark", args=["holes"]) + "?" + QUERY
    response = client_as("researcher").get(url)
    assert response.status_code == 200
    html = response.content.decode()
    report = rebench_compute(
        dataset=refined.dataset, original=refined.test, refined=refined.refined
    )
    found = rebench_intervals(
        original=refined.test,
        refined=refined.refined,
        runs=refined.runs,
        with_tau=True,
    )
    # The rank changes carry each nDCG@10 change's interval, from the same intervals.
    tables = rebench_tables(report.result, deltas=found.deltas())
    # The ranking agreement (last of the command's tables) follows the three main tables,
    # then the intervals; the per-query changes come last.
    shown = [*tables[:3], tables[4], *interval_tables(found), tables[3]]
    expected = [[list(t.header), *map(list, t.rows)] for t in shown]
    assert html_tables(html) == expected
    assert "Intervals (95%) on the refined qrels, prediction-powered" in html
    assert (
        "<details>" in html
        and "Per-query changes (2 queries changed, 4 (system, query) rows)" in html
    )
    assert "DREAM paper variant" in html
    elements, inline_scripts = html_elements(html)
    assert inline_scripts == [] and all("style" not in a for _, a in elements)
    images = [a["src"] for tag, a in elements if tag == "img"]
    assert [src.split("?")[0].rsplit("/", 1)[-1] for src in images] == [
        "ranks.svg",
        "deltas.svg",
        "holes.svg",
        "intervals.svg",  # a refined set's: its intervals drawn with the other plots
    ]
    assert "<svg" not in html  # plots are files, never inlined


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("plot", "text"),
    [
        ("ranks", "1. alpha"),
        ("deltas", "beta"),
        ("holes", "2 queries, 2 holes"),
        # The 1 audited label and the 1 escalated pair's label behind each interval.
        ("intervals", "n = 2 human labels (1 audited, 1 escalated)"),
    ],
)
def test_each_plot_is_an_svg_file_with_a_download(refined, client_as, plot, text):
    client = client_as("admin")
    url = reverse("refined:rebenchmark_plot", args=["holes", plot]) + "?" + QUERY
    shown = client.get(url)
    assert shown.status_code == 200
    assert shown["Content-Type"] == "image/svg+xml"
    assert shown["Content-Security-Policy"] == "default-src 'none'; style-src 'unsafe-inline'"
    svg = shown.content.decode()
    assert svg.startswith("<?xml") and "<svg" in svg and "<script" not in svg
    assert text in svg
    assert shown["Content-Disposition"] == f'inline; filename="holes-test-dream-{plot}.svg"'
    saved = client.get(url + "&download=1")
    assert saved["Content-Disposition"] == f'attachment; filename="holes-test-dream-{plot}.svg"'
    assert saved.content == shown.content


@pytest.mark.django_db
def test_an_unknown_qrel_set_is_reported_on_the_page(refined, client_as):
    url = reverse("refined:rebenchmark", args=["holes"]) + "?original=test&refined=nope"
    response = client_as("researcher").get(url)
    assert response.status_code == 400
    assert "No qrel set &#x27;nope&#x27; in holes." in response.content.decode()
