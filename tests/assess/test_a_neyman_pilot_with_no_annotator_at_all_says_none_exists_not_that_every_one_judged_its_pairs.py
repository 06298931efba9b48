"""A Neyman job launched before anybody has an annotator account (a first simulated job, a
fresh install) waits for its pilot. `debate_job ID progress`, the job page and the API said
then that the pilot's items could go "to none (every annotator has judged its pair on another
job's item)", when there is no annotator and no other job: the empty set of annotators is a
subset of any pair's judges. The words say instead that no annotator exists yet."""

import pytest

from assess.models import ReviewItem
from assess.review.audit import audit_pilot_waiting
from assess.review.services import review_items_sync
from corpora.models import Document, Pair, Query
from debates.models import Debate, DebateJob

# The pilot's draws are worked by hand at half the share (tests/fixtures/jobs.py).
pytestmark = pytest.mark.usefixtures("pilot_at_half_the_share")


@pytest.mark.django_db
def test_the_pilot_waits_for_an_annotator_account_and_says_so(make_finished_job, annotators):
    base = make_finished_job(slug="nobody", pk=8101)
    job = DebateJob.objects.create(
        pk=8102,
        pool=base.pool,
        agent_a=base.agent_a,
        agent_b=base.agent_b,
        rounds=2,
        prompt_version="test",
        status=DebateJob.Status.FINISHED,
        audit_share=0.5,
        audit_allocation="neyman",
    )
    dataset = base.pool.dataset
    for i in range(40):
        query = Query.objects.create(dataset=dataset, query_id=f"q{i:03d}", text="q")
        document = Document.objects.create(dataset=dataset, doc_id=f"d{i:03d}", title="t", text="x")
        pair = Pair.objects.create(pk=8102 + i, pool=base.pool, query=query, document=document)
        Debate.objects.create(
            job=job, pair=pair, status=Debate.Status.AGREED, final_label=1, consensus_round=1
        )
    review_items_sync(job=job)
    # The pilot draws half the share by a hash of job and pair, both fixed (job 8102, pairs
    # 8102..8141): 5 of the 40 (with pair ids from the sequence, none in about one test order
    # in 100,000).
    n = ReviewItem.objects.filter(debate__job=job, kind=ReviewItem.Kind.AUDIT).count()
    assert n == 5

    assert audit_pilot_waiting(job=job) == (
        f"The Neyman audit waits for {n} of its {n} audit items to be judged: there is no "
        "annotator yet to give them to (createuser --role annotator)"
    )

    annotators(1)
    assert audit_pilot_waiting(job=job) == (
        f"The Neyman audit waits for {n} of its {n} audit items to be judged: {n} can be "
        "given to an annotator"
    )
