"""The gold draw never takes a pair of the job's pool: a cross-query negative that a run
ranked below NEAR_RANK in a deep pool, or a judged pair a pool keeps, is a pair the job
judges as a debate's pair. So a single annotator, the only one of a job, judges every one
of its real pairs: none waits forever behind the gold pair they were given in its place."""

import pytest

from assess.models import GoldPair, ReviewItem
from assess.review import gold
from assess.review.gold_queue import gold_pairs_draw
from assess.review.selectors import judging_status
from assess.review.services import judgment_record, review_item_claim, review_items_sync

SHARE = 0.5
EMBEDDED = {"backend": "embedded", "model": "SmolLM2-135M-Instruct-Q4_1", "n_ctx": 2048}


def _deep_pool_job(*, keep_judged: bool = False):
    """A finished job over the pool pairs q001/d001..d003 of a depth-200 pool, which its run
    ranks 101st to 103rd (the run's first 100 play no part here). The qrels judge d001..d003
    relevant for q900, a query outside the pool, so each pool pair is another query's
    relevant chunk never judged for q001 nor ranked in its top NEAR_RANK: exactly a
    cross-query negative. The qrels also judge q001/g001 not relevant, a known negative
    outside the pool. With ``keep_judged``, q001/d001 is judged relevant too (a pool that
    keeps judged pairs) and q900 has none of d001's relevance."""
    from corpora.models import Dataset, Document, Pair, Pool, Qrel, QrelSet, Query, Run, RunEntry
    from debates.models import Debate, DebateJob

    dataset = Dataset.objects.create(name="Deep pool", slug="deep")
    qrel_set = QrelSet.objects.create(dataset=dataset, name="test")
    pool = Pool.objects.create(
        dataset=dataset, qrel_set=qrel_set, name="p", depth=200, include_judged=keep_judged
    )
    run = Run.objects.create(dataset=dataset, name="bm25")
    pool.runs.add(run)
    query = Query.objects.create(dataset=dataset, query_id="q001", text="Does vitamin D help?")
    other = Query.objects.create(dataset=dataset, query_id="q900", text="Is vitamin D safe?")
    job = DebateJob.objects.create(
        pool=pool,
        agent_a=EMBEDDED,
        agent_b=EMBEDDED,
        rounds=2,
        prompt_version="test",
        status=DebateJob.Status.FINISHED,
        gold_share=SHARE,
    )
    for n in range(1, 4):
        doc = Document.objects.create(dataset=dataset, doc_id=f"d{n:03d}", text=f"chunk {n}")
        RunEntry.objects.create(run=run, query=query, document=doc, rank=100 + n, score=1.0 / n)
        pair = Pair.objects.create(pool=pool, query=query, document=doc)
        Debate.objects.create(
            job=job,
            pair=pair,
            status=Debate.Status.ESCALATED,
            escalation_reason=Debate.Reason.DISAGREEMENT,
        )
        if keep_judged and n == 1:
            Qrel.objects.create(qrel_set=qrel_set, query=query, document=doc, relevance=1)
        else:
            Qrel.objects.create(qrel_set=qrel_set, query=other, document=doc, relevance=1)
    known = Document.objects.create(dataset=dataset, doc_id="g001", text="unrelated")
    Qrel.objects.create(qrel_set=qrel_set, query=query, document=known, relevance=0)
    review_items_sync(job=job)
    return job


def _drawn(job):
    return set(GoldPair.objects.filter(job=job).values_list("query__query_id", "document__doc_id"))


def test_cross_query_negatives_skip_the_pairs_of_the_pool():
    found = gold.cross_query_negatives(
        job_id=1,
        query_ids=["q1"],
        relevant=[("q2", "a"), ("q2", "b")],
        judged=set(),
        near=set(),
        pooled={("q1", "a")},
        size=10,
    )
    assert [(c.query_id, c.doc_id) for c in found] == [("q1", "b")]


@pytest.mark.django_db
def test_no_gold_pair_of_a_deep_pools_job_is_one_of_its_pool_pairs():
    job = _deep_pool_job()
    gold_pairs_draw(job=job)
    # The three pool pairs were the only cross-query candidates; only the known negative
    # outside the pool is left.
    assert _drawn(job) == {("q001", "g001")}
    assert GoldPair.objects.get(job=job).basis == gold.NEGATIVE


@pytest.mark.django_db
def test_a_judged_pair_the_pool_keeps_is_never_drawn_as_a_known_positive():
    job = _deep_pool_job(keep_judged=True)
    gold_pairs_draw(job=job)
    assert ("q001", "d001") not in _drawn(job)
    pooled = set(job.pool.pairs.values_list("query__query_id", "document__doc_id"))
    assert not _drawn(job) & pooled


@pytest.mark.django_db
def test_the_only_annotator_of_the_job_judges_every_real_pair(annotator_at_first_place):
    job = _deep_pool_job()
    # At a first place that is gold, the old draw gave a pool pair as gold before its
    # debate's pair, which then waited for another annotator: there is none.
    ann = annotator_at_first_place(job, SHARE)
    given = []
    while (item := review_item_claim(annotator=ann)) is not None:
        pair = item.gold if item.gold_id else item.debate.pair
        given.append((pair.query.query_id, pair.document.doc_id))
        judgment_record(
            item=item,
            annotator=ann,
            label=0,
            client_id=f"00000000-0000-4000-8000-{len(given):012d}",
        )
    real = ReviewItem.objects.filter(debate__job=job)
    assert real.count() == 3
    assert all(item.judgments.filter(annotator=ann).exists() for item in real)
    assert len(given) == len(set(given)) == 4  # three real pairs, the one gold pair
    assert ("q001", "g001") in given
    assert judging_status(annotator=ann).queue == 0
