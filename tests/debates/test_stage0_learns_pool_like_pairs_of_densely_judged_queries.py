"""A densely judged query's pairs ranked just below a pool (ranks 11-30 of a run), but never
a pooled pair, are pool-like: unjudged ones are negatives, judged ones keep their qrels label;
a sparsely judged query, or any query of a dataset not known for dense judgments, gives
none. The judge fits and calibrates on the pool-like pairs
alone once its training queries hold 20 relevant ones and its calibration queries both
classes; the held-out test part keeps every source."""

import pytest

from corpora.models import Pool, QrelSet, Run, RunEntry
from debates.stage0 import fit, labels
from debates.stage0.services import MIN_NEAR_RELEVANT, examples_split, fitted_on


def _write(tmp_path):
    from tests.fixtures.datasets import write_beir

    # q0 judges 10 documents (j0..j9, all relevant): densely judged; q1 judges one.
    corpus = [{"_id": f"j{i}", "title": "", "text": f"judged {i}"} for i in range(10)]
    corpus += [{"_id": f"u{i}", "title": "", "text": f"unjudged {i}"} for i in range(40)]
    corpus += [{"_id": "s0", "title": "", "text": "sparse judged"}]
    queries = [{"_id": "q0", "text": "dense query"}, {"_id": "q1", "text": "sparse query"}]
    rows = ["query-id\tcorpus-id\tscore"] + [f"q0\tj{i}\t1" for i in range(10)] + ["q1\ts0\t1"]
    return write_beir(
        tmp_path / "near", corpus=corpus, queries=queries, qrels={"test": "\n".join(rows) + "\n"}
    )


@pytest.mark.django_db
def test_ranks_11_to_30_of_a_dense_query_are_pool_like_and_a_pooled_pair_is_left_out(tmp_path):
    from corpora.services import dataset_import_beir

    # A dataset known for dense judgments (debates.assessment.DENSE_JUDGMENT_DATASETS).
    dataset = dataset_import_beir(path=_write(tmp_path), name="nfcorpus", slug="nfcorpus")
    docs = {d.doc_id: d for d in dataset.documents.all()}
    q0, q1 = dataset.queries.get(query_id="q0"), dataset.queries.get(query_id="q1")
    run = Run.objects.create(dataset=dataset, name="r", status=Run.Status.DONE)
    # q0's ranking: u0..u9 at ranks 1-10 (the pool's depth), j0 at 11, u10..u29 at 12-31.
    ranking = [f"u{i}" for i in range(10)] + ["j0"] + [f"u{i}" for i in range(10, 30)]
    for rank, doc_id in enumerate(ranking, start=1):
        RunEntry.objects.create(run=run, query=q0, document=docs[doc_id], rank=rank, score=0)
    for rank, doc_id in enumerate([f"u{i}" for i in range(30)], start=1):
        RunEntry.objects.create(run=run, query=q1, document=docs[doc_id], rank=rank, score=0)
    pool = Pool.objects.create(
        dataset=dataset, qrel_set=QrelSet.objects.get(dataset=dataset), name="p"
    )
    pool.pairs.create(query=q0, document=docs["u12"], pool_order=0)  # ranked 14, pooled
    examples = labels.examples_collect(dataset=dataset)
    near = {(e.query_id, e.doc_id): (e.label, e.source) for e in examples if e.near}
    # Ranks 11-30 of q0: j0 (judged, relevant) and u10..u28 but the pooled u12; rank 31
    # (u29), ranks 1-10 and every pair of q1 are not pool-like.
    expected = {("q0", "j0"): (1, "qrels")}
    expected |= {("q0", f"u{i}"): (0, "unjudged") for i in range(10, 29) if i != 12}
    assert near == expected
    assert not any(e.source == "unjudged" and not e.near for e in examples)
    assert labels.near_pairs(dataset=dataset, qrels={(q1.pk, docs["s0"].pk): 1}) == set()
    # The same rows on a dataset not known for dense judgments (a depth-pooled TREC
    # collection has many rows a query too): no pool-like pair, no assumed negative.
    type(dataset).objects.filter(pk=dataset.pk).update(slug="trec-covid")
    dataset.refresh_from_db()
    examples = labels.examples_collect(dataset=dataset)
    assert not any(e.near or e.source == "unjudged" for e in examples)


def _example(query: str, doc: str, label: int, near: bool, source: str = "qrels"):
    return labels.Example(query, doc, label, source, 0, 0, near)


def _query_in(part: str) -> str:
    return next(f"q{i}" for i in range(1000) if fit.query_split(f"q{i}") == part)


def test_training_and_calibration_keep_their_pool_like_pairs_once_there_are_enough():
    train, calibration, test = (_query_in(p) for p in (fit.TRAIN, fit.CALIBRATION, fit.TEST))
    rows = [_example(train, f"r{i}", 1, True) for i in range(MIN_NEAR_RELEVANT)]
    rows += [_example(train, "n0", 0, True, "unjudged"), _example(train, "c0", 0, False, "cross")]
    rows += [_example(train, "far", 1, False)]
    rows += [_example(calibration, "r", 1, True), _example(calibration, "n", 0, True, "unjudged")]
    rows += [_example(calibration, "c", 0, False, "cross")]
    rows += [_example(test, "far", 1, False), _example(test, "c", 0, False, "cross")]
    parts = examples_split(rows, seed=0)
    assert len(parts[fit.TRAIN]) == MIN_NEAR_RELEVANT + 1  # 20 relevant, 1 unjudged
    assert all(e.near for e in parts[fit.TRAIN] + parts[fit.CALIBRATION])
    assert [e.doc_id for e in parts[fit.CALIBRATION]] == ["r", "n"]
    assert [e.doc_id for e in parts[fit.TEST]] == ["far", "c"]  # every source held out
    assert fitted_on(parts=parts) == "pool-like pairs"
    # One relevant pool-like pair fewer among the training queries: everything is fitted.
    parts = examples_split(rows[1:], seed=0)
    assert len(parts[fit.TRAIN]) == MIN_NEAR_RELEVANT + 2
    assert len(parts[fit.CALIBRATION]) == 3
    assert fitted_on(parts=parts) == "every labelled pair"
    # Calibration queries with one class of pool-like pairs: everything is fitted too.
    parts = examples_split([r for r in rows if r.doc_id != "n"], seed=0)
    assert fitted_on(parts=parts) == "every labelled pair"


def test_a_dense_dataset_is_one_of_the_known_ones_or_a_copy_named_after_one():
    from debates.assessment import dense_judgments

    assert [dense_judgments(s) for s in ("nfcorpus", "nfcorpus-test-half", "cisi", "med-2")] == [
        True,
        True,
        True,
        True,
    ]
    assert [dense_judgments(s) for s in ("scifact", "trec-covid", "nfcorpusx", "medline")] == [
        False,
        False,
        False,
        False,
    ]
