"""Cohen's kappa (Cohen 1960) compares two fixed annotators: alice's label against bob's on
every pair both judged, whoever judged first. Each pair of annotators gets its own kappa
over the pairs they share; the job's headline is the pair sharing the most.

Hand-worked (the docstring of assess.review.selectors.job_agreement): alice 1, 1, 1, 0 and bob
1, 0, 0, 0 on pairs 1-4, bob judging first on pairs 3 and 4. p_o = 2/4; alice says 1 on 3/4
of them, bob on 1/4, so p_e = 3/4 * 1/4 + 1/4 * 3/4 = 0.375 and
kappa = (0.5 - 0.375) / (1 - 0.375) = 0.2. (First vs second judgment would be 1, 1, 0, 0
against 1, 0, 1, 0: kappa 0.)
Krippendorff's alpha (nominal) of the same labels: 8 values, four 1s and four 0s; pairs 2
and 3 disagree, D_o = 4/8, D_e = 2 * 4 * 4 / (8 * 7) = 4/7, alpha = 1 - (1/2) / (4/7) = 1/8.
"""

import uuid

import pytest

from assess.models import ReviewItem
from assess.review.selectors import PairKappa, job_agreement
from assess.review.services import judgment_record
from tests.fixtures.ui import html_tables


def _judge(items, plan):
    """``plan``: (annotator, item index, label) in the order the judgments are saved."""
    for user, index, label in plan:
        judgment_record(item=items[index], annotator=user, label=label, client_id=uuid.uuid4())


def _alice_and_bob(alice, bob):
    # Alice first on pairs 1-2, bob first on pairs 3-4.
    return [
        (alice, 0, 1),
        (alice, 1, 1),
        (bob, 2, 0),
        (bob, 3, 0),
        (bob, 0, 1),
        (bob, 1, 0),
        (alice, 2, 1),
        (alice, 3, 0),
    ]


def test_kappa_compares_alice_with_bob_whoever_judged_first(make_review_job, annotators):
    review = make_review_job(escalated=4, judgments_per_pair=2)
    alice, bob = annotators(2)
    items = list(ReviewItem.objects.order_by("pk"))
    _judge(items, _alice_and_bob(alice, bob))
    result = job_agreement(job=review.job)
    assert (result.pairs, result.annotators, result.disagreements) == (4, 2, 2)
    assert result.kappa == pytest.approx(0.2)
    assert result.kappa_pair == PairKappa("ann1", "ann2", 4, pytest.approx(0.2))
    assert result.pair_kappas == [result.kappa_pair]
    assert result.alpha == pytest.approx(1 / 8)


def test_each_pair_of_annotators_gets_its_kappa_and_the_page_lists_them(
    make_review_job, annotators, client_as
):
    review = make_review_job(escalated=6, judgments_per_pair=2)
    alice, bob, carol = annotators(3)
    items = list(ReviewItem.objects.order_by("pk"))
    # Alice and carol agree on pairs 5 and 6: p_o = 1, p_e = 1/2 * 1/2 + 1/2 * 1/2, kappa 1.
    _judge(items, _alice_and_bob(alice, bob) + [(carol, 4, 1), (alice, 4, 1), (alice, 5, 0)])
    _judge(items, [(carol, 5, 0)])
    result = job_agreement(job=review.job)
    assert result.pair_kappas == [
        PairKappa("ann1", "ann2", 4, pytest.approx(0.2)),
        PairKappa("ann1", "ann3", 2, pytest.approx(1.0)),
    ]
    assert (result.pairs, result.annotators, result.kappa) == (6, 3, pytest.approx(0.2))

    html = client_as("researcher").get(f"/jobs/{review.job.pk}/").content.decode()
    assert "<dt>Cohen's kappa (ann1 vs ann2, 4 pairs judged by both)</dt><dd>0.200</dd>" in html
    table = next(t for t in html_tables(html) if t[0][0] == "Annotators")
    assert table == [
        ["Annotators", "Pairs judged by both", "Cohen's kappa"],
        ["ann1 vs ann2", "4", "0.200"],
        ["ann1 vs ann3", "2", "1.000"],
    ]


def test_a_job_whose_items_have_one_judgment_each_says_what_its_agreement_counts(
    make_review_job, annotators, client_as
):
    review = make_review_job(escalated=2, judgments_per_pair=1)
    (alice,) = annotators(1)
    items = list(ReviewItem.objects.order_by("pk"))
    _judge(items, [(alice, 0, 1), (alice, 1, 0)])
    assert job_agreement(job=review.job).pairs == 0
    html = client_as("researcher").get(f"/jobs/{review.job.pk}/").content.decode()
    # As the datasheet says it: votes on the same pair in other jobs are not counted here.
    assert (
        '<p class="muted" id="job-agreement-none">No item of this job has two judgments yet '
        "(only the judgments on this job's own review items count here"
    ) in html
