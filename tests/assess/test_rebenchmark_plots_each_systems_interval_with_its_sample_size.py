"""The re-benchmark page of a refined set draws, with its other plots, each system's nDCG@10
on the original qrels and on the refined qrels with its 95% interval, every interval with
its sample size ("n = N human labels") beside it and the caveat under it; when the human
sample cannot support intervals, the words of what is missing stand in the plot's place (the
``holes`` world of tests/fixtures/refine.py)."""

import re

import pytest
from django.urls import reverse

from assess.evaluation.intervals import Interval
from assess.evaluation.plots import intervals_svg
from assess.evaluation.rebench import rebench_compute
from assess.evaluation.refined_intervals import COVERAGE_CAVEAT, report_intervals
from tests.fixtures.refine import refined_at_share

QUERY = "original=test&refined=test-dream"


def test_the_svg_has_a_row_and_a_sample_size_per_system_and_the_caveat():
    svg = intervals_svg(
        {"bm25": 0.61, "dense": 0.66},
        {"bm25": Interval(0.62, 0.58, 0.66, 40), "dense": Interval(0.70, 0.64, 0.73, 41)},
        caveat="Read them as approximate.",
    )
    assert svg.startswith("<?xml") and "<script" not in svg
    # Text stays <text> (svg.fonttype none): names, sample sizes and the caveat are in it.
    for text in ("bm25", "dense", "n = 40 human labels", "n = 41 human labels"):
        assert svg.count(text) == 1, text
    assert "Read them as approximate." in svg
    assert "original qrels (all human: no interval)" in svg
    with pytest.raises(ValueError, match="at least one system"):
        intervals_svg({}, {})


@pytest.mark.django_db
def test_the_page_shows_the_plot_and_the_file_has_each_systems_interval_and_n(refined, client_as):
    refined = refined_at_share(refined, 0.5)
    client = client_as("researcher")
    page = client.get(reverse("refined:rebenchmark", args=["holes"]) + "?" + QUERY)
    html = page.content.decode()
    assert page.status_code == 200
    plot_url = re.search(r'<figure id="plot-intervals">\s*<img src="([^"]+)"', html).group(1)
    assert "Each refined interval is drawn with its sample size (n human labels)." in html
    assert COVERAGE_CAVEAT.split(":")[0] in html

    shown = client.get(plot_url.replace("&amp;", "&"))
    assert shown.status_code == 200 and shown["Content-Type"] == "image/svg+xml"
    svg = shown.content.decode()
    report = rebench_compute(
        dataset=refined.dataset, original=refined.test, refined=refined.refined
    )
    found = report_intervals(report=report, original=refined.test, refined=refined.refined)
    # One row (a tick label) per system, and beside each interval the human labels behind it:
    # the one audited pair of the holes world and its one escalated pair.
    sizes = {s: by["nDCG@10"].n_human for s, by in found.ppi.by_system.items()}
    assert sizes == {"alpha": 1, "beta": 1}  # the estimator's own sample: the audited pair
    assert sorted(re.findall(r">(alpha|beta)</text>", svg)) == ["alpha", "beta"]
    assert svg.count("n = 2 human labels (1 audited, 1 escalated)") == 2


@pytest.mark.django_db
def test_without_an_audit_the_words_of_the_error_replace_the_plot(refined, client_as):
    refined = refined_at_share(refined, 0.0)
    client = client_as("researcher")
    html = client.get(reverse("refined:rebenchmark", args=["holes"]) + "?" + QUERY).content
    html = html.decode()
    error = re.search(r'<p class="errors" id="plot-intervals-error">(.*?)</p>', html, re.S)
    assert "intervals need an audit share &gt; 0" in error.group(1)
    assert 'id="plot-intervals"' not in html and "intervals.svg" not in html
    plot = reverse("refined:rebenchmark_plot", args=["holes", "intervals"]) + "?" + QUERY
    assert client.get(plot).status_code == 404
