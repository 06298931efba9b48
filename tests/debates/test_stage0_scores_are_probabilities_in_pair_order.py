"""``stage0_pairs_score`` gives one calibrated P(relevant) in [0, 1] per pair, in the order
given, the same the judge stored for its held-out pairs."""

import pytest

from corpora.models import Pair, Pool, QrelSet
from debates.stage0 import stage0_judge_train, stage0_pairs_score


@pytest.mark.django_db
def test_scores_follow_the_pairs_order_and_match_the_stored_heldout(stage0_dataset):
    judge = stage0_judge_train(dataset=stage0_dataset)
    pool = Pool.objects.create(
        dataset=stage0_dataset, qrel_set=QrelSet.objects.get(dataset=stage0_dataset), name="p"
    )
    rows = judge.heldout[:6]
    docs = {d.doc_id: d for d in stage0_dataset.documents.all()}
    queries = {q.query_id: q for q in stage0_dataset.queries.all()}
    pairs = [
        Pair.objects.create(pool=pool, query=queries[r["query_id"]], document=docs[r["doc_id"]])
        for r in rows
    ]
    scores = stage0_pairs_score(judge=judge, pairs=pairs)
    assert all(0.0 <= p <= 1.0 for p in scores)
    assert scores == pytest.approx([r["p"] for r in rows], abs=1e-6)
    assert stage0_pairs_score(judge=judge, pairs=pairs[::-1]) == pytest.approx(scores[::-1])
    assert stage0_pairs_score(judge=judge, pairs=[]) == []
