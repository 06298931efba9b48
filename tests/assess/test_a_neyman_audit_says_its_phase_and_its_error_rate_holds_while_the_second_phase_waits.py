"""A Neyman audit's second phase raises the error-prone unit's probability, its pilot pairs'
included, and draws more pairs there. Two things went wrong while those waited for people:

- the audit's error rate fell with no new judgment: each judged pilot pair weighed 1 / its
  raised probability, so the error-prone unit counted as smaller than it is. A drawn audit
  not judged yet is now missing at random within its stratum's audits of the same
  probability (assess.review.agreement.audit_error_rate), so the unit's judged pairs stand
  for all its drawn ones;
- the job page, the API's ``audit_waiting`` and ``debate_job ID progress`` said "The Neyman
  audit waits for 13 of its 21 audit items to be judged", as if a later allocation waited.
  Nothing follows the second phase: the words now say which phase the audit is in, and the
  API's job detail gives it (``audit_phase``).

The job: 40 debates agreed on 1 in round 1, 40 on 0 in round 2, no ranks (one unit per
stratum), audit share 0.2. The pilot draws 3 ones and 5 zeros at 0.1; people say 0
everywhere, so the 3 ones are wrong. The second phase raises the ones to p1 = 0.2134 (10
drawn) and the zeros to p0 = 0.1866 (11 drawn). With phase 2 waiting, the ones' 3 judged
pairs stand for their 10 drawn: (10 / p1) / (10 / p1 + 11 / p0) = 0.443, what the estimate is
once phase 2 is judged too (all its ones wrong, its zeros right); the final probabilities
alone gave (3 / p1) / (3 / p1 + 5 / p0) = 0.344."""

import io

import pytest
from django.core.management import call_command
from django.utils.html import escape

from assess.models import Judgment, ReviewItem
from assess.review.audit import audit_phase, audit_pilot_waiting
from assess.review.selectors import job_audit, job_review_notes
from assess.review.services import review_items_sync
from debates.models import DebateJob
from tests.fixtures.jobs import build_two_strata_job

# The pilot's draws are worked by hand at half the share (tests/fixtures/jobs.py).
pytestmark = pytest.mark.usefixtures("pilot_at_half_the_share")

ONES, ZEROS = "label 1, round 1, below 10", "label 0, round 2, below 10"
SECOND = (
    "The Neyman audit's second phase is drawn, and nothing more will be drawn unless the "
    "share is raised; 13 of its 21 audit items wait for judgments: 13 can be given to an "
    "annotator"
)


def _two_strata_job(make_finished_job) -> DebateJob:
    """The job of the module docstring; job and pair ids are fixed, so are the draws."""
    return build_two_strata_job(
        make_finished_job, slug="phases", audit_share=0.2, audit_allocation="neyman"
    )


def _judge_all_zero(annotator):
    for item in ReviewItem.objects.filter(kind=ReviewItem.Kind.AUDIT, judgments_done=0):
        Judgment.objects.create(
            item=item, annotator=annotator, label=0, client_id=f"{item.pk:032x}"
        )
        ReviewItem.objects.filter(pk=item.pk).update(judgments_done=1)


def _progress(job) -> str:
    out = io.StringIO()
    call_command("debate_job", str(job.pk), "progress", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_error_rate_holds_while_phase_2_waits_and_the_words_say_the_phase(
    make_finished_job, annotators, api_as, client_as
):
    job = _two_strata_job(make_finished_job)
    (annotator,) = annotators(1)
    review_items_sync(job=job)
    assert audit_phase(job=job) == "pilot"
    assert audit_pilot_waiting(job=job) == (
        "The Neyman audit waits for 8 of its 8 audit items to be judged: 8 can be given to an "
        "annotator"
    )

    _judge_all_zero(annotator)
    assert job_audit(job=job).error.estimate == pytest.approx(3 / 8)
    assert audit_phase(job=job) == "pilot"  # in, but the sync has not drawn phase 2 yet
    assert audit_pilot_waiting(job=job).startswith("The Neyman audit's pilot is in; ")

    assert review_items_sync(job=job) == 13  # the second phase
    job.refresh_from_db()
    p1, p0 = job.audit_inclusion[ONES], job.audit_inclusion[ZEROS]
    assert (round(p1, 4), round(p0, 4)) == (0.2134, 0.1866)
    waiting = job_audit(job=job).error
    assert (waiting.successes, waiting.n) == (3, 8)
    assert waiting.estimate == pytest.approx((10 / p1) / (10 / p1 + 11 / p0))
    assert round(waiting.estimate, 3) == 0.443  # not 0.344, the pilot pairs at 1 / p alone
    assert audit_phase(job=job) == "second"
    assert audit_pilot_waiting(job=job) == SECOND
    assert f"audit: {SECOND}" in job_review_notes(job)
    assert f"audit: {SECOND}" in _progress(job)
    detail = api_as("researcher").get(f"/api/v1/jobs/{job.pk}").json()
    assert (detail["audit_phase"], detail["audit_waiting"]) == ("second", SECOND)
    review = api_as("researcher").get(f"/api/v1/jobs/{job.pk}/review").json()
    assert review["audit"]["error"]["estimate"] == pytest.approx(waiting.estimate)
    page = client_as("researcher").get(f"/jobs/{job.pk}/").content.decode()
    assert f'<p id="job-audit-waiting">{escape(SECOND)}.</p>' in page

    _judge_all_zero(annotator)
    judged = job_audit(job=job).error
    assert (judged.successes, judged.n) == (10, 21)
    assert judged.estimate == pytest.approx(waiting.estimate)
    assert audit_phase(job=job) == "second"
    assert audit_pilot_waiting(job=job) == ""
    assert review_items_sync(job=job) == 0  # nothing more is drawn
    detail = api_as("researcher").get(f"/api/v1/jobs/{job.pk}").json()
    assert (detail["audit_phase"], detail["audit_waiting"]) == ("second", "")


@pytest.mark.django_db
def test_a_proportional_audit_has_no_phase(make_finished_job, api_as):
    job = make_finished_job(slug="plain", pk=7201, audit_share=0.2)
    assert (audit_phase(job=job), audit_pilot_waiting(job=job)) == ("", "")
    detail = api_as("researcher").get(f"/api/v1/jobs/{job.pk}").json()
    assert (detail["audit_phase"], detail["audit_waiting"]) == ("", "")
