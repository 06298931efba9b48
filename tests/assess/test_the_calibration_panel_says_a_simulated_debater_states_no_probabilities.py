"""A simulated debater answers from a reference qrels file: it has no model whose token
probabilities a server could send, so the calibration panel (and the API's calibration) says
that, not "the server sent no logprobs", which stays the words for a real backend. When the
audited pairs' human labels are the simulated annotator's, the panel says they are simulated.

The ``holes`` world of tests/fixtures/refine.py: bob's audit of (q2, d6) is the one
human-labelled pair of the job, and its stored turns carry no label probability."""

import html

import pytest
from django.contrib.auth import get_user_model

from assess.models.simulated import SIMULATED_ANNOTATOR
from assess.review.calibration import job_calibration
from debates.models import DebateJob
from tests.fixtures.refine import HOLES_SIMULATED_AGENT, simulated_world

pytestmark = pytest.mark.django_db

AGENT = HOLES_SIMULATED_AGENT
SIMULATED = (
    "a SIMULATED debater (backend simulated) answers from a qrels file and states no "
    "probabilities: no P(label) to calibrate"
)


def test_a_simulated_debater_is_said_to_state_no_probabilities(refined, client_as, api_as):
    simulated_world(refined)
    job = DebateJob.objects.get(pk=refined.job.pk)
    agents = job_calibration(job=job).agents
    assert [(a.agent, a.labelled, a.figures, a.missing) for a in agents] == [
        ("A", 1, None, SIMULATED),
        ("B", 1, None, SIMULATED),
    ]
    shown = html.unescape(client_as("researcher").get(f"/jobs/{job.pk}/").content.decode())
    assert f'<td colspan="4" class="muted">{SIMULATED}</td>' in shown
    assert "logprobs for the labels" not in shown
    body = api_as("researcher").get(f"/api/v1/jobs/{job.pk}").json()
    assert [a["missing"] for a in body["calibration"]["agents"]] == [SIMULATED, SIMULATED]


def test_a_real_backend_without_logprobs_keeps_its_words(refined):
    agents = job_calibration(job=refined.job).agents
    assert [a.missing for a in agents] == [
        "no P(label): the server sent no logprobs for the labels of the 1 human-labelled pair"
    ] * 2


def test_the_panel_says_when_its_human_labels_are_simulated(refined, client_as):
    url = f"/jobs/{refined.job.pk}/"
    assert "job-calibration-simulated" not in client_as("researcher").get(url).content.decode()
    get_user_model().objects.filter(username="bob").update(username=SIMULATED_ANNOTATOR)
    shown = html.unescape(client_as("researcher").get(url).content.decode())
    assert (
        '<p class="warning" id="job-calibration-simulated" role="note"><strong>The human labels '
        "of 1 audited pair here are SIMULATED (the simulated annotator's, simulate_annotators)"
    ) in shown
