"""Per job: Cohen's kappa and Krippendorff's alpha over pairs judged twice, human vs
consensus on audited pairs with the error estimate; disagreements go to the admin's
adjudication page, which shows the debate and every answer side by side, and the
adjudicated label wins."""

import uuid

import pytest

from assess.models import Adjudication
from assess.review.selectors import job_agreement, job_audit, review_final_labels
from assess.review.services import judgment_record, review_item_claim
from tests.fixtures.ui import html_tables

# The hand-worked pairs of test_agreement_kappa_and_alpha_match_hand_worked_examples.
PAIRS = [(1, 1), (0, 0), (1, 0), (1, 1)]


def _judge_all(users_and_labels):
    for user, label in users_and_labels:
        item = review_item_claim(annotator=user)
        judgment_record(item=item, annotator=user, label=label, client_id=uuid.uuid4())


@pytest.fixture
def judged_twice(make_review_job, annotators):
    review = make_review_job(escalated=4, judgments_per_pair=2)
    alice, bob = annotators(2)
    _judge_all([(alice, a) for a, _ in PAIRS])
    _judge_all([(bob, b) for _, b in PAIRS])
    return review


def test_kappa_and_alpha_of_a_job_come_from_its_pairs_judged_twice(judged_twice):
    result = job_agreement(job=judged_twice.job)
    assert (result.pairs, result.annotators, result.disagreements) == (4, 2, 1)
    assert result.kappa == pytest.approx(0.5)
    assert result.alpha == pytest.approx(8 / 15)


def test_the_job_page_shows_the_agreement(client_as, judged_twice):
    html = client_as("researcher").get(f"/jobs/{judged_twice.job.pk}/").content.decode()
    assert "<dt>Pairs judged more than once</dt><dd>4 by 2 annotators</dd>" in html
    assert "<dt>Cohen's kappa (ann1 vs ann2, 4 pairs judged by both)</dt><dd>0.500</dd>" in html
    assert "<dt>Krippendorff's alpha (nominal)</dt><dd>0.533</dd>" in html


def test_the_disagreement_is_adjudicated_and_the_adjudicated_label_wins(client_as, judged_twice):
    job = judged_twice.job
    split = judged_twice.escalated[2]
    before = review_final_labels(job=job)
    assert before == {
        judged_twice.escalated[0].pk: (1, "human"),
        judged_twice.escalated[1].pk: (0, "human"),
        judged_twice.escalated[3].pk: (1, "human"),
    }
    client = client_as("admin")
    listing = client.get("/review/disagreements/").content.decode()
    rows = html_tables(listing)[0]
    assert len(rows) == 2
    assert rows[1][4:] == ["annotators disagree", "1, 0", "none", "open"]

    item = split.review
    page = client.get(f"/review/items/{item.public_id}/").content.decode()
    answers = html_tables(page)[0]
    assert answers[1:] == [
        ["agents' consensus", "none (escalated)", "round –", ""],
        ["ann1", "1 (relevant)", "", "0.0"],
        ["ann2", "0 (not relevant)", "", "0.0"],
    ]
    assert page.count('class="round"') == 2  # the debate, side by side with the answers

    answer = client.post(f"/review/items/{item.public_id}/", {"label": "0", "note": "no dose info"})
    assert answer.status_code == 302
    decided = Adjudication.objects.get()
    assert (decided.item_id, decided.label, decided.note) == (item.pk, 0, "no dose info")
    assert review_final_labels(job=job)[split.pk] == (0, "adjudication")
    rows = html_tables(client.get("/review/disagreements/").content.decode())[0]
    assert rows[1][-1] == "0"


def test_audited_pairs_give_human_vs_consensus_agreement_and_the_error_estimate(
    make_review_job, annotators, client_as
):
    review = make_review_job(escalated=0, agreed=4, audit_share=1.0, agreed_label=1)
    (alice,) = annotators(1)
    _judge_all([(alice, 1), (alice, 1), (alice, 0), (alice, 1)])
    audit = job_audit(job=review.job)
    assert (audit.sampled, audit.judged) == (4, 4)
    assert audit.agreement == pytest.approx(0.75)
    assert (audit.error.successes, audit.error.n) == (1, 4)
    assert audit.error.estimate == pytest.approx(0.25)
    # Wilson, z = 1.96, n = 4, p = 1/4: (0.0456, 0.6994).
    assert audit.error.low == pytest.approx(0.0456, abs=5e-5)
    assert audit.error.high == pytest.approx(0.6994, abs=5e-5)
    # Consensus 1 everywhere: p_o = 3/4, p_e = 3/4 * 1 + 1/4 * 0 = 3/4, so kappa = 0.
    assert audit.kappa == pytest.approx(0.0)
    html = client_as("admin").get(f"/jobs/{review.job.pk}/").content.decode()
    assert "Estimated error rate of consensus labels: <strong>0.250</strong>" in html
    assert "(1 of 4 audited pairs), 95% confidence interval 0.046–0.699 (Wilson)" in html
