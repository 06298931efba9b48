"""A refined set or re-benchmark that rests on simulated labels says so wherever it is shown:
a "SIMULATED labels: ..." line on the re-benchmark page, the refined set's page, the job's
budget panel and the ``rebenchmark`` and ``refine`` printouts; ``simulated`` and
``simulated_labels`` in the API's JSON; keys of their own in ``by_source``. The provenance
marks them as the datasheet reads them: agent models named ``simulated:...`` (backend
``simulated``) and the ``simulated-annotator`` among a human label's annotators.

The ``holes`` world of tests/fixtures/refine.py with simulated debaters and its escalated pair
judged by the simulated annotator: (q1, d3) and (q1, d5) keep their simulated consensus (2
debate labels), (q2, d3) is the simulated annotator's (1 human label), (q2, d6) is bob's audit
(a real human label)."""

import html
import io

import pytest
from django.core.management import call_command

from tests.fixtures.refine import HOLES_SIMULATED_AGENT, refined_at_share, simulated_world

pytestmark = pytest.mark.django_db

AGENT = HOLES_SIMULATED_AGENT
LINE = (
    "SIMULATED labels: 2 debate labels from simulated debaters (backend simulated), 1 human "
    "label from the simulated annotator (simulate_annotators); for planning a study, never a "
    "benchmark."
)
COUNTS = {"debate": 2, "human": 1, "stage0": 0}
SOURCES = {"consensus (simulated)": 2, "human": 1, "human (simulated)": 1}


@pytest.fixture
def simulated(refined):
    simulated_world(refined, annotator="alice")
    return refined_at_share(refined, 0.5)


def page(client, url: str) -> str:
    return html.unescape(client.get(url).content.decode())


def test_the_printouts_open_with_the_line(simulated):
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "test-dream", "--no-intervals", stdout=out)
    assert out.getvalue().splitlines()[1] == LINE
    out = io.StringIO()
    call_command("refine", "holes/p", "--name", "test-dream-again", stdout=out)
    assert LINE in out.getvalue().splitlines()


def test_the_pages_carry_the_line_and_the_sources_apart(simulated, client_as):
    client = client_as("researcher")
    rebench = page(client, "/datasets/holes/rebenchmark/?original=test&refined=test-dream")
    assert f'<p class="warning" id="rebench-simulated" role="note"><strong>{LINE}' in rebench
    detail = page(client, "/datasets/holes/refined/test-dream/")
    assert f"<strong>{LINE}</strong>" in detail
    for source, n in SOURCES.items():
        assert f'<tr><td>{source}</td><td class="num">{n}</td></tr>' in detail
    # The job page's budget panel says its count is the refined set's (the review panel
    # beside it counts the job's own labels).
    refined_line = LINE.replace(
        "SIMULATED labels:", "SIMULATED labels in the final labels of the refined set test-dream:"
    )
    assert refined_line in page(client, f"/jobs/{simulated.job.pk}/")


def test_the_rebenchmark_says_the_line_once(simulated, client_as):
    # The intervals' note under their table said it again, on the page and in the printout.
    rebench = page(
        client_as("researcher"), "/datasets/holes/rebenchmark/?original=test&refined=test-dream"
    )
    assert rebench.count("SIMULATED labels: ") == 1
    out = io.StringIO()
    call_command("rebenchmark", "holes", "--refined", "test-dream", "--no-per-query", stdout=out)
    assert out.getvalue().count("SIMULATED labels: ") == 1
    assert out.getvalue().splitlines()[1] == LINE


def test_the_api_json_says_simulated_with_counts(simulated, api_as):
    client = api_as("researcher")
    body = client.get("/api/v1/datasets/holes/refined/test-dream/rebenchmark").json()
    assert (body["simulated"], body["simulated_labels"]) == (True, COUNTS)
    assert (body["intervals"]["simulated"], body["intervals"]["simulated_labels"]) == (
        True,
        COUNTS,
    )
    (item,) = client.get("/api/v1/datasets/holes/refined").json()["items"]
    assert (item["simulated"], item["simulated_labels"]) == (True, COUNTS)
    assert item["counts"]["by_source"] == SOURCES
    budget = client.get(f"/api/v1/jobs/{simulated.job.pk}").json()["budget"]
    assert (budget["simulated"], budget["simulated_labels"]) == (True, COUNTS)


def test_real_labels_are_not_marked(refined, api_as, client_as):
    body = api_as("researcher").get("/api/v1/datasets/holes/refined/test-dream/rebenchmark")
    assert (body.json()["simulated"], body.json()["simulated_labels"]) == (
        False,
        {"debate": 0, "human": 0, "stage0": 0},
    )
    (item,) = api_as("researcher").get("/api/v1/datasets/holes/refined").json()["items"]
    assert item["counts"]["by_source"] == {"consensus": 2, "human": 2}
    shown = page(client_as("researcher"), "/datasets/holes/refined/test-dream/")
    assert "SIMULATED" not in shown
    assert "SIMULATED" not in page(client_as("researcher"), "/datasets/holes/refined/")
    plot = "/datasets/holes/rebenchmark/ranks.svg?original=test&refined=test-dream"
    assert "SIMULATED" not in page(client_as("researcher"), plot)


@pytest.mark.parametrize("plot", ["ranks", "deltas", "holes", "intervals"])
def test_every_downloadable_plot_carries_the_line(simulated, client_as, plot):
    query = "original=test&refined=test-dream"
    svg = page(client_as("researcher"), f"/datasets/holes/rebenchmark/{plot}.svg?{query}")
    assert "SIMULATED labels: 2 debate labels from simulated debaters" in svg


def test_the_list_of_refined_sets_marks_the_simulated_one(simulated, refined, client_as):
    listed = page(client_as("researcher"), "/datasets/holes/refined/")
    assert "test-dream</a> SIMULATED labels</td>" in listed.replace(
        '<strong class="simulated">', ""
    ).replace("</strong>", "")


def test_the_datasheets_costs_say_the_simulated_calls_cost_nothing(simulated, refined):
    from assess.refined.benchmark_zip import benchmark_datasheet
    from assess.refined.datasheet import datasheet_render

    said = (
        "The simulated backend's calls and tokens are counted as a model's would be, to plan "
        "a study's cost; it calls no model and spends nothing."
    )
    text = datasheet_render(sheet=benchmark_datasheet(refinement=simulated.refined.refinement))
    assert said in " ".join(text.split())
