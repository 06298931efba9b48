"""A stage-0 judge never fits a human label of a pooled pair, in any query of the split, nor
that pair under another source: every such label is scored and kept as the judge's
``band_calibration``, with the probability its pair went to people; a new such label, or a
raised inclusion, makes the judge stale."""

import pytest

from debates.stage0 import fit, labels, stage0_judge_stale, stage0_judge_train, stage0_pairs_score

pytestmark = pytest.mark.django_db


def test_pooled_human_labels_are_held_out_of_fitting_and_scored_for_the_band(
    stage0_dataset, monkeypatch
):
    train_query = next(f"q{i}" for i in range(40) if fit.query_split(f"q{i}") == fit.TRAIN)
    n = train_query[1:]
    q = stage0_dataset.queries.get(query_id=train_query)
    relevant = stage0_dataset.documents.get(doc_id=f"d{n}a")  # a qrels pair: relevant
    other = stage0_dataset.documents.get(doc_id="d39b" if n != "39" else "d0b")  # a hole
    given = {(q.pk, relevant.pk): (1, 1.0, 0.1), (q.pk, other.pk): (0, 0.1, 0.1)}
    monkeypatch.setattr(labels, "_HUMAN_LABELS", [lambda **_: {k: v[0] for k, v in given.items()}])
    monkeypatch.setattr(labels, "_BAND_LABELS", [lambda **_: dict(given)])

    judge = stage0_judge_train(dataset=stage0_dataset)

    fitted = [
        e
        for e in labels.examples_collect(dataset=stage0_dataset)
        if fit.query_split(e.query_id) != fit.TEST and (e.query_pk, e.doc_pk) not in given
    ]
    assert judge.data_hash == fit.data_hash(
        (e.query_id, e.doc_id, e.label, e.source) for e in fitted
    )
    counts = judge.metrics["counts"]
    assert "human_relevant" not in counts["train"] and "human_nonrelevant" not in counts["train"]
    assert counts["band"] == 2
    rows = {(r["doc_id"], r["label"], r["inclusion"], r["floor"]) for r in judge.band_calibration}
    assert rows == {(f"d{n}a", 1, 1.0, 0.1), (other.doc_id, 0, 0.1, 0.1)}
    assert {r["query_id"] for r in judge.band_calibration} == {train_query}
    p = {r["doc_id"]: r["p"] for r in judge.band_calibration}
    scored = stage0_pairs_score(
        judge=judge,
        pairs=[_Key(q.pk, relevant.pk), _Key(q.pk, other.pk)],
    )
    assert [p[f"d{n}a"], p[other.doc_id]] == pytest.approx(scored)

    assert not stage0_judge_stale(judge=judge)
    given[(q.pk, other.pk)] = (0, 0.2, 0.1)  # the audit share raised: its inclusion too
    assert stage0_judge_stale(judge=judge)


class _Key:
    """A pair as :func:`debates.stage0.stage0_pairs_score` reads it: its two keys."""

    def __init__(self, query_id: int, document_id: int) -> None:
        self.query_id, self.document_id = query_id, document_id
