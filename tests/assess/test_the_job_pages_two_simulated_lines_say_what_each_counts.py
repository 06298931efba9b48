"""The job page shows two "SIMULATED labels" lines with different counts: the review panel's
counts the job's own labels so far (its agreed debates and the simulated annotator's
judgments of its items), the label budget's counts the final labels of the refined set it
reads. Each says which it counts, so the two figures never look like one contradicting the
other; ``debate_job ID progress`` says the job's the same way.

The ``holes`` world of tests/fixtures/refine.py with simulated debaters and bob (who audited
(q2, d6)) as the simulated annotator: 3 agreed debates and 1 simulated judgment in the job;
in the refined set 2 simulated consensus labels ((q2, d6) is bob's human label) and 1 human
label of the simulated annotator."""

import html

import pytest

from assess.review.selectors import job_review_notes
from debates.models import DebateJob
from tests.fixtures.refine import HOLES_SIMULATED_AGENT, refined_at_share, simulated_world

pytestmark = pytest.mark.django_db

AGENT = HOLES_SIMULATED_AGENT
JOB = (
    "SIMULATED labels in this job so far (its agreed debates and stage-0 labels, and the "
    "simulated annotator's judgments of its review items): 3 debate labels from simulated "
    "debaters (backend simulated), 1 human label from the simulated annotator "
    "(simulate_annotators); for planning a study, never a benchmark."
)
REFINED = (
    "SIMULATED labels in the final labels of the refined set test-dream: 2 debate labels "
    "from simulated debaters (backend simulated), 1 human label from the simulated annotator "
    "(simulate_annotators); for planning a study, never a benchmark."
)


@pytest.fixture
def simulated(refined):
    simulated_world(refined, annotator="bob")
    return refined_at_share(refined, 0.5)


def test_each_line_says_what_it_counts(simulated, client_as):
    page = html.unescape(client_as("researcher").get(f"/jobs/{simulated.job.pk}/").content.decode())
    assert f'id="job-review-simulated" role="note"><strong>{JOB}</strong>' in page
    assert f'id="job-label-plan-simulated" role="note"><strong>{REFINED}</strong>' in page


def test_the_progress_notes_say_the_jobs_count_is_the_jobs(simulated):
    assert job_review_notes(DebateJob.objects.get(pk=simulated.job.pk))[0] == JOB
