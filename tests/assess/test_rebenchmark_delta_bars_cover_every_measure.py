"""The re-benchmark's delta plot has one panel per measure (the paper nDCG@10 variant
included), each measure's bars also come as a file of their own, and the page links every
one of them for download.

Holes world (tests/assess/test_rebenchmark_command_prints_the_hand_worked_tables.py): alpha's mean
R@10 falls by 0.25 (q2: 1 → 1/2) and its nDCG@10 rises by 0.0625.
"""

import pytest
from django.urls import reverse

from assess.evaluation.metrics import DEFAULT_MEASURES, PAPER_NDCG10
from assess.evaluation.rebench import rebench_compute
from assess.evaluation.tables import mean_deltas
from tests.fixtures.ui import html_elements

QUERY = {"original": "test", "refined": "test-dream"}
MEASURES = [*DEFAULT_MEASURES, PAPER_NDCG10]


def plot(client, **params):
    return client.get(reverse("refined:rebenchmark_plot", args=["holes", "deltas"]), params)


@pytest.mark.django_db
def test_the_mean_deltas_are_hand_worked(refined):
    report = rebench_compute(
        dataset=refined.dataset, original=refined.test, refined=refined.refined
    )
    deltas = mean_deltas(report.result)
    assert list(deltas) == MEASURES
    assert deltas["R@10"] == pytest.approx({"alpha": -0.25, "beta": -0.25})
    assert deltas["nDCG@10"]["alpha"] == pytest.approx(0.0625, abs=1e-4)
    assert deltas[PAPER_NDCG10] == pytest.approx(deltas["nDCG@10"])


@pytest.mark.django_db
def test_the_delta_plot_has_a_panel_per_measure(refined, client_as):
    svg = plot(client_as("researcher"), **QUERY).content.decode()
    for measure in MEASURES:
        assert f"Δ {measure}" in svg, measure
    assert "Change per system and measure (refined − original)" in svg


@pytest.mark.django_db
def test_one_measure_is_a_file_of_its_own_and_an_unknown_one_is_not_found(refined, client_as):
    client = client_as("researcher")
    single = plot(client, measure="R@10", download="1", **QUERY)
    assert single.status_code == 200
    assert single["Content-Disposition"] == (
        'attachment; filename="holes-test-dream-deltas-r10.svg"'
    )
    svg = single.content.decode()
    assert "Change in R@10 per system" in svg and "Δ nDCG@10" not in svg
    assert plot(client, measure="MAP", **QUERY).status_code == 404


@pytest.mark.django_db
def test_the_page_links_a_download_for_every_measure(refined, client_as):
    url = reverse("refined:rebenchmark", args=["holes"])
    html = client_as("researcher").get(url, QUERY).content.decode()
    elements, _ = html_elements(html)
    links = [a["href"] for tag, a in elements if tag == "a" and "measure=" in a.get("href", "")]
    assert len(links) == len(MEASURES)
    assert all(link.endswith("&download=1") for link in links)
    assert "measure=R%4010" in links[1]
