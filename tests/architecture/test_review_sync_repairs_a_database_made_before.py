"""``./dream manage review_sync`` repairs a database made before review items were created
where a debate ends: every escalated debate and every drawn audit without an item gets one,
in every job, and the command prints how many; run again, it creates nothing."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from assess.models import ReviewItem
from assess.review.agreement import audit_selected

from .review_builders import build_job


def test_review_sync_creates_the_missing_items_of_every_job_and_says_how_many(db):
    first = build_job(escalated=3, agreed=40, audit_share=0.25, slug="first")
    second = build_job(escalated=2, human_budget=1, slug="second", ranks={1: 4, 2: 1})
    drawn = [d.pk for d in first.agreed if audit_selected(first.job.pk, d.pair_id, 0.25)]
    assert ReviewItem.objects.count() == 0
    out = StringIO()
    call_command("review_sync", stdout=out)
    expected = 3 + len(drawn) + 2
    assert (
        out.getvalue().splitlines()[-1] == f"review_sync: {expected} review items created in 2 jobs"
    )
    assert set(ReviewItem.objects.filter(kind="audit").values_list("debate_id", flat=True)) == set(
        drawn
    )
    assert ReviewItem.objects.filter(kind="escalated").count() == 5
    # The budgeted job's items are ranked: the rank-1 pair first.
    ranks = dict(
        ReviewItem.objects.filter(debate__job=second.job).values_list("debate_id", "budget_rank")
    )
    assert ranks == {second.escalated[1].pk: 1, second.escalated[0].pk: 2}
    again = StringIO()
    call_command("review_sync", stdout=again)
    assert again.getvalue().strip() == "review_sync: 0 review items created in 0 jobs"
    assert ReviewItem.objects.count() == expected
