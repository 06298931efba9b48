"""With a human budget of 2, the queue serves exactly the two pairs of
highest impact on the benchmark (sum over the runs that retrieved the pair of 1/log2(rank + 1)
for rank <= 10), escalated and audited pairs together; raising the budget releases the next.

The hand-made pool (pairs q00i/d00i; 1-4 escalated, 5-6 agreed and audited), ranks in runs A
and B, and the impact worked by hand:
  pair 1: A 5, B 12      1/log2(6) = 0.386853
  pair 2: A 1, B 2       1 + 1/log2(3) = 1.630930
  pair 3: A 11           0
  pair 4: A 3, B 3       0.5 + 0.5 = 1.0
  pair 5: B 1            1.0 (ties pair 4: q004 sorts before q005)
  pair 6: A 2            0.630930
Order by impact: 2, 4, 5, 6, 1, 3. Total 4.648713; a budget of 2 covers 2.630930 / 4.648713
= 0.56595. Places 3 and 4 are the audits' (pairs 5 and 6), but which audit takes which is
decided by their ``budget_draw`` (a hash, independent of labels and impact): served by
impact, the audits a budget leaves unjudged would not be missing at random.
"""

import uuid

import pytest

from assess.models import ReviewItem
from assess.review.budget import budget_coverage, budget_draw, pair_impact
from assess.review.services import judgment_record, review_item_claim
from debates.services.human import debate_job_budget_set


def test_impact_is_the_summed_ndcg_discount_up_to_rank_ten():
    assert pair_impact([5, 12]) == pytest.approx(0.386853, abs=1e-6)
    assert pair_impact([1, 2]) == pytest.approx(1.630930, abs=1e-6)
    assert pair_impact([11]) == 0.0
    impacts = [1.630930, 1.0, 1.0, 0.630930, 0.386853, 0.0]
    assert budget_coverage(impacts, 2) == pytest.approx(0.56595, abs=1e-5)
    assert budget_coverage(impacts, None) == 1.0


def _serve(annotator) -> str | None:
    item = review_item_claim(annotator=annotator)
    if item is None:
        return None
    judgment_record(item=item, annotator=annotator, label=1, client_id=uuid.uuid4())
    return item.debate.pair.query.query_id


def test_a_budget_of_two_serves_the_two_highest_impact_pairs_and_raising_it_releases_the_next(
    budget_job, annotators, fresh_cache
):
    job, debates = budget_job
    assert ReviewItem.objects.count() == 6  # every pair is queued; the budget decides
    (alice,) = annotators(1)
    assert [_serve(alice), _serve(alice), _serve(alice)] == ["q002", "q004", None]

    audits = sorted(
        [("q005", budget_draw(job.pk, debates[4].pair_id)),
         ("q006", budget_draw(job.pk, debates[5].pair_id))],
        key=lambda a: a[1],
    )  # fmt: skip
    debate_job_budget_set(job=job, budget=3)
    assert [_serve(alice), _serve(alice)] == [audits[0][0], None]
    debate_job_budget_set(job=job, budget=None)
    assert [_serve(alice), _serve(alice), _serve(alice), _serve(alice)] == [
        audits[1][0],
        "q001",
        "q003",
        None,
    ]


def test_the_audits_places_are_filled_in_draw_order_not_by_impact():
    """Pure: three escalations and three audits; the audits keep the places impact gives
    them (2, 4 and 5 here) but fill them in budget_draw order, so the audit of lowest impact
    can come first."""
    from assess.review.budget import BudgetEntry, budget_order

    entries = [
        BudgetEntry(1, 3.0, "q1", "d", audit=False),
        BudgetEntry(2, 2.5, "q2", "d", audit=True, draw=0.9),
        BudgetEntry(3, 2.0, "q3", "d", audit=False),
        BudgetEntry(4, 1.5, "q4", "d", audit=True, draw=0.5),
        BudgetEntry(5, 1.0, "q5", "d", audit=True, draw=0.1),
        BudgetEntry(6, 0.5, "q6", "d", audit=False),
        BudgetEntry(7, 0.1, "q7", "d", started=True, audit=True, draw=0.99),
    ]
    assert budget_order(entries) == [7, 1, 5, 3, 4, 2, 6]
