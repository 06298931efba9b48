"""A job limited to its first pairs draws its gold pairs only from the queries it debates:
a known-answer pair on a query no real pair shows would tell itself apart."""

import pytest

from assess.models import GoldPair
from assess.review.gold_queue import gold_pairs_draw
from debates.services.jobs import debates_add


def _pool_with_a_large_first_query(make_finished_job, *, q1_known: bool):
    """Query q1 holds 12 pool pairs; q2 and q3 hold 2 each. Every query has known answers
    in the qrels (q1's only when ``q1_known``): 3 relevant and 3 not relevant chunks."""
    from corpora.models import Document, Pair, Qrel, Query

    job = make_finished_job(slug="limited", gold_share=0.25, pair_limit=10)
    pool = job.pool
    dataset, qrel_set = pool.dataset, pool.qrel_set
    for query_id, pairs in (("q1", 12), ("q2", 2), ("q3", 2)):
        query = Query.objects.create(dataset=dataset, query_id=query_id, text=f"text {query_id}")
        for n in range(pairs):
            doc = Document.objects.create(dataset=dataset, doc_id=f"{query_id}-d{n:02d}", text="x")
            Pair.objects.create(pool=pool, query=query, document=doc)
        if query_id == "q1" and not q1_known:
            continue
        for n, relevance in enumerate([1, 1, 1, 0, 0, 0]):
            doc = Document.objects.create(dataset=dataset, doc_id=f"{query_id}-g{n}", text="x")
            Qrel.objects.create(qrel_set=qrel_set, query=query, document=doc, relevance=relevance)
    debates_add(job=job, limit=10)
    return job


@pytest.mark.django_db
def test_a_job_limited_to_ten_pairs_of_its_first_query_draws_gold_only_on_that_query(
    make_finished_job,
):
    job = _pool_with_a_large_first_query(make_finished_job, q1_known=True)
    debated = set(job.debates.values_list("pair__query__query_id", flat=True))
    assert debated == {"q1"}
    assert gold_pairs_draw(job=job) > 0
    drawn = GoldPair.objects.filter(job=job)
    assert set(drawn.values_list("query__query_id", flat=True)) == debated
    assert set(drawn.values_list("basis", flat=True)) == {
        "cross-query",
        "qrels-nonrelevant",
        "qrels-relevant",
    }


@pytest.mark.django_db
def test_debated_queries_without_known_answers_take_them_from_the_pools_other_queries(
    make_finished_job,
):
    job = _pool_with_a_large_first_query(make_finished_job, q1_known=False)
    gold_pairs_draw(job=job)
    drawn = GoldPair.objects.filter(job=job)
    known = drawn.exclude(basis="cross-query")
    # Both sides fall back to q2 and q3; the cross-query negatives stay on the debated q1.
    assert set(known.values_list("query__query_id", flat=True)) == {"q2", "q3"}
    assert set(known.values_list("basis", flat=True)) == {"qrels-relevant", "qrels-nonrelevant"}
    cross = drawn.filter(basis="cross-query")
    assert set(cross.values_list("query__query_id", flat=True)) <= {"q1"}
