"""Simulated labels are marked SIMULATED on the pages that list or compare them: the dataset
page's qrel-set table and the list of datasets (a refined set holding them), the list of
jobs (a job of simulated debaters), the disagreements page (a simulated
consensus, a simulated annotator's label) and the job page's human-review panel, whose
agreement and audit compare them; real labels stay unmarked there.

The ``holes`` world of tests/fixtures/refine.py with simulated debaters and bob, whose audit
of (q2, d6) says 0 against the consensus 1, as the simulated annotator: the disagreements
page lists that pair, and the job's 3 agreed debate labels and 1 simulated judgment are
counted in the panel's line."""

import html

import pytest

from assess.models.simulated import SIMULATED_ANNOTATOR
from assess.refined.refine import qrels_refine
from debates.models import Debate
from tests.fixtures.refine import HOLES_SIMULATED_AGENT, simulated_world

pytestmark = pytest.mark.django_db

AGENT = HOLES_SIMULATED_AGENT
JOB_LINE = (
    "SIMULATED labels in this job so far (its agreed debates and stage-0 labels, and the "
    "simulated annotator's judgments of its review items): 3 debate labels from simulated "
    "debaters (backend simulated), 1 human label from the simulated annotator "
    "(simulate_annotators); for planning a study, never a benchmark."
)
DISAGREEMENTS_LINE = (
    "SIMULATED labels: 1 debate label from simulated debaters (backend simulated), 1 human "
    "label from the simulated annotator (simulate_annotators); for planning a study, never a "
    "benchmark."
)


@pytest.fixture
def simulated(refined):
    simulated_world(refined, annotator="bob")
    refined.refined.delete()
    refined.refined = qrels_refine(pool=refined.pool, name="test-dream").qrel_set
    return refined


def page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def test_the_dataset_page_marks_the_refined_set_of_simulated_labels(simulated, client_as):
    shown = page(client_as("researcher"), "/datasets/holes/")
    assert '<td class="id">test-dream <strong class="simulated">SIMULATED labels</strong></td>' in (
        shown
    )
    # The imported set has no provenance: never marked.
    assert '<td class="id">test</td>' in shown
    listed = page(client_as("researcher"), "/datasets/")
    assert 'test-dream (8, <strong class="simulated">SIMULATED labels</strong>)' in listed
    assert "test (4)" in listed
    jobs = page(client_as("researcher"), "/jobs/")
    assert (
        f'Job {simulated.job.pk}</a> <strong class="simulated">SIMULATED debaters</strong>' in jobs
    )


def test_the_disagreements_page_marks_the_simulated_consensus_and_label(simulated, client_as):
    shown = page(client_as("admin"), "/review/disagreements/")
    assert f'id="disagreements-simulated" role="note"><strong>{DISAGREEMENTS_LINE}' in shown
    row = shown[shown.index('<td class="id">d6</td>') :]
    row = row[: row.index("</tr>")]
    assert '<td>0 <strong class="simulated">SIMULATED</strong></td>' in row
    assert '<td>1 <strong class="simulated">SIMULATED</strong></td>' in row


def test_the_adjudication_page_marks_them_too(simulated, client_as):
    item = simulated.debate("q2", "d6").review
    shown = page(client_as("admin"), f"/review/items/{item.public_id}/")
    assert (
        '<tr><td>agents\' consensus</td><td>1 <strong class="simulated">SIMULATED</strong></td>'
    ) in shown
    assert (
        f'<tr><td>{SIMULATED_ANNOTATOR} <strong class="simulated">SIMULATED</strong></td>' in shown
    )


def test_a_stage0_label_is_named_so_and_never_called_simulated_debaters(simulated, client_as):
    # Stage 0's labels come from its judge, not from the (simulated) debaters.
    debate = simulated.debate("q2", "d6")
    Debate.objects.filter(pk=debate.pk).update(settled_by="stage0", consensus_round=0, stage0_p=0.9)
    shown = page(client_as("admin"), "/review/disagreements/")
    row = shown[shown.index('<td class="id">d6</td>') :]
    row = row[: row.index("</tr>")]
    assert "<td>annotator disagrees with stage 0's label</td>" in row
    assert '<td>1 <span class="muted">stage 0</span></td>' in row
    item = debate.review
    adjudication = page(client_as("admin"), f"/review/items/{item.public_id}/")
    assert (
        '<tr><td>stage 0 (no debate)</td><td>1</td><td class="muted">P(relevant) 0.900</td>'
    ) in adjudication


def test_the_job_pages_review_panel_says_its_labels_are_simulated(simulated, client_as, api_as):
    shown = page(client_as("researcher"), f"/jobs/{simulated.job.pk}/")
    assert f'<p class="warning" id="job-review-simulated" role="note"><strong>{JOB_LINE}' in shown
    assert (
        'Audit: agents agreeing on a wrong label <strong class="simulated">SIMULATED</strong>'
        in shown
    )
    review = api_as("researcher").get(f"/api/v1/jobs/{simulated.job.pk}/review").json()
    assert (review["simulated"], review["simulated_labels"]) == (
        True,
        {"debate": 3, "human": 1, "stage0": 0},
    )


def test_real_labels_stay_unmarked_on_those_pages(refined, client_as, api_as):
    assert "SIMULATED" not in page(client_as("researcher"), "/datasets/holes/")
    assert "SIMULATED" not in page(client_as("researcher"), "/datasets/")
    assert "SIMULATED" not in page(client_as("researcher"), "/jobs/")
    disagreements = page(client_as("admin"), "/review/disagreements/")
    assert '<td class="id">d6</td>' in disagreements and "SIMULATED" not in disagreements
    assert "SIMULATED" not in page(client_as("researcher"), f"/jobs/{refined.job.pk}/")
    review = api_as("researcher").get(f"/api/v1/jobs/{refined.job.pk}/review").json()
    assert (review["simulated"], review["simulated_labels"]) == (
        False,
        {"debate": 0, "human": 0, "stage0": 0},
    )
