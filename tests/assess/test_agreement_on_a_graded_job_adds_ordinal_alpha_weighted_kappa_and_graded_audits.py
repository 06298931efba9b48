"""On a graded job (G = 2) the job page puts the ordinal figures next to the nominal ones,
humans' grades combine by median, and audits compare grades.

Five escalated pairs judged by ann1 and ann2 with the grades of
tests/assess/test_agreement_ordinal_alpha_and_quadratic_kappa_match_hand_worked_values.py:
(0,0), (1,2), (2,2), (1,1), (0,1): ordinal alpha 0.7, nominal alpha 5/11 = 0.455,
quadratic weighted kappa 0.6875, Cohen's kappa (nominal) p_o = 3/5, p_e = (2*1 + 2*2 +
1*2) / 25 = 8/25, kappa = (15/25 - 8/25) / (17/25) = 7/17 = 0.412.

Audit: four pairs agreed on grade 2, humans say 2, 1, 0, 2: two grades differ (error
2/4), one is on the other side of relevance (grade 0: 1/4).
"""

import uuid

import pytest

from assess.review.selectors import job_agreement, job_audit, review_final_labels
from assess.review.services import judgment_record, review_item_claim
from debates.models import DebateJob

PAIRS = [(0, 0), (1, 2), (2, 2), (1, 1), (0, 1)]


def _judge_all(users_and_labels):
    for user, label in users_and_labels:
        item = review_item_claim(annotator=user)
        judgment_record(item=item, annotator=user, label=label, client_id=uuid.uuid4())


def _graded(job):
    DebateJob.objects.filter(pk=job.pk).update(scale="graded", max_grade=2)
    job.refresh_from_db()
    return job


@pytest.fixture
def graded_twice(make_review_job, annotators):
    review = make_review_job(escalated=5, judgments_per_pair=2)
    _graded(review.job)
    alice, bob = annotators(2)
    _judge_all([(alice, a) for a, _ in PAIRS])
    _judge_all([(bob, b) for _, b in PAIRS])
    return review


def test_the_ordinal_figures_come_next_to_the_nominal_ones(graded_twice):
    result = job_agreement(job=graded_twice.job)
    assert (result.graded, result.pairs, result.disagreements) == (True, 5, 2)
    assert result.alpha == pytest.approx(5 / 11)
    assert result.alpha_ordinal == pytest.approx(0.7)
    assert result.kappa == pytest.approx(7 / 17)
    assert result.kappa_weighted == pytest.approx(0.6875)


def test_the_job_page_shows_them(client_as, graded_twice):
    html = client_as("researcher").get(f"/jobs/{graded_twice.job.pk}/").content.decode()
    assert "<dt>Krippendorff's alpha (nominal)</dt><dd>0.455</dd>" in html
    assert '<dd id="job-alpha-ordinal">0.700</dd>' in html
    assert '<dd id="job-kappa-weighted">0.688</dd>' in html


def test_two_humans_one_grade_apart_wait_for_an_adjudication(graded_twice):
    labels = review_final_labels(job=graded_twice.job)
    debates = graded_twice.escalated
    # (1, 2) and (0, 1) are ties; the others agree.
    assert labels == {
        debates[0].pk: (0, "human"),
        debates[2].pk: (2, "human"),
        debates[3].pk: (1, "human"),
    }


def test_audits_compare_grades(make_review_job, annotators):
    review = make_review_job(escalated=0, agreed=4, audit_share=1.0, agreed_label=2)
    job = _graded(review.job)
    (alice,) = annotators(1)
    _judge_all([(alice, 2), (alice, 1), (alice, 0), (alice, 2)])
    audit = job_audit(job=job)
    assert (audit.graded, audit.judged) == (True, 4)
    assert (audit.error.successes, audit.error.n) == (2, 4)
    assert (audit.side_error.successes, audit.side_error.n) == (1, 4)
    assert audit.agreement == pytest.approx(0.5)
