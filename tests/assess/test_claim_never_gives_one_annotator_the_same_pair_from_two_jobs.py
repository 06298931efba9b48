"""Two jobs of a dataset may send one pair (a query and a chunk) to humans, on one pool or on
two: an annotator who judged it in one job is never given it again from the other, the
status line does not count it among their pairs left, and a judgment sent for it anyway is
refused. Other annotators still get it."""

import pytest

from assess.review.selectors import judging_status
from assess.review.services import (
    JudgingConflict,
    judgment_record,
    review_item_claim,
    review_items_sync,
)
from corpora.models import Pair, Pool
from debates.models import Debate, DebateJob
from tests.fixtures.annot import EMBEDDED


def twin_job(pair, *, pool=None):
    """A finished job whose one escalated debate is of ``pair``'s query and chunk (on
    ``pool``, another pool of the dataset, else on the pair's own), with its review item."""
    if pool is not None:
        pair = Pair.objects.create(pool=pool, query=pair.query, document=pair.document)
    job = DebateJob.objects.create(
        pool=pair.pool,
        agent_a=EMBEDDED,
        agent_b=EMBEDDED,
        rounds=2,
        prompt_version="test",
        status=DebateJob.Status.FINISHED,
        gold_share=0.0,  # no known-answer pairs mixed in
    )
    Debate.objects.create(job=job, pair=pair, status="escalated", escalation_reason="disagreement")
    review_items_sync(job=job)
    return job


def judge(item, user, label, n):
    return judgment_record(
        item=item, annotator=user, label=label, client_id=f"00000000-0000-4000-8000-{n:012d}"
    )


@pytest.fixture
def three_jobs(make_review_job):
    """Job 1 and job 2 on pool ``p``, job 3 on pool ``p2`` of the same dataset: each sends
    the pair q001/d001 to humans."""
    built = make_review_job(escalated=1)
    pair = built.escalated[0].pair
    other = Pool.objects.create(
        dataset=pair.pool.dataset, qrel_set=pair.pool.qrel_set, name="p2", depth=10
    )
    return built.job, twin_job(pair), twin_job(pair, pool=other)


def test_an_annotator_never_meets_a_pair_again_in_another_job(three_jobs, annotators):
    first, second, third = three_jobs
    alice, bob, carol = annotators(3)
    assert judging_status(annotator=alice).queue == 3

    item = review_item_claim(annotator=alice)
    assert item.debate.job_id == first.pk
    judge(item, alice, 1, 1)

    assert review_item_claim(annotator=alice) is None
    assert judging_status(annotator=alice).queue == 0
    assert judging_status(annotator=bob).queue == 2
    taken = review_item_claim(annotator=bob)
    assert taken.debate.job_id == second.pk
    judge(taken, bob, 0, 2)
    assert review_item_claim(annotator=bob) is None
    last = review_item_claim(annotator=carol)
    assert last.debate.job_id == third.pk


def test_a_judgment_sent_for_the_pair_from_another_job_is_refused(three_jobs, annotators):
    first, second, _ = three_jobs
    (alice,) = annotators(1)
    judge(review_item_claim(annotator=alice), alice, 1, 3)
    twin = second.debates.get().review

    with pytest.raises(JudgingConflict, match="already judged this query and chunk in another"):
        judge(twin, alice, 0, 4)
    twin.refresh_from_db()
    assert twin.judgments_done == 0
