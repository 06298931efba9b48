"""The held-out test queries of a stage-0 judge are never in the data it was fitted or
calibrated on: its data hash is the hash of the training and calibration queries' examples
only, and no held-out row shares a query with them."""

import pytest

from debates.stage0 import fit, stage0_judge_train
from debates.stage0.labels import examples_collect


@pytest.mark.django_db
def test_no_heldout_query_is_among_the_training_or_calibration_queries(stage0_dataset):
    judge = stage0_judge_train(dataset=stage0_dataset)
    examples = examples_collect(dataset=stage0_dataset)
    fitted = [e for e in examples if fit.query_split(e.query_id) != fit.TEST]
    held = [e for e in examples if fit.query_split(e.query_id) == fit.TEST]
    assert {e.query_id for e in fitted}.isdisjoint({row["query_id"] for row in judge.heldout})
    assert judge.data_hash == fit.data_hash(
        (e.query_id, e.doc_id, e.label, e.source) for e in fitted
    )
    assert sorted((r["query_id"], r["doc_id"], r["label"]) for r in judge.heldout) == sorted(
        (e.query_id, e.doc_id, e.label) for e in held
    )
    counts = judge.metrics["counts"]
    assert judge.n_train + sum(
        n for key, n in counts["calibration"].items() if key != "queries"
    ) == len(fitted)
