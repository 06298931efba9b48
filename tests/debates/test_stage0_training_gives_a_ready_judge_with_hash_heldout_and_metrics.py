"""Training a stage-0 judge on a small dataset stores a ready judge: its model hash made of
its data and weights hashes, the held-out test queries' pairs with calibrated probabilities,
and the figures on them."""

import hashlib

import pytest

from debates.models import Stage0Judge
from debates.stage0 import stage0_judge_current, stage0_judge_train
from debates.stage0.fit import TEST, query_split


@pytest.mark.django_db
def test_a_trained_judge_is_ready_with_hashes_heldout_and_metrics(stage0_dataset):
    stages = []
    judge = stage0_judge_train(dataset=stage0_dataset, progress=lambda *args: stages.append(args))
    assert stages == [
        ("collecting labels", 0, 6),
        ("embedding", 1, 6),
        ("fitting", 2, 6),
        ("calibrating", 3, 6),
        ("scoring held-out", 4, 6),
        ("storing", 5, 6),
    ]
    judge.refresh_from_db()
    assert judge.status == Stage0Judge.Status.READY
    assert stage0_judge_current(dataset=stage0_dataset) == judge
    expected = hashlib.sha256(f"{judge.data_hash}:{judge.weights_hash}".encode()).hexdigest()
    assert judge.model_hash == expected and len(judge.data_hash) == 64
    assert bytes(judge.fitted)[:1] == b"\x80"  # a pickle, stored in the row
    test_queries = sorted(f"q{i}" for i in range(40) if query_split(f"q{i}") == TEST)
    assert sorted({row["query_id"] for row in judge.heldout}) == test_queries
    # Every test query's three qrels rows are held out, with their label and source.
    qrels_rows = [row for row in judge.heldout if row["source"] == "qrels"]
    assert len(qrels_rows) == 3 * len(test_queries)
    assert {(row["doc_id"][-1], row["label"]) for row in qrels_rows} == {
        ("a", 1),
        ("b", 1),
        ("n", 0),
    }
    assert all(0.0 <= row["p"] <= 1.0 for row in judge.heldout)
    metrics = judge.metrics
    assert metrics["n"] == len(judge.heldout)
    assert {"balanced_accuracy", "recall_relevant", "recall_nonrelevant", "ece", "brier"} <= set(
        metrics
    )
    assert metrics["calibration"] == "platt"
    assert judge.n_train == sum(
        n for key, n in metrics["counts"]["train"].items() if key != "queries"
    )
